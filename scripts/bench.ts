/**
 * npm run bench [-- options]: the command line of the bench. The full bench (throughput and
 * exports) is scripts/bench/full.ts; the memory soak is scripts/bench/soak-run.ts. Both start an
 * isolated stack of their own (scripts/bench/stack.ts) and stop it before they exit.
 */
import { parseArgs } from "node:util";
import { log, numberEnv } from "./bench/common";
import { runFullBench } from "./bench/full";
import { runSoakBench, type SoakTarget } from "./bench/soak-run";
import { lastStack, stopAllStacks } from "./bench/stack";

const USAGE = `Usage: npm run bench [-- options]

Without options: the full bench. Throughput of E13 against GET /api/health in interleaved rounds,
then time and memory of E17 exports of 10,000 and 100,000 contacts. Progress lines, a summary,
and one JSON object as the last line. Settings through the environment: BENCH_CONCURRENCY (32),
BENCH_SECONDS (15), BENCH_ROUNDS (3), BENCH_WARMUP_SECONDS (2), BENCH_EXPORT_SIZES
(10000,100000), BENCH_SNAPSHOT=0 (run the working tree, not a copy), BENCH_VERBOSE=1 (echo the
stack's output), BENCH_WRANGLER_LOG (warn), DATABASE_URL (a Postgres server: the bench works in a
scratch database of its own there; else the embedded database).

  --soak                 Memory under sustained load instead: E13 and E17 (an export of a winery
                         of fixed size) at once, for --seconds; RSS of every process of the stack
                         after --baseline seconds and at the end. Fails (exit 1) when a workerd
                         process grew by more than --max-growth. Writes JSON and markdown to
                         bench/results/.
  --target <t>           workerd (default): the bundled Worker alone in workerd, as it deploys;
                         dev: wrangler dev as npm run dev runs it (its proxy workerd in front).
  --seconds <n>          Soak duration (120).
  --baseline <n>         When the first reading is taken, seconds into the load (10).
  --sample <n>           Seconds between the readings of the time series (10).
  --connections <n>      Connections for each of E13 and E17 (5).
  --export-contacts <n>  Contacts in the E17 winery (1000).
  --max-growth <p>       Allowed growth of a workerd process in percent (20).
  --heap                 Also sample the Worker isolate's V8 heap through its inspector (an
                         attached inspector changes what workerd keeps; off by default).
  --results <dir>        Where the soak writes its result (bench/results).
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
        target: { type: "string" },
        seconds: { type: "string" },
        baseline: { type: "string" },
        sample: { type: "string" },
        connections: { type: "string" },
        "export-contacts": { type: "string" },
        "max-growth": { type: "string" },
        heap: { type: "boolean" },
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
    if (reason) console.error(`[bench] ${reason}`);
    const stack = lastStack();
    if (code === 1 && stack) {
      const died = stack.exitReason();
      if (died) console.error(`[bench] ${died}`);
      console.error("[bench] the stack's last lines:");
      for (const line of stack.tail().slice(-20)) console.error(`  ${line}`);
    }
    log("stopping the stack");
    await stopAllStacks();
  }
  process.exit(code);
}

const args = parse();
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const soakOnly = ["target", "seconds", "baseline", "sample", "connections", "export-contacts"]
  .concat(["max-growth", "heap", "results"])
  .filter((k) => args[k as keyof typeof args] !== undefined);
if (!args.soak && soakOnly.length > 0) usageError(`--${soakOnly[0]} needs --soak`);
const target = args.target ?? "workerd";
if (target !== "workerd" && target !== "dev") usageError("--target is workerd or dev");
numberEnv("BENCH_CONCURRENCY", 32, 1); // fail on a bad setting before starting anything

process.on("SIGINT", () => void shutdown(130, "interrupted"));
process.on("SIGTERM", () => void shutdown(143, "terminated"));

const run = args.soak
  ? () => {
      const connections = Math.floor(number("connections", args.connections, 5, 1));
      return runSoakBench({
        target: target as SoakTarget,
        seconds: number("seconds", args.seconds, 120, 1),
        baselineSeconds: number("baseline", args.baseline, 10, 1),
        sampleSeconds: number("sample", args.sample, 10, 1),
        e13Connections: connections,
        e17Connections: connections,
        exportContacts: Math.floor(number("export-contacts", args["export-contacts"], 1000, 1)),
        maxGrowth: number("max-growth", args["max-growth"], 20, 0) / 100,
        heap: args.heap ?? false,
        resultsDir: args.results ?? "bench/results",
      });
    }
  : runFullBench;

run().then(
  (ok) => process.exit(ok ? 0 : 1),
  (err: unknown) =>
    shutdown(1, `failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
);
