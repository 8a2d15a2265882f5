/**
 * npm run bench: on an isolated stack of its own (scripts/dev.ts with a temporary DATA_DIR and a
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
 * Environment: BENCH_CONCURRENCY (32), BENCH_SECONDS (measured seconds per endpoint, 15),
 * BENCH_ROUNDS (rounds per endpoint, 3), BENCH_WARMUP_SECONDS (2), BENCH_EXPORT_SIZES
 * (10000,100000), BENCH_SNAPSHOT=0 (run the working tree, not a copy: see bench/stack.ts),
 * BENCH_VERBOSE=1 (echo the stack's output), BENCH_WRANGLER_LOG (wrangler's log level, warn),
 * DATABASE_URL (the Postgres server to use, in a scratch database).
 *
 * Exits 1 when an export is not a whole JSON array of exactly the expected contacts (the figures
 * are printed all the same), or when the bench cannot run.
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { type ExportRun, runExport } from "./bench/export";
import { findInspectorUrl, type HeapProbe, openHeapProbe } from "./bench/inspector";
import { round, runRound, type Summary, summarize, type Target } from "./bench/load";
import { findWorkerd, memoryOf, stackCpuSeconds } from "./bench/proc";
import { analyzeContacts, createTenant, insertContacts, openBenchDb } from "./bench/seed";
import { type Stack, startStack, stopAllStacks } from "./bench/stack";

function numberEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}`);
  return value;
}

const CONCURRENCY = Math.floor(numberEnv("BENCH_CONCURRENCY", 32, 1));
const SECONDS = numberEnv("BENCH_SECONDS", 15, 0.1);
const ROUNDS = Math.floor(numberEnv("BENCH_ROUNDS", 3, 1));
const WARMUP_SECONDS = numberEnv("BENCH_WARMUP_SECONDS", 2, 0);
const SAMPLE_INTERVAL_MS = 20;
/** Each heap sample is a DevTools call through wrangler's proxy, which itself grows per request. */
const HEAP_SAMPLE_INTERVAL_MS = 50;
const EXPORT_SIZES = (process.env.BENCH_EXPORT_SIZES ?? "10000,100000").split(",").map((v) => {
  const n = Number(v.trim());
  if (!Number.isInteger(n) || n < 0)
    throw new Error("BENCH_EXPORT_SIZES: integers, comma-separated");
  return n;
});
/** Export contacts are all stamped here; the range below holds them, with explicit offsets. */
const EXPORT_AT = new Date("2025-06-15T12:00:00Z");
const EXPORT_FROM = "2025-01-01T00:00:00+01:00";
const EXPORT_TO = "2026-01-01T00:00:00+01:00";

const began = performance.now();
const log = (line: string) => console.log(`[bench] ${line}`);
const seconds = (since: number) => round((performance.now() - since) / 1000, 1);
const kibToMib = (kib: number) => round(kib / 1024, 1);
const bytesToMib = (bytes: number) => round(bytes / 1024 / 1024, 1);

let stack: Stack | undefined;
let stopping = false;

async function shutdown(code: number, reason?: string): Promise<never> {
  if (!stopping) {
    stopping = true;
    if (reason) console.error(`[bench] ${reason}`);
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
process.on("SIGINT", () => void shutdown(130, "interrupted"));
process.on("SIGTERM", () => void shutdown(143, "terminated"));

/** The commit and the count of uncommitted changes the bench runs (for the record). */
function gitState(): { head: string; uncommittedFiles: number } | undefined {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8" }).trim();
    const changed = git("status", "--porcelain");
    return {
      head: git("rev-parse", "--short", "HEAD"),
      uncommittedFiles: changed ? changed.split("\n").length : 0,
    };
  } catch {
    return undefined;
  }
}

/** VmRSS of each workerd process now, in MiB. */
function workerdRss(s: Stack): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of findWorkerd(s.pid, s.port)) {
    out[`${p.role} ${p.pid}`] = kibToMib(memoryOf(p.pid)?.rssKiB ?? 0);
  }
  return out;
}

const describeRss = (rss: Record<string, number>) =>
  Object.entries(rss)
    .map(([k, v]) => `${k} ${v} MiB`)
    .join(", ");

/** Stops the bench when the stack died under it (its figures would be connection errors). */
function assertAlive(s: Stack): void {
  const reason = s.exitReason();
  if (reason) throw new Error(`the stack stopped during the bench: ${reason}`);
}

