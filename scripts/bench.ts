/**
 * npm run bench [-- options]: the command line of the bench. The bench itself is
 * scripts/bench/run.ts (the bundled Worker alone in workerd on a scratch Postgres, loaded with
 * autocannon); the memory soak is scripts/bench/soak-run.ts. Both stop what they started before
 * they exit.
 */
import { parseArgs } from "node:util";

// The bench's modules (the app's schema, seed data, wrangler's helpers ...) are loaded once the
// command line is checked, so --help and mistakes answer at once.

const USAGE = `Usage: npm run bench [-- options]

Runs the bundled Worker alone in workerd (as it deploys, no wrangler dev in front) against a
scratch Postgres filled with generated data, and loads it with autocannon. Database: a scratch
database (created, then dropped) on the server of DATABASE_URL or TEST_DATABASE_URL, else an
embedded PostgreSQL. Writes bench/results/<time>-<mode>.{md,json,svg}:
  - per route of the OpenAPI document: req/s, p50/p99 at a fixed concurrency, ratio to
    GET /api/health of the same run, the Worker's CPU ms per request, database round trips;
  - scaling: p50 of E4, E10, E16, E17, E20 with small and large tables over 1,000 wineries;
  - E10 on a big catalogue; E17 exports (time, workerd peak RSS); RSS under steady load.
The default takes about 25 minutes on 2 busy CPUs (most of it generating 1,000,000 rows per
table); --quick about 4 minutes.

  --quick                Small scale, short runs: 2 s per route, tables of 1,000 vs 20,000 rows,
                         exports of 1,000 and 10,000 contacts, 20 s of steady load.
  --rows <n>             Rows per scaled table at the large scale (1000000; --quick 20000).
  --seconds <n>          Measured seconds per route (8; --quick 2); with --soak: its duration (120;
                         --target dev 300).
  --connections <n>      Concurrency of the per-route runs (10); with --soak: for each of E13 and
                         E17 (5).
  --only <ids>           Only these routes (comma-separated ids, e.g. E10,E20), health always.
  --results <dir>        Where the report goes (bench/results).
  --profile              Also take a CPU profile of the Worker's isolate over each route's measured
                         run (workerd's inspector): <time>-profiles/<route>.cpuprofile beside the
                         report (open in Chrome DevTools), each route's top functions by self time
                         in the log and the report. The profiler's own cost is in that run's CPU
                         figures, so compare them only with runs that also profiled.

  --dev                  Instead, the ratios a user of the dev stack sees: requests/s of every route
                         relative to health against the running \`npm run dev\` (start it first),
                         on the demo winery of \`npm run seed\`, which it runs. --seconds (5),
                         --connections, --only and --results apply. With each route's
                         CPU per request by process of the stack (from /proc). Writes
                         bench/results/<time>-dev.{md,json}. About 6 minutes.

  --mix                  With --dev: every route at once instead, in turn from --connections (20)
                         clients for --seconds (600), with the RSS of every process of the stack
                         every --sample (30) s; fails on a 5xx, a request unanswered or cut off, or
                         a process grown more than --max-growth (20) percent from --baseline (120)
                         s to the end. Writes bench/results/<time>-dev-mix.{md,json}.

  --soak                 Memory under sustained load instead (npm run dev's stack): E13 and E17 at
                         once for --seconds; RSS of every process after --baseline seconds and at
                         the end. Fails (exit 1) when a workerd process grew by more than
                         --max-growth. Writes bench/results/soak-<target>-<time>.{json,md}.
  --target <t>           With --soak: workerd (default), the bundled Worker alone in workerd; dev:
                         wrangler dev as npm run dev runs it (its proxy workerd in front).
  --baseline <n>         With --soak or --mix: when the first reading is taken, seconds into the
                         load (10; --target dev and --mix 120: wrangler dev's workerd processes
                         warm up for about 100 s before they level off, see bench/README.md).
  --sample <n>           With --soak or --mix: seconds between the readings of the time series
                         (10; --target dev 20; --mix 30).
  --export-contacts <n>  With --soak: contacts in the E17 winery (1000).
  --max-growth <p>       With --soak or --mix: allowed growth of a process in percent (20).
  --heap                 With --soak: also sample the isolate's V8 heap through its inspector.
  -h, --help             This text.
`;

function usageError(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      strict: true,
      allowPositionals: false,
      options: {
        soak: { type: "boolean" },
        dev: { type: "boolean" },
        mix: { type: "boolean" },
        quick: { type: "boolean" },
        rows: { type: "string" },
        only: { type: "string" },
        target: { type: "string" },
        seconds: { type: "string" },
        baseline: { type: "string" },
        sample: { type: "string" },
        connections: { type: "string" },
        "export-contacts": { type: "string" },
        "max-growth": { type: "string" },
        heap: { type: "boolean" },
        profile: { type: "boolean" },
        results: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (err) {
    usageError(err instanceof Error ? err.message : String(err));
  }
}

function number(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) usageError(`--${name} must be a number >= ${min}`);
  return value;
}

let stopping = false;
async function shutdown(code: number, reason?: string): Promise<never> {
  if (!stopping) {
    stopping = true;
    const { log } = await import("./bench/common");
    const { lastStack, stopAllStacks } = await import("./bench/stack");
    const { stopAllEnvironments } = await import("./bench/environment");
    if (reason) console.error(`[bench] ${reason}`);
    const stack = lastStack();
    if (code === 1 && stack) {
      const died = stack.exitReason();
      if (died) console.error(`[bench] ${died}`);
      console.error("[bench] the stack's last lines:");
      for (const line of stack.tail().slice(-20)) console.error(`  ${line}`);
    }
    log("stopping what the bench started");
    await Promise.all([stopAllStacks(), stopAllEnvironments()]);
  }
  process.exit(code);
}

