/**
 * The bench's report: bench/results/<time>.json (everything), <time>.md (the tables) and
 * <time>.svg (a bar chart of each route's requests/s relative to health, with the targets), also
 * printed to the terminal.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type GitState, stampOf } from "./common";

export interface RouteRow {
  id: string;
  operation: string;
  kind: "baseline" | "read" | "write";
  skipped?: string;
  status?: number;
  error?: string;
  roundTrips?: number;
  rps?: number;
  p50Ms?: number;
  p99Ms?: number;
  cpuMsPerRequest?: number;
  cpuMsAboveHealth?: number;
  ratioToHealth?: number;
  non2xx?: number;
  errors?: number;
  target?: number;
  meetsTarget?: boolean;
}

export interface BenchRecord {
  at: string;
  mode: string;
  git: GitState | undefined;
  node: string;
  cpus: number;
  loadAverage: { before: number[]; after: number[] };
  database: string;
  settings: { connections: number; seconds: number; warmupSeconds: number; scaleSeconds: number };
  health: { rps: number; cpuMsPerRequest: number; runs: number[] };
  /** CPU the idle workerd used, taken off every route's CPU per request. */
  idleWorkerdCpuMsPerSecond?: number;
  routes: RouteRow[];
  /** --profile: where the .cpuprofile files are, and each route's top functions by self time. */
  profiles?: { dir: string; routes: Record<string, string[]> };
  notMeasured: string[];
  scaling: {
    smallRows: number;
    largeRows: number;
    wineries: number;
    measuredWinery: Record<string, number>;
    tablesSmall: Record<string, number>;
    tablesLarge: Record<string, number>;
    generateLargeSeconds: number;
    routes: { id: string; p50SmallMs?: number; p50LargeMs?: number; ratio: number }[];
  };
  catalogue: {
    products: number;
    runs: { ms: number; cpuMs: number; bytes: number; status: number }[];
  };
  exports: {
    label: string;
    contacts: number;
    ok: boolean;
    problem?: string;
    megabytes: number;
    firstByteMs: number;
    totalMs: number;
    rssBeforeMiB: number;
    rssPeakMiB: number;
  }[];
  steady: {
    seconds: number;
    series: { at: number; rssMiB: number }[];
    rssAt10sMiB?: number;
    rssAtEndMiB?: number;
    e13Rps?: number;
    e17Rps?: number;
    errors: number;
  };
  timings: Record<string, number>;
}

const fmt = (n: number) => n.toLocaleString("en");
const cell = (v: unknown) => (v === undefined || v === null || Number.isNaN(v) ? "-" : String(v));

function mdTable(headers: string[], rows: unknown[][]): string {
  return [
    `| ${headers.join(" | ")} |`,
    `|${headers.map((_, i) => (i === 0 ? "---" : "--:")).join("|")}|`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
}

/** Horizontal bars: requests/s as a fraction of health, with the read (0.5) and write (0.3) targets. */
export function chartSvg(r: BenchRecord): string {
  const rows = r.routes.filter((x) => x.ratioToHealth !== undefined && x.kind !== "baseline");
  const barH = 18;
  const left = 170;
  const width = 560;
  const top = 30;
  const height = top + rows.length * (barH + 4) + 30;
  const max = Math.max(1, ...rows.map((x) => x.ratioToHealth ?? 0));
  const x = (v: number) => left + (v / max) * width;
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const bars = rows
    .map((row, i) => {
      const y = top + i * (barH + 4);
      const v = row.ratioToHealth ?? 0;
      const color = row.meetsTarget ? "#3a7d44" : "#c0392b";
      return `<text x="${left - 6}" y="${y + 13}" text-anchor="end">${esc(row.id)}</text>
<rect x="${left}" y="${y}" width="${Math.max(1, x(v) - left).toFixed(1)}" height="${barH}" fill="${color}"/>
<text x="${(x(v) + 4).toFixed(1)}" y="${y + 13}">${v} (${row.kind})</text>`;
    })
    .join("\n");
  const line = (v: number, label: string) =>
    `<line x1="${x(v)}" y1="${top - 6}" x2="${x(v)}" y2="${height - 24}" stroke="#555" stroke-dasharray="4 3"/><text x="${x(v)}" y="${top - 10}" text-anchor="middle">${label}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 120}" height="${height}" font-family="sans-serif" font-size="12">
<title>Requests/s of each route relative to GET /api/health</title>
<rect width="100%" height="100%" fill="white"/>
${line(0.3, "write target 0.3")}
${line(0.5, "read target 0.5")}
${line(1, "health")}
${bars}
<text x="${left}" y="${height - 6}">requests/s relative to GET /api/health (${fmt(r.health.rps)} req/s), ${r.settings.connections} connections; green: meets its target</text>
</svg>
`;
}

export function markdown(r: BenchRecord, chartFile: string): string {
  const measured = r.routes.filter((x) => !x.skipped);
  const s = r.scaling;
  return `# Bench ${r.at} (${r.mode})

${r.database}; the bundled Worker alone in workerd; git ${r.git?.head ?? "?"}${r.git?.uncommittedFiles ? ` (+${r.git.uncommittedFiles} uncommitted files)` : ""}; node ${r.node}; ${r.cpus} CPUs, load average ${r.loadAverage.before[0]?.toFixed(2)} before, ${r.loadAverage.after[0]?.toFixed(2)} after (other work on the machine skews every figure; ratios to health measured in the same run are the comparable numbers).

## Per route

${r.settings.connections} connections, ${r.settings.seconds} s per route after ${r.settings.warmupSeconds} s of warm-up. Health: ${fmt(r.health.rps)} req/s (median of ${r.health.runs.length} runs between the routes: ${r.health.runs.join(", ")}), ${r.health.cpuMsPerRequest} ms of Worker CPU per request. Worker CPU: utime + stime of the workerd process over each route's window${r.idleWorkerdCpuMsPerSecond !== undefined ? `, less the ${r.idleWorkerdCpuMsPerSecond} ms per second it uses when idle,` : ""} divided by the requests. Targets: reads >= 0.5 of health, writes >= 0.3, and at most 1 ms of CPU per request above health. Round trips: database round trips of one request (SQL-over-HTTP requests + WebSocket sessions).

${mdTable(
  [
    "route",
    "operation",
    "kind",
    "round trips",
    "req/s",
    "p50 ms",
    "p99 ms",
    "x health",
    "CPU ms/req",
    "CPU above health",
    "target",
    "non-2xx",
  ],
  measured.map((x) => [
    x.id,
    `\`${x.operation}\``,
    x.kind,
    x.roundTrips,
    x.rps,
    x.p50Ms,
    x.p99Ms,
    x.ratioToHealth,
    x.cpuMsPerRequest,
    x.cpuMsAboveHealth,
    x.target === undefined ? "" : x.meetsTarget ? `>= ${x.target}: yes` : `>= ${x.target}: **no**`,
    x.error ? `${x.status}: ${x.error.slice(0, 80)}` : x.non2xx,
  ]),
)}