/** A heap probe on the app's isolate, or undefined (with a progress line) when out of reach. */
async function openProbe(s: Stack): Promise<HeapProbe | undefined> {
  const proxy = findWorkerd(s.pid, s.port).find((p) => p.role === "proxy");
  try {
    const url = proxy && (await findInspectorUrl(proxy.pid, s.port));
    if (!url) throw new Error("wrangler's inspector port not found");
    const probe = await openHeapProbe(url);
    try {
      await probe.usage();
    } catch (err) {
      probe.close();
      throw err;
    }
    return probe;
  } catch (err) {
    log(`JS heap probe unavailable: ${String(err)}`);
    return undefined;
  }
}

function pids(s: Stack): string {
  return findWorkerd(s.pid, s.port)
    .map((p) => `${p.role}:${p.pid}`)
    .join(",");
}

const CLIENT_LABEL = "bench client (this process)";

/** CPU seconds by process label (the bench's own included) from now until the result is called. */
function cpuMeter(s: Stack) {
  const before = stackCpuSeconds(s.pid, s.port);
  const self = process.cpuUsage();
  return () => {
    const used: Record<string, number> = {};
    for (const [pid, now] of stackCpuSeconds(s.pid, s.port)) {
      const delta = now.seconds - (before.get(pid)?.seconds ?? 0);
      used[now.label] = (used[now.label] ?? 0) + delta;
    }
    const mine = process.cpuUsage(self);
    used[CLIENT_LABEL] = (mine.user + mine.system) / 1e6;
    return used;
  };
}

async function throughput(s: Stack, apiKey: string, warnings: string[]) {
  const runTag = Date.now().toString(36);
  const health: Target = {
    name: "GET /api/health",
    request: () => ({ url: `${s.apiUrl}/health`, init: {} }),
  };
  const e13: Target = {
    name: "E13 POST /api/v2/contacts",
    request: (seq) => ({
      url: `${s.apiUrl}/v2/contacts`,
      init: {
        method: "POST",
        headers: { APIKey: apiKey, "Content-Type": "application/json" },
        body: JSON.stringify({
          contactType: "MASTER",
          countryIso: "IT",
          email: `bench-${runTag}-${seq}@example.com`,
          firstName: "Bench",
          lastName: `Contact ${seq}`,
          phoneNumber: `+39 333 ${String(seq).padStart(7, "0")}`,
        }),
      },
    }),
  };
  const roundMs = (SECONDS * 1000) / ROUNDS;
  const before = pids(s);
  const rssBefore = workerdRss(s);
  if (WARMUP_SECONDS > 0) {
    for (const target of [health, e13]) {
      const w = await runRound(target, CONCURRENCY, WARMUP_SECONDS * 1000);
      assertAlive(s);
      log(
        `warm-up ${target.name}: ${round(w.ok / (w.elapsedMs / 1000), 1)} req/s, ${w.errors} errors (not counted)`,
      );
      if (w.errors > 0) log(`  e.g. ${w.errorSamples[0]}`);
    }
  }
  const results = new Map<Target, Awaited<ReturnType<typeof runRound>>[]>([
    [health, []],
    [e13, []],
  ]);
  const cpu = new Map<Target, Record<string, number>>([
    [health, {}],
    [e13, {}],
  ]);
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 === 0 ? [health, e13] : [e13, health];
    for (const target of order) {
      const meter = cpuMeter(s);
      const r = await runRound(target, CONCURRENCY, roundMs);
      const used = meter();
      assertAlive(s);
      results.get(target)?.push(r);
      const sum = cpu.get(target) ?? {};
      for (const [label, sec] of Object.entries(used)) sum[label] = (sum[label] ?? 0) + sec;
      const one = summarize([r]);
      log(
        `round ${i + 1}/${ROUNDS} ${target.name.padEnd(26)} ${String(one.rps).padStart(8)} req/s  p50 ${one.p50Ms} ms  p99 ${one.p99Ms} ms  errors ${one.errors}`,
      );
      if (r.errors > 0) log(`  e.g. ${r.errorSamples[0]}`);
    }
  }
  const after = pids(s);
  const rssAfter = workerdRss(s);
  log(`workerd RSS before the rounds: ${describeRss(rssBefore)}; after: ${describeRss(rssAfter)}`);
  if (before !== after)
    warnings.push(
      `workerd restarted during the throughput rounds (${before} -> ${after}): wrangler reloaded (a file of the bundle changed) or workerd crashed`,
    );
  const h = summarize(results.get(health) ?? []);
  const e = summarize(results.get(e13) ?? []);
  /** Average % of one core each process used while the endpoint was measured. */
  const percent = (target: Target, elapsedSeconds: number) =>
    Object.fromEntries(
      Object.entries(cpu.get(target) ?? {})
        .filter(([, sec]) => sec > 0)
        .sort(([, a], [, b]) => b - a)
        .map(([label, sec]) => [label, round((sec / elapsedSeconds) * 100, 1)]),
    );
  return {
    health: h,
    e13: e,
    ratioE13ToHealth: round(e.rps / h.rps, 3),
    cpuPercentOfOneCore: { health: percent(health, h.seconds), e13: percent(e13, e.seconds) },
    workerdRssMiB: { before: rssBefore, after: rssAfter },
  };
}

