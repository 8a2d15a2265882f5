// Shared by the Node-side tests: running the operator commands as a user would, and a local
// stack (throwaway embedded PostgreSQL, migrated, behind the Neon stand-ins).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { WebSocket } from "ws";
import {
  applyMigrations,
  type EmbeddedPostgres,
  type NeonLocal,
  startEmbeddedPostgres,
  startNeonLocal,
  useNeonLocal,
} from "../../scripts/local-db";
import { MessageReader } from "../../scripts/local-db/pg-wire";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX = join(ROOT, "node_modules", ".bin", "tsx");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `scripts/commands/<name>.ts` with tsx, as `npm run` would, in a temp DATA_DIR by default. */
export function runCommand(
  name: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<RunResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, DEBUG: undefined, ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  return new Promise((done) => {
    execFile(
      TSX,
      [join(ROOT, "scripts", "commands", `${name}.ts`), ...args],
      { cwd: ROOT, env: childEnv, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Starts `scripts/commands/<name>.ts` as runCommand does, without waiting for it: in a process
 * group of its own, so that `process.kill(-child.pid, "SIGINT")` is Ctrl-C in its terminal.
 */
export function spawnCommand(
  name: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): ChildProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, DEBUG: undefined, ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  return spawn(TSX, [join(ROOT, "scripts", "commands", `${name}.ts`), ...args], {
    cwd: ROOT,
    env: childEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A temp folder for DATA_DIR, removed by the returned function. */
export async function tempDataDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "winery-node-test-"));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface LocalStack {
  postgres: EmbeddedPostgres;
  neon: NeonLocal;
  close(): Promise<void>;
}

/**
 * A throwaway embedded PostgreSQL with the migrations applied, behind the local Neon endpoints,
 * with the driver in this process pointed at them (as src/db/client.ts does in the Worker).
 */
export async function startLocalStack(): Promise<LocalStack> {
  const postgres = await startEmbeddedPostgres();
  const neon = await startNeonLocal({});
  await applyMigrations(postgres.connectionString, join(ROOT, "drizzle"));
  useNeonLocal(neon, WebSocket);
  return {
    postgres,
    neon,
    async close() {
      await neon.close();
      await postgres.close();
    },
  };
}

/**
 * A WebSocket session through the stack's relay spoken by hand, as the driver would (the start-up
 * is the caller's to send): `answers` collects, in order, the text of each DataRow's first column
 * and "ready" for each ReadyForQuery; `user` is the connection string's.
 */
export async function rawRelaySession(
  stack: LocalStack,
): Promise<{ ws: WebSocket; answers: string[]; user: string }> {
  const url = new URL(stack.postgres.connectionString);
  const ws = new WebSocket(`ws://${stack.neon.wsProxy}/v2?address=${url.hostname}:${url.port}`);
  const received = new MessageReader({ untyped: false });
  const answers: string[] = [];
  ws.on("message", (data: Buffer) => {
    received.push(data);
    for (let m = received.next(); m; m = received.next()) {
      if (m.type === "D") answers.push(m.bytes.subarray(11).toString("utf8"));
      if (m.type === "Z") answers.push("ready");
    }
  });
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  return { ws, answers, user: decodeURIComponent(url.username) };
}

/** No stack trace in a command's output: a user-facing failure is one line. */
export const STACK_FRAME = /^\s+at .+[:(]/m;

/**
 * A Worker bundled from `entry` (TypeScript that may import ./src/...) running in workerd through
 * Miniflare, reached over real HTTP at the returned URL. `options` adds to Miniflare's (bindings,
 * ratelimits...).
 */
export async function startWorker(
  entry: string,
  options: Record<string, unknown> = {},
): Promise<{ url: URL; close(): Promise<void> }> {
  const bundle = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
  });
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: bundle.outputFiles[0]?.text ?? "",
      compatibilityDate: "2026-10-01",
      compatibilityFlags: ["nodejs_compat"],
      ...options,
    }),
  );
  const url = await mf.ready;
  return { url, close: () => mf.dispose() };
}
