/** The full bench's report: a summary table on the terminal, then one JSON object as the last line. */
import { cpus } from "node:os";
import { bytesToMib, type GitState, kibToMib, round } from "./common";
import type { ExportRun } from "./export";
import type { Summary } from "./load";
import type { Stack } from "./stack";
import type { ThroughputResult } from "./throughput";

export interface FullReport {
  s: Stack;
  git: GitState | undefined;
  settings: { concurrency: number; seconds: number; rounds: number; warmupSeconds: number };
  sampleIntervalMs: number;
  heapSampleIntervalMs: number;
  tp: ThroughputResult;
  exports: ExportRun[];
  loadBefore: number[];
  loadAfter: number[];
  warnings: string[];
  notable: string[];
  timings: {
    startupSeconds: number;
    seedSeconds: number;
    exportSeconds: number;
    throughputSeconds: number;
    stopSeconds: number;
    totalSeconds: number;
  };
}

export function table(headers: string[], rows: (string | number)[][]): string {
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

export function printFullReport(r: FullReport): void {
  const { s, git, tp, exports, loadBefore, loadAfter, warnings, notable } = r;
  const {
    concurrency: CONCURRENCY,
    seconds: SECONDS,
    rounds: ROUNDS,
    warmupSeconds: WARMUP_SECONDS,
  } = r.settings;
  const SAMPLE_INTERVAL_MS = r.sampleIntervalMs;
  const HEAP_SAMPLE_INTERVAL_MS = r.heapSampleIntervalMs;
  const {
    startupSeconds,
    seedSeconds,
    exportSeconds,
    throughputSeconds,
    stopSeconds,
    totalSeconds,
  } = r.timings;
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
}