function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [
    line(headers),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...cells.slice(1).map(line),
  ].join("\n");
}

function cpuTable(cpu: { health: Record<string, number>; e13: Record<string, number> }): string {
  const labels = [...new Set([...Object.keys(cpu.health), ...Object.keys(cpu.e13)])];
  const total = (r: Record<string, number>) =>
    round(
      Object.values(r).reduce((a, b) => a + b, 0),
      1,
    );
  return table(
    ["process", "during health", "during E13"],
    [
      ...labels.map((l) => [l, cpu.health[l] ?? 0, cpu.e13[l] ?? 0]),
      ["total", total(cpu.health), total(cpu.e13)],
    ],
  );
}

function throughputRow(name: string, s: Summary): (string | number)[] {
  const kinds = Object.entries(s.errorKinds)
    .map(([k, v]) => `${k}:${v}`)
    .join(" ");
  return [
    name,
    s.requests,
    s.rps,
    s.p50Ms,
    s.p90Ms,
    s.p99Ms,
    s.maxMs,
    `${s.errors}${kinds ? ` (${kinds})` : ""}`,
    s.roundsRps.join(" / "),
  ];
}

async function main(): Promise<boolean> {
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
  stack = await startStack(log);
  const s = stack;
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
  const tp = await throughput(s, e13Key, warnings);
  const throughputSeconds = seconds(throughputT);
  const loadAfter = loadavg();
  const notable = s.notable();

  const stopT = performance.now();
  log("stopping the stack");
  await s.stop();
  const stopSeconds = seconds(stopT);
  const totalSeconds = seconds(began);

  console.log(`
== Summary: ${s.database}; ${s.code}${git ? ` (git ${git.head}, ${git.uncommittedFiles} uncommitted files)` : ""} ==
Throughput, ${CONCURRENCY} concurrent, ${SECONDS} s per endpoint in ${ROUNDS} interleaved rounds:
${table(
  [
    "endpoint",
    "requests",
    "req/s",
    "p50 ms",
    "p90 ms",
    "p99 ms",
    "max ms",
    "errors",
    "req/s per round",
  ],
  [throughputRow("GET /api/health", tp.health), throughputRow("E13 POST /api/v2/contacts", tp.e13)],
)}
E13 / health = ${tp.ratioE13ToHealth}

CPU during the measured rounds, % of one core (${cpus().length} cores in all${s.database.startsWith("Postgres") ? "; the Postgres server is not counted" : ""}):
${cpuTable(tp.cpuPercentOfOneCore)}

Export E17 (POST /api/v3/contacts/query), workerd VmRSS sampled every ${SAMPLE_INTERVAL_MS} ms:
${table(
  [
    "export",
    "contacts",
    "MB",
    "first byte ms",
    "total ms",
    "MB/s",
    "workerd",
    "RSS before MiB",
    "peak MiB",
    "delta MiB",
    "VmHWM MiB",
    "samples",
  ],
  exports.flatMap((r) =>
    r.memory.map((m, i) => [
      i === 0 ? r.label : "",
      i === 0 ? r.parsedCount : "",
      i === 0 ? (r.ok ? "yes" : "NO") : "",
      i === 0 ? round(r.bytes / 1e6, 1) : "",
      i === 0 ? r.ttfbMs : "",
      i === 0 ? r.totalMs : "",
      i === 0 ? r.mbPerSecond : "",
      `${m.role} ${m.pid}`,
      kibToMib(m.baselineKiB),
      kibToMib(m.peakKiB),
      kibToMib(m.deltaKiB),
      kibToMib(m.hwmAfterKiB),
      i === 0 ? `${r.samples} (max gap ${r.maxSampleGapMs} ms)` : "",
    ]),
  ),
)}

${
  exports.some((r) => r.heap)
    ? `The app isolate's V8 heap during each export (Runtime.getHeapUsage through wrangler's inspector, every ${HEAP_SAMPLE_INTERVAL_MS} ms; those calls pass through the proxy workerd and add to its RSS):
${table(
  [
    "export",
    "MB sent",
    "JS heap before MiB",
    "peak MiB",
    "delta MiB",
    "ArrayBuffers peak MiB",
    "samples",
  ],
  exports.map((r) => [
    r.label,
    round(r.bytes / 1e6, 1),
    r.heap ? bytesToMib(r.heap.baselineUsed) : "-",
    r.heap ? bytesToMib(r.heap.peakUsed) : "-",
    r.heap ? bytesToMib(r.heap.peakUsed - r.heap.baselineUsed) : "-",
    r.heap ? bytesToMib(r.heap.peakBackingStorage) : "-",
    r.heap?.samples ?? "-",
  ]),
)}
`
    : "The app isolate's V8 heap: not measured (its inspector could not be reached)\n"
}
Time: startup ${startupSeconds} s, seeding ${seedSeconds} s, exports ${exportSeconds} s, throughput ${throughputSeconds} s, shutdown ${stopSeconds} s; total ${totalSeconds} s
Load average (1 min) before ${loadBefore[0]?.toFixed(2)}, after ${loadAfter[0]?.toFixed(2)}, on ${cpus().length} CPUs`);
  if ((loadBefore[0] ?? 0) > cpus().length / 2)
    warnings.push(
      `the machine was busy before the bench (load ${loadBefore[0]?.toFixed(2)} on ${cpus().length} CPUs): throughput figures are low and noisy`,
    );
  for (const w of warnings) console.log(`WARNING: ${w}`);
  if (notable.length > 0) {
    console.log(`The stack printed ${notable.length} error/reload lines during the bench, e.g.:`);
    for (const line of notable.slice(0, 5)) console.log(`  ${line.slice(0, 300)}`);
  }

  console.log(
    JSON.stringify({
      database: s.database,
      code: s.code,
      git,
      node: process.version,
      cpus: cpus().length,
      concurrency: CONCURRENCY,
      secondsPerEndpoint: SECONDS,
      rounds: ROUNDS,
      warmupSeconds: WARMUP_SECONDS,
      loadAverage: { before: loadBefore, after: loadAfter },
      throughput: tp,
      exports: exports.map((r) => ({
        ...r,
        heap: r.heap && {
          baselineUsedMiB: bytesToMib(r.heap.baselineUsed),
          peakUsedMiB: bytesToMib(r.heap.peakUsed),
          deltaUsedMiB: bytesToMib(r.heap.peakUsed - r.heap.baselineUsed),
          peakArrayBuffersMiB: bytesToMib(r.heap.peakBackingStorage),
          samples: r.heap.samples,
        },
        memory: r.memory.map((m) => ({
          role: m.role,
          pid: m.pid,
          baselineRssMiB: kibToMib(m.baselineKiB),
          peakRssMiB: kibToMib(m.peakKiB),
          deltaMiB: kibToMib(m.deltaKiB),
          endRssMiB: kibToMib(m.endKiB),
          hwmBeforeMiB: kibToMib(m.hwmBeforeKiB),
          hwmAfterMiB: kibToMib(m.hwmAfterKiB),
          lost: m.lost,
        })),
      })),
      timings: {
        startupSeconds,
        stackReadySeconds: s.readySeconds,
        seedSeconds,
        exportSeconds,
        throughputSeconds,
        stopSeconds,
        totalSeconds,
      },
      warnings,
      stackErrorLines: notable.length,
    }),
  );
  return exports.every((r) => r.ok);
}

main().then(
  (exportsOk) => process.exit(exportsOk ? 0 : 1),
  (err: unknown) =>
    shutdown(1, `failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
);