![requests/s relative to health](${chartFile})
${
  r.routes.some((x) => x.skipped)
    ? `\nSkipped: ${r.routes
        .filter((x) => x.skipped)
        .map((x) => `${x.id} (\`${x.operation}\`: ${x.skipped})`)
        .join("; ")}\n`
    : ""
}${r.notMeasured.length ? `\nIn the OpenAPI document but without a bench entry: ${r.notMeasured.map((o) => `\`${o}\``).join(", ")}\n` : ""}${profilesSection(r)}
## Scaling

p50 with one connection (${r.settings.scaleSeconds} s per route) when each scaled table holds ${fmt(s.smallRows)} and ${fmt(s.largeRows)} rows, spread over ${fmt(s.wineries)} wineries; the measured winery holds the same rows at both sizes (${Object.entries(
    s.measuredWinery,
  )
    .map(([k, v]) => `${v} ${k}`)
    .join(
      ", ",
    )}; orders with 2 items each). Generating the large tables took ${s.generateLargeSeconds} s. Tables: ${Object.entries(
    s.tablesLarge,
  )
    .map(([k, v]) => `${k} ${fmt(v)}`)
    .join(", ")}.

${mdTable(
  ["route", `p50 ms at ${fmt(s.smallRows)}`, `p50 ms at ${fmt(s.largeRows)}`, "ratio"],
  s.routes.map((x) => [x.id, x.p50SmallMs, x.p50LargeMs, x.ratio]),
)}

E10 on a catalogue of ${fmt(r.catalogue.products)} products (each with a category, a channel price, a metadata entry and a file), one request at a time: ${r.catalogue.runs.map((x) => `${x.ms} ms (Worker CPU ${x.cpuMs} ms, ${(x.bytes / 1e6).toFixed(1)} MB, ${x.status})`).join("; ")}.

## E17 exports

${mdTable(
  ["export", "whole", "MB", "first byte ms", "total ms", "workerd RSS before MiB", "peak MiB"],
  r.exports.map((e) => [
    e.label,
    e.ok ? "yes" : `NO: ${e.problem}`,
    e.megabytes,
    e.firstByteMs,
    e.totalMs,
    e.rssBeforeMiB,
    e.rssPeakMiB,
  ]),
)}

## Steady load

E13 x5 + E17 x5 connections (the measured winery's ${s.measuredWinery.contacts} contacts) for ${r.steady.seconds} s: ${r.steady.e13Rps} + ${r.steady.e17Rps} req/s, ${r.steady.errors} non-2xx. workerd RSS after 10 s: ${r.steady.rssAt10sMiB} MiB, at the end: ${r.steady.rssAtEndMiB} MiB (series: ${r.steady.series.map((x) => `${x.at} s ${x.rssMiB}`).join(", ")}).

Time: ${Object.entries(r.timings)
    .map(([k, v]) => `${k.replace(/Seconds$/, "")} ${v} s`)
    .join(", ")}.
`;
}

/** --profile's section: the CPU figures above include the profiler's own cost. */
function profilesSection(r: BenchRecord): string {
  if (!r.profiles) return "";
  const rows = Object.entries(r.profiles.routes).map(
    ([id, top]) => `| ${id} | ${top.slice(0, 6).join("; ")} |`,
  );
  return `
## CPU profiles

Sampled every 200 µs through workerd's inspector over each route's measured run (the CPU figures above include the profiler's cost: compare them only with profiled runs). Files: \`${r.profiles.dir}/<route>.cpuprofile\` (Chrome DevTools, Performance panel). Top functions by self time, as a share of all samples (idle and garbage collection included):

| route | self time |
|---|---|
${rows.join("\n")}
`;
}

export async function writeReport(r: BenchRecord, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const stamp = stampOf(r.at);
  const base = join(dir, `${stamp}-${r.mode}`);
  const chartFile = `${stamp}-${r.mode}.svg`;
  const md = markdown(r, chartFile);
  await writeFile(`${base}.json`, `${JSON.stringify(r, null, 2)}\n`);
  await writeFile(`${base}.svg`, chartSvg(r));
  await writeFile(`${base}.md`, md);
  console.log(`\n${md}`);
  console.log(`[bench] report: ${base}.md, .json, .svg`);
  return base;
}
