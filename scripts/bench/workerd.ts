/**
 * The Worker as it deploys, alone in a workerd process: bundled by `wrangler deploy --dry-run`, run
 * by the workerd binary wrangler itself uses, with no proxy worker, no inspector and no dev-server
 * logging in front of it. Its database is the stack's (dev.ts's local Neon endpoints), so a soak of
 * this process measures the app and the runtime and nothing of `wrangler dev`.
 *
 * The IDEMPOTENCY KV namespace is a small in-memory stand-in (a second worker in the same process,
 * answering workerd's KV binding protocol: GET, PUT and DELETE of /<key>), enough for E1's replay
 * cache. The rate limiting bindings of wrangler.toml (one per tier of rate-limit-tiers.ts, which
 * test/node/rate-limit-tiers.test.ts keeps equal to wrangler.toml) are in-memory counters too
 * (RATE_LIMIT_MODULE), so that every versioned request runs its limit() call and carries its
 * RateLimit-Policy header, as deployed; without them the middleware would let it through unlimited
 * (fail open) and the bench would measure a path production never takes.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  bindingLimit,
  RATE_LIMIT_TIERS,
  type RateLimitPolicy,
} from "../../src/services/auth/rate-limit-tiers";

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

const capnpString = (value: string) => JSON.stringify(value);

/**
 * The rate limiting binding's API (limit({ key }) -> { success }) over a fixed window of `period`
 * seconds per key, counted in the isolate. Cloudflare's binding counts per location, in a cache on
 * the machine that runs the Worker, so its cost is of this kind; Miniflare's emulation (wrangler
 * dev) instead crosses an entry worker and a Durable Object that writes SQLite on every call.
 * workerd calls the factory once per isolate with the inner bindings (limit, period).
 */
export const RATE_LIMIT_MODULE = `export default function ({ limit, period }) {
  const windows = new Map();
  return {
    async limit({ key }) {
      const epoch = Math.floor(Date.now() / (period * 1000));
      const window = windows.get(key);
      if (window === undefined || window.epoch !== epoch) {
        if (windows.size >= 10000) windows.clear();
        windows.set(key, { epoch, count: 1 });
        return { success: true };
      }
      if (window.count >= limit) return { success: false };
      window.count++;
      return { success: true };
    },
  };
}`;

const RATE_LIMIT_MODULE_NAME = "bench-internal:ratelimit";

/**
 * The `[[ratelimits]]` bindings of wrangler.toml, as wrapped bindings over RATE_LIMIT_MODULE, each
 * with its binding's own limit (in units for a tier that has them).
 */
export function rateLimitBindings(): string[] {
  return Object.values(RATE_LIMIT_TIERS).map(
    (policy: RateLimitPolicy) =>
      `(name = ${capnpString(policy.binding)}, wrapped = (moduleName = ${capnpString(RATE_LIMIT_MODULE_NAME)}, innerBindings = [(name = "limit", json = "${bindingLimit(policy)}"), (name = "period", json = "${policy.period}")]))`,
  );
}

/** The workerd binary of the project's wrangler (the same version `wrangler dev` runs). */
function workerdBinary(appDir: string): string {
  const require = createRequire(join(appDir, "package.json"));
  const pkg = require.resolve("@cloudflare/workerd-linux-64/package.json", {
    paths: [require.resolve("wrangler/package.json")],
  });
  return join(pkg, "..", "bin", "workerd");
}

export async function startPlainWorkerd(o: PlainWorkerdOptions): Promise<PlainWorkerd> {
  await execFileAsync("wrangler", ["deploy", "--dry-run", "--outdir", o.outDir], {
    cwd: o.appDir,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  const bindings = Object.entries(o.bindings)
    .map(([name, text]) => `(name = ${capnpString(name)}, text = ${capnpString(text)})`)
    .join(", ");
  await writeFile(join(o.outDir, "kv.js"), KV_WORKER);
  await writeFile(join(o.outDir, "ratelimit.js"), RATE_LIMIT_MODULE);
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
  extensions = [(modules = [(name = ${capnpString(RATE_LIMIT_MODULE_NAME)}, internal = true, esModule = embed "ratelimit.js")])],
);
const app :Workerd.Worker = (
  modules = [(name = "index.js", esModule = embed "index.js")],
  compatibilityDate = ${capnpString(o.compatibilityDate)},
  compatibilityFlags = [${o.compatibilityFlags.map(capnpString).join(", ")}],
  bindings = [${[bindings, '(name = "IDEMPOTENCY", kvNamespace = "kv")', ...rateLimitBindings()].join(", ")}],
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
