/**
 * npm run bench (the full bench): on an isolated stack of its own (scripts/dev.ts with a temporary DATA_DIR and a
 * free port; with DATABASE_URL, a scratch database on that server):
 *
 * 1. Throughput of E13 (POST /api/v2/contacts, a new email each time) against GET /api/health in
 *    the same workerd, in interleaved rounds (ABBA order: health/E13, E13/health, ...), each endpoint
 *    alone on the Worker during its round at a fixed concurrency. Concurrent halves would measure
 *    the mix instead: health requests would queue behind E13's work in the same isolate, so neither
 *    figure would mean much; alternating rounds give each endpoint the whole Worker and spread drift
 *    (JIT warm-up, table growth, GC) evenly over both. The CPU each process of the stack used during
 *    the rounds says where the time went (on a small machine, often not in the Worker).
 * 2. Time and memory of the E17 export (POST /api/v3/contacts/query) of 10,000 vs 100,000
 *    contacts, each for its own winery, cold then warm: VmRSS of the workerd processes sampled every
 *    20 ms (and VmHWM), and the app isolate's live V8 heap through wrangler's inspector. Streaming
 *    in constant memory shows as peaks that do not grow with the size of the export.
 *
 * The exports run first, on a fresh workerd (see main). Progress lines while it runs, a summary
 * table, and as the very last line one JSON object with all figures.
 *
 * Settings: `npm run bench -- --help`. Environment: BENCH_CONCURRENCY (32), BENCH_SECONDS (measured seconds per endpoint, 15),
 * BENCH_ROUNDS (rounds per endpoint, 3), BENCH_WARMUP_SECONDS (2), BENCH_EXPORT_SIZES
 * (10000,100000), BENCH_SNAPSHOT=0 (run the working tree, not a copy: see bench/stack.ts),
 * BENCH_VERBOSE=1 (echo the stack's output), BENCH_WRANGLER_LOG (wrangler's log level, warn),
 * DATABASE_URL (the Postgres server to use, in a scratch database).
 *
 * Exits 1 when an export is not a whole JSON array of exactly the expected contacts (the figures
 * are printed all the same), or when the bench cannot run.
 */
import { cpus, loadavg } from "node:os";
import { bytesToMib, gitState, kibToMib, log, numberEnv, round, seconds } from "./common";
import { type ExportRun, runExport } from "./export";
import { printFullReport } from "./report";
import { analyzeContacts, createTenant, insertContacts, openBenchDb } from "./seed";
import { startStack } from "./stack";
import { assertAlive, openProbe, pids, throughput } from "./throughput";

const SAMPLE_INTERVAL_MS = 20;
/** Each heap sample is a DevTools call through wrangler's proxy, which itself grows per request. */
const HEAP_SAMPLE_INTERVAL_MS = 50;
/** Export contacts are all stamped here; the range below holds them, with explicit offsets. */
const EXPORT_AT = new Date("2025-06-15T12:00:00Z");
const EXPORT_FROM = "2025-01-01T00:00:00+01:00";
const EXPORT_TO = "2026-01-01T00:00:00+01:00";

function exportSizes(): number[] {
  return (process.env.BENCH_EXPORT_SIZES ?? "10000,100000").split(",").map((v) => {
    const n = Number(v.trim());
    if (!Number.isInteger(n) || n < 0)
      throw new Error("BENCH_EXPORT_SIZES: integers, comma-separated");
    return n;
  });
}

