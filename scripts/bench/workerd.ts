/**
 * The Worker as it deploys, alone in a workerd process: bundled by `wrangler deploy --dry-run`, run
 * by the workerd binary wrangler itself uses, with no proxy worker, no inspector and no dev-server
 * logging in front of it. Its database is the stack's (dev.ts's local Neon endpoints), so a soak of
 * this process measures the app and the runtime and nothing of `wrangler dev`.
 *
 * The IDEMPOTENCY KV namespace is a small in-memory stand-in (a second worker in the same process,
 * answering workerd's KV binding protocol: GET, PUT and DELETE of /<key>), enough for E1's replay
 * cache.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export interface PlainWorkerd {
  pid: number;
  port: number;
  apiUrl: string;
  stop(): Promise<void>;
}

export interface PlainWorkerdOptions {
  /** The project to bundle (the bench's snapshot). */
  appDir: string;
  /** Where the bundle and the workerd config go (a temporary folder). */
  outDir: string;
  port: number;
  bindings: Record<string, string>;
  compatibilityDate: string;
  compatibilityFlags: string[];
  /** Open workerd's inspector (on a free port) for the V8 heap probe. */
  inspector?: boolean;
}

/** workerd's KV binding sends GET/PUT/DELETE to /<url-encoded key>; a Map serves them. */
const KV_WORKER = `const store = new Map();
export default {
  async fetch(request) {
    const key = decodeURIComponent(new URL(request.url).pathname.slice(1));
    if (request.method === "PUT") { store.set(key, await request.text()); return new Response(null); }
    if (request.method === "DELETE") { store.delete(key); return new Response(null); }
    const value = store.get(key);
    return value === undefined ? new Response(null, { status: 404 }) : new Response(value);
  },
};`;

/** The workerd binary of the project's wrangler (the same version `wrangler dev` runs). */
function workerdBinary(appDir: string): string {
  const require = createRequire(join(appDir, "package.json"));
  const pkg = require.resolve("@cloudflare/workerd-linux-64/package.json", {
    paths: [require.resolve("wrangler/package.json")],
  });
  return join(pkg, "..", "bin", "workerd");
}

const capnpString = (value: string) => JSON.stringify(value);

export async function startPlainWorkerd(o: PlainWorkerdOptions): Promise<PlainWorkerd> {
  await execFileAsync("wrangler", ["deploy", "--dry-run", "--outdir", o.outDir], {
    cwd: o.appDir,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  const bindings = Object.entries(o.bindings)
    .map(([name, text]) => `(name = ${capnpString(name)}, text = ${capnpString(text)})`)
    .join(", ");
  await writeFile(join(o.outDir, "kv.js"), KV_WORKER);
  const config = join(o.outDir, "workerd.capnp");
  await writeFile(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .app),
    (name = "internet", network = (allow = ["public", "private", "local"])),
    (name = "kv", worker = (modules = [(name = "kv.js", esModule = embed "kv.js")], compatibilityDate = "2024-01-01")),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${o.port}", http = (), service = "main")],
);
const app :Workerd.Worker = (
  modules = [(name = "index.js", esModule = embed "index.js")],
  compatibilityDate = ${capnpString(o.compatibilityDate)},
  compatibilityFlags = [${o.compatibilityFlags.map(capnpString).join(", ")}],
  bindings = [${bindings}, (name = "IDEMPOTENCY", kvNamespace = "kv")],
  globalOutbound = "internet",
);
`,
  );
  const child: ChildProcess = spawn(
    workerdBinary(o.appDir),
    ["serve", config, "--experimental", ...(o.inspector ? ["--inspector-addr=127.0.0.1:0"] : [])],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const errors: string[] = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    errors.push(chunk);
    if (errors.length > 20) errors.shift();
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("could not spawn workerd");
  const apiUrl = `http://127.0.0.1:${o.port}/api`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${apiUrl}/health`)).ok) return { pid, port: o.port, apiUrl, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`workerd did not answer /api/health: ${errors.join("").slice(-1000)}`);
}