const args = parse();
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (args.mix && !args.dev) usageError("--mix needs --dev");
const soakOnly = ["target", "export-contacts", "heap"].filter(
  (k) => args[k as keyof typeof args] !== undefined,
);
if (!args.soak && soakOnly.length > 0) usageError(`--${soakOnly[0]} needs --soak`);
const memoryOnly = ["baseline", "sample", "max-growth"].filter(
  (k) => args[k as keyof typeof args] !== undefined,
);
if (!args.soak && !args.mix && memoryOnly.length > 0)
  usageError(`--${memoryOnly[0]} needs --soak or --dev --mix`);
const benchOnly = ["quick", "rows", "only", "profile"].filter(
  (k) => args[k as keyof typeof args] !== undefined,
);
if (args.soak && benchOnly.length > 0) usageError(`--${benchOnly[0]} does not apply to --soak`);
if (args.dev && args.soak) usageError("--dev and --soak are two different runs");
const notDev = ["quick", "rows", "profile"].find((k) => args[k as keyof typeof args] !== undefined);
if (args.dev && notDev) usageError(`--${notDev} does not apply to --dev`);
const target = args.target ?? "workerd";
if (target !== "workerd" && target !== "dev") usageError("--target is workerd or dev");
/** --soak's defaults per target: wrangler dev levels off later than the bundled Worker alone. */
const SOAK_DEFAULTS = {
  workerd: { seconds: 120, baseline: 10, sample: 10 },
  dev: { seconds: 300, baseline: 120, sample: 20 },
}[target];

process.on("SIGINT", () => void shutdown(130, "interrupted"));
process.on("SIGTERM", () => void shutdown(143, "terminated"));

const runDev = async () => {
  const { runDevRatios } = await import("./bench/dev-ratios");
  return runDevRatios({
    seconds: number("seconds", args.seconds, 5, 0.5),
    connections: Math.floor(number("connections", args.connections, 10, 1)),
    only: args.only ? args.only.split(",").map((v) => v.trim()) : [],
    resultsDir: args.results ?? "bench/results",
  });
};

const runDevMix = async () => {
  const { runDevMix: runMix } = await import("./bench/dev-mix");
  const seconds = number("seconds", args.seconds, 600, 1);
  const baselineSeconds = number("baseline", args.baseline, 120, 1);
  if (baselineSeconds >= seconds)
    usageError(`--baseline (${baselineSeconds}) must be less than --seconds (${seconds})`);
  return runMix({
    seconds,
    connections: Math.floor(number("connections", args.connections, 20, 1)),
    sampleSeconds: number("sample", args.sample, 30, 1),
    baselineSeconds,
    maxGrowth: number("max-growth", args["max-growth"], 20, 0) / 100,
    only: args.only ? args.only.split(",").map((v) => v.trim()) : [],
    resultsDir: args.results ?? "bench/results",
  });
};

const run = args.dev
  ? args.mix
    ? runDevMix
    : runDev
  : args.soak
    ? async () => {
        const { runSoakBench } = await import("./bench/soak-run");
        const connections = Math.floor(number("connections", args.connections, 5, 1));
        const seconds = number("seconds", args.seconds, SOAK_DEFAULTS.seconds, 1);
        const baselineSeconds = number("baseline", args.baseline, SOAK_DEFAULTS.baseline, 1);
        if (baselineSeconds >= seconds)
          usageError(`--baseline (${baselineSeconds}) must be less than --seconds (${seconds})`);
        return runSoakBench({
          target: target as "workerd" | "dev",
          seconds,
          baselineSeconds,
          sampleSeconds: number("sample", args.sample, SOAK_DEFAULTS.sample, 1),
          e13Connections: connections,
          e17Connections: connections,
          exportContacts: Math.floor(number("export-contacts", args["export-contacts"], 1000, 1)),
          maxGrowth: number("max-growth", args["max-growth"], 20, 0) / 100,
          heap: args.heap ?? false,
          resultsDir: args.results ?? "bench/results",
        });
      }
    : async () => {
        const quick = args.quick ?? false;
        const options = {
          quick,
          connections: Math.floor(number("connections", args.connections, 10, 1)),
          seconds: number("seconds", args.seconds, quick ? 2 : 8, 0.5),
          warmupSeconds: quick ? 1 : 2,
          smallRows: 1000,
          largeRows: Math.floor(number("rows", args.rows, quick ? 20_000 : 1_000_000, 1000)),
          scaleSeconds: quick ? 2 : 5,
          catalogueProducts: quick ? 2000 : 10_000,
          exportSizes: quick ? [1000, 10_000] : [10_000, 100_000],
          steadySeconds: quick ? 20 : 120,
          only: args.only ? args.only.split(",").map((v) => v.trim()) : [],
          resultsDir: args.results ?? "bench/results",
          profile: args.profile ?? false,
        };
        const { runBench } = await import("./bench/run");
        return runBench(options);
      };

run().then(
  (ok) => process.exit(ok ? 0 : 1),
  (err: unknown) =>
    shutdown(1, `failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
);