/** Runs the full bench; true when every export was whole. The stack is stopped before it returns. */
export async function runFullBench(): Promise<boolean> {
  const began = performance.now();
  const CONCURRENCY = Math.floor(numberEnv("BENCH_CONCURRENCY", 32, 1));
  const SECONDS = numberEnv("BENCH_SECONDS", 15, 0.1);
  const ROUNDS = Math.floor(numberEnv("BENCH_ROUNDS", 3, 1));
  const WARMUP_SECONDS = numberEnv("BENCH_WARMUP_SECONDS", 2, 0);
  const EXPORT_SIZES = exportSizes();
  const settings = {
    concurrency: CONCURRENCY,
    seconds: SECONDS,
    rounds: ROUNDS,
    warmupSeconds: WARMUP_SECONDS,
  };
  log(
    `node ${process.version}, ${cpus().length} CPUs; concurrency ${CONCURRENCY}, ${SECONDS} s per endpoint in ${ROUNDS} rounds (+${WARMUP_SECONDS} s warm-up each)`,
  );
  const loadBefore = loadavg();
  log(
    `load average ${loadBefore.map((l) => l.toFixed(2)).join(" ")} (other work on this machine skews every figure)`,
  );
  const git = gitState();
  if (git) log(`git ${git.head}, ${git.uncommittedFiles} uncommitted files in the working tree`);
  const startT = performance.now();
  const s = await startStack(log);
  const startupSeconds = seconds(startT);
  log(`workerd processes: ${pids(s)}`);
  const warnings: string[] = [];

  const seedT = performance.now();
  const bench = openBenchDb(s.connectionString);
  let e13Key: string;
  const exportTenants: { contacts: number; apiKey: string }[] = [];
  try {
    e13Key = (await createTenant(bench.db, "Bench E13")).apiKey;
    for (const count of EXPORT_SIZES) {
      const t = performance.now();
      const tenant = await createTenant(bench.db, `Bench export ${count}`);
      await insertContacts(bench.db, tenant.wineryId, count, EXPORT_AT);
      exportTenants.push({ contacts: count, apiKey: tenant.apiKey });
      log(
        `seeded ${count.toLocaleString("en")} contacts for winery ${tenant.wineryId} in ${seconds(t)} s`,
      );
    }
    await analyzeContacts(bench.db);
  } finally {
    await bench.close();
  }
  const seedSeconds = seconds(seedT);

  // Exports first, on a fresh workerd: under wrangler dev both workerd processes grow by some
  // 20 KB per request served (a trivial Worker does the same), so after the throughput rounds
  // they would start from a baseline of several hundred MiB of mostly garbage.
  const exportT = performance.now();
  log(`exports: E17 of ${EXPORT_SIZES.join(" and ")} contacts, cold then warm`);
  const exports: ExportRun[] = [];
  for (const pass of ["cold", "warm"]) {
    for (const tenant of exportTenants) {
      const before = pids(s);
      const heapProbe = await openProbe(s);
      const run = await runExport({
        apiUrl: s.apiUrl,
        apiKey: tenant.apiKey,
        dateFrom: EXPORT_FROM,
        dateTo: EXPORT_TO,
        expected: tenant.contacts,
        label: `${tenant.contacts % 1000 === 0 && tenant.contacts > 0 ? `${tenant.contacts / 1000}k` : tenant.contacts} ${pass}`,
        stackPid: s.pid,
        port: s.port,
        sampleIntervalMs: SAMPLE_INTERVAL_MS,
        heapSampleIntervalMs: HEAP_SAMPLE_INTERVAL_MS,
        ...(heapProbe && { heapProbe }),
      }).finally(() => heapProbe?.close());
      assertAlive(s);
      exports.push(run);
      const mem = run.memory
        .map(
          (m) =>
            `${m.role} ${kibToMib(m.baselineKiB)} -> ${kibToMib(m.peakKiB)} MiB (+${kibToMib(m.deltaKiB)})${m.lost ? " LOST" : ""}`,
        )
        .join(", ");
      const heap = run.heap
        ? `; JS heap ${bytesToMib(run.heap.baselineUsed)} -> ${bytesToMib(run.heap.peakUsed)} MiB`
        : "; JS heap not measured (no inspector)";
      log(
        `export ${run.label}: ${run.parsedCount.toLocaleString("en")} contacts, ${round(run.bytes / 1e6, 1)} MB, first byte ${run.ttfbMs} ms, total ${run.totalMs} ms; workerd RSS ${mem}${heap}`,
      );
      if (run.problem) warnings.push(`export ${run.label}: ${run.problem}`);
      if (run.memory.some((m) => m.lost) || pids(s) !== before)
        warnings.push(
          `export ${run.label}: workerd restarted while it ran; its memory figures are void`,
        );
    }
  }
  const exportSeconds = seconds(exportT);

  const throughputT = performance.now();
  log(`throughput: health and E13 alternately, ${CONCURRENCY} concurrent requests`);
  const tp = await throughput(s, e13Key, warnings, settings);
  const throughputSeconds = seconds(throughputT);
  const loadAfter = loadavg();
  const notable = s.notable();

  const stopT = performance.now();
  log("stopping the stack");
  await s.stop();
  const stopSeconds = seconds(stopT);
  const totalSeconds = seconds(began);

  printFullReport({
    s,
    git,
    settings,
    sampleIntervalMs: SAMPLE_INTERVAL_MS,
    heapSampleIntervalMs: HEAP_SAMPLE_INTERVAL_MS,
    tp,
    exports,
    loadBefore,
    loadAfter,
    warnings,
    notable,
    timings: {
      startupSeconds,
      seedSeconds,
      exportSeconds,
      throughputSeconds,
      stopSeconds,
      totalSeconds,
    },
  });
  return exports.every((r) => r.ok);
}
