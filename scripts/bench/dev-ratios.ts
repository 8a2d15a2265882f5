/**
 * `npm run bench -- --dev`: requests/s of every route relative to GET /api/health against the
 * `npm run dev` that is running (wrangler dev, as a new user starts it), on the demo winery of
 * `npm run seed`, which it runs first: the ratios a user of the dev stack sees, reproducible.
 *
 * Health is loaded before the first route and after every route; each route is compared with the
 * mean of the health runs on either side of it (wrangler dev drifts over a run). The list routes
 * ask for every date (the seed's rows are recent). E11 imports at dates without a slot (the seed's
 * slots are few and small), E14 refunds the seed's reservation a cent at a time.
 *
 * CPU per request by process of the stack (/proc utime + stime over each route's window, divided by
 * its requests): under wrangler dev a request crosses wrangler's proxy workerd, wrangler's Node
 * process and the Worker's workerd, then dev.ts (the Neon endpoints) and Postgres. On a machine with
 * few CPUs these share the cores, so a route's ratio follows its total CPU against health's. The
 * figures include whatever else those processes do meanwhile (e.g. wrangler's log line); Postgres is
 * counted only when it is the embedded one (a child of dev.ts). Writes
 * bench/results/<time>-dev.{md,json}.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { STACK_FILE } from "../commands/lib/paths";
import { type LoadResult, load } from "./cannon";
import { gitState, log, round, stampOf } from "./common";
import { STACK_LABELS, stackCpuSeconds } from "./proc";
import { type BenchRoute, type Fixtures, ROUTES } from "./routes";

export interface DevRatiosOptions {
  seconds: number;
  connections: number;
  only: string[];
  resultsDir: string;
}

interface DevRow {
  id: string;
  kind: BenchRoute["kind"];
  method: string;
  path: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  healthRps: number;
  ratio: number;
  target: number | undefined;
  non2xx: number;
  /** CPU ms per request by process group (CPU_GROUPS), and their sum. */
  cpuMs: Record<CpuGroup, number> & { total: number };
}

/** The stack's processes as the CPU breakdown groups them (proc.ts's labels, Postgres summed). */
const CPU_GROUPS = {
  worker: "the Worker's workerd",
  proxy: "wrangler's proxy workerd",
  wrangler: "wrangler (Node)",
  devts: "dev.ts (Neon endpoints)",
  postgres: "Postgres",
} as const;
type CpuGroup = keyof typeof CPU_GROUPS;

/** A process's group from proc.ts's label; Postgres's processes are labelled by their comm. */
export function groupOf(label: string): CpuGroup | undefined {
  if (label === "postgres") return "postgres";
  const own = Object.entries(STACK_LABELS).find(([, l]) => l === label)?.[0];
  return own as CpuGroup | undefined;
}

export interface Stack {
  origin: string;
  pid: number;
  port: number;
}

/** CPU seconds used so far by each group of the stack's processes. */
function cpuByGroup(stack: Stack): Map<number, { group: CpuGroup; seconds: number }> {
  const out = new Map<number, { group: CpuGroup; seconds: number }>();
  for (const [pid, { label, seconds }] of stackCpuSeconds(stack.pid, stack.port)) {
    const group = groupOf(label);
    if (group) out.set(pid, { group, seconds });
  }
  return out;
}

/**
 * CPU ms per request by group between two readings. A process that started in between (a new
 * Postgres backend) counts from 0; one that ended is lost, which undercounts by at most its share.
 */
export function cpuPerRequest(
  before: ReturnType<typeof cpuByGroup>,
  after: ReturnType<typeof cpuByGroup>,
  requests: number,
): DevRow["cpuMs"] {
  const sums = Object.fromEntries(Object.keys(CPU_GROUPS).map((g) => [g, 0])) as Record<
    CpuGroup,
    number
  >;
  for (const [pid, { group, seconds }] of after)
    sums[group] += seconds - (before.get(pid)?.seconds ?? 0);
  const perRequest = (seconds: number) =>
    requests > 0 ? round((seconds * 1000) / requests, 2) : Number.NaN;
  const cpu = Object.fromEntries(
    Object.entries(sums).map(([g, seconds]) => [g, perRequest(seconds)]),
  ) as Record<CpuGroup, number>;
  const total = perRequest(Object.values(sums).reduce((a, b) => a + b, 0));
  return { ...cpu, total };
}

const TARGET = { read: 0.5, write: 0.3 } as const;

export async function runningStack(): Promise<Stack> {
  let apiUrl: string;
  let pid: number;
  try {
    ({ apiUrl, pid } = JSON.parse(await readFile(STACK_FILE, "utf8")) as {
      apiUrl: string;
      pid: number;
    });
  } catch {
    throw new Error(`no running npm run dev (${STACK_FILE} is missing): start it first`);
  }
  const health = await fetch(`${apiUrl}/health`).catch(() => undefined);
  if (health?.status !== 200) throw new Error(`npm run dev at ${apiUrl} does not answer /health`);
  const url = new URL(apiUrl);
  return { origin: url.origin, pid, port: Number(url.port) };
}

/** `npm run seed` (the same script); its last line is the JSON of the demo winery's ids. */
export function seed(): Promise<Record<string, unknown>> {
  const tsx = resolve("node_modules", ".bin", "tsx");
  return new Promise((done, fail) => {
    execFile(tsx, [join("scripts", "commands", "seed.ts")], { timeout: 300_000 }, (error, out) => {
      if (error) return fail(new Error(`npm run seed failed: ${error.message}`));
      const last = out.trim().split("\n").at(-1) ?? "";
      try {
        done(JSON.parse(last) as Record<string, unknown>);
      } catch {
        fail(new Error(`npm run seed did not end with its JSON line: ${last}`));
      }
    });
  });
}

export function fixtures(s: Record<string, unknown>): Fixtures {
  const text = (key: string) => {
    const value = s[key];
    if (value === undefined || value === null) throw new Error(`npm run seed gave no ${key}`);
    return String(value);
  };
  const demo = {
    wineryId: text("wineryId"),
    apiKey: text("apiKey"),
    apiChannelKey: text("apiChannelKey"),
    orderId: text("orderId"),
    couponCode: text("couponCode"),
    commerceSessionId: text("commerceSessionId"),
    productId: text("productId"),
    fileId: text("fileId"),
    attributeId: text("attributeId"),
    customerClassId: text("customerClassId"),
    experienceId: text("experienceId"),
    reservations: {
      experienceId: text("experienceId"),
      slotDates: ["2031-01-07", "2031-01-08", "2031-01-09"],
      slotTime: "15:00:00",
      refundReservationIds: [text("reservationId")],
    },
  };
  return {
    demo,
    measured: { wineryId: demo.wineryId, apiKey: demo.apiKey },
    tag: `dev${Date.now().toString(36)}`,
    range: { from: "2000-01-01", to: "2099-12-31" },
  };
}

/** One route under load (cannon.ts), with the stack's CPU per request by process group. */
async function loadRoute(
  stack: Stack,
  route: BenchRoute,
  f: Fixtures,
  o: DevRatiosOptions,
): Promise<LoadResult & { cpuMs: DevRow["cpuMs"] }> {
  const before = cpuByGroup(stack);
  const result = await load({
    origin: stack.origin,
    connections: o.connections,
    seconds: o.seconds,
    request: (seq) => route.request(f, seq),
  });
  return { ...result, cpuMs: cpuPerRequest(before, cpuByGroup(stack), result.requests) };
}

/** Runs the routes; true when every answer was a 2xx (targets are reported, not enforced). */
export async function runDevRatios(o: DevRatiosOptions): Promise<boolean> {
  const stack = await runningStack();
  log(`npm run dev at ${stack.origin}; running npm run seed`);
  const f = fixtures(await seed());
  const health = ROUTES.find((r) => r.id === "health");
  if (!health) throw new Error("the route table has no health entry");
  const routes = ROUTES.filter(
    (r) => r.kind !== "baseline" && !r.todo && (o.only.length === 0 || o.only.includes(r.id)),
  );
  const loadBefore = loadavg()[0] ?? 0;
  log(
    `${routes.length} routes, ${o.seconds} s each at ${o.connections} connections, health between`,
  );
  const healthRuns: DevRow["cpuMs"][] = [];
  const loadHealth = async () => {
    const run = await loadRoute(stack, health, f, o);
    healthRuns.push(run.cpuMs);
    return run.rps;
  };
  let previousHealth = await loadHealth();
  const rows: DevRow[] = [];
  for (const route of routes) {
    const measured = await loadRoute(stack, route, f, o);
    const nextHealth = await loadHealth();
    const healthRps = (previousHealth + nextHealth) / 2;
    previousHealth = nextHealth;
    const kind = route.kind as "read" | "write";
    const row: DevRow = {
      id: route.id,
      kind: route.kind,
      method: route.method,
      path: route.path,
      rps: round(measured.rps, 1),
      p50Ms: measured.p50Ms,
      p99Ms: measured.p99Ms,
      healthRps: round(healthRps, 1),
      ratio: round(measured.rps / healthRps, 2),
      target: TARGET[kind],
      non2xx: measured.non2xx,
      cpuMs: measured.cpuMs,
    };
    rows.push(row);
    log(
      `${row.id.padEnd(20)} ${String(row.rps).padStart(7)} req/s  x${row.ratio.toFixed(2)} of health (${row.healthRps})  CPU ${row.cpuMs.total} ms/req${row.non2xx ? `  non-2xx ${row.non2xx}` : ""}`,
    );
  }
  await report(rows, medianCpu(healthRuns), o, loadBefore);
  return rows.every((r) => r.non2xx === 0);
}

/** Health's CPU by group: the median of its runs, group by group. */
function medianCpu(runs: DevRow["cpuMs"][]): DevRow["cpuMs"] {
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  };
  const keys = [...Object.keys(CPU_GROUPS), "total"] as (CpuGroup | "total")[];
  return Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r[k]))])) as DevRow["cpuMs"];
}

async function report(
  rows: DevRow[],
  healthCpu: DevRow["cpuMs"],
  o: DevRatiosOptions,
  loadBefore: number,
) {
  const at = new Date();
  const stamp = stampOf(at.toISOString());
  const git = gitState();
  const meta = {
    at: at.toISOString(),
    mode: "dev",
    git,
    cpus: cpus().length,
    loadAverageBefore: round(loadBefore, 2),
    loadAverageAfter: round(loadavg()[0] ?? 0, 2),
    seconds: o.seconds,
    connections: o.connections,
    healthCpuMs: healthCpu,
  };
  const groups = Object.keys(CPU_GROUPS) as CpuGroup[];
  const cpuCells = (c: DevRow["cpuMs"]) => [...groups.map((g) => c[g]), c.total].join(" | ");
  const lines = [
    `# Bench ${meta.at} (dev: npm run dev)`,
    "",
    `Requests/s relative to GET /api/health under the running \`npm run dev\`, on the demo winery of \`npm run seed\`; ${o.connections} connections, ${o.seconds} s per route, health before the first route and after each (a route's ratio is to the mean of the two around it); git ${git?.head ?? "?"}${git?.uncommittedFiles ? ` with ${git.uncommittedFiles} uncommitted files` : ""}; ${meta.cpus} CPUs, load average ${meta.loadAverageBefore} before, ${meta.loadAverageAfter} after. Targets: reads >= 0.5, writes >= 0.3.`,
    "",
    "| route | operation | kind | req/s | p50 ms | p99 ms | health req/s | x health | target | non-2xx |",
    "|---|---|---|--:|--:|--:|--:|--:|--:|--:|",
    ...rows.map(
      (r) =>
        `| ${r.id} | \`${r.method} ${r.path}\` | ${r.kind} | ${r.rps} | ${r.p50Ms} | ${r.p99Ms} | ${r.healthRps} | ${r.ratio} | >= ${r.target}: ${r.ratio >= (r.target ?? 0) ? "yes" : "**no**"} | ${r.non2xx} |`,
    ),
    "",
    "## CPU per request by process",
    "",
    `ms of CPU (user + system, from /proc) per request over each route's window, by process of the stack; health is the median of its ${o.seconds} s runs. Every request crosses the first three; the others only with a database query. Postgres is counted when it is the embedded one.`,
    "",
    `| route | ${groups.map((g) => CPU_GROUPS[g]).join(" | ")} | total |`,
    `|---|${groups.map(() => "--:").join("|")}|--:|`,
    `| health | ${cpuCells(healthCpu)} |`,
    ...rows.map((r) => `| ${r.id} | ${cpuCells(r.cpuMs)} |`),
    "",
  ];
  await mkdir(o.resultsDir, { recursive: true });
  const base = join(o.resultsDir, `${stamp}-dev`);
  await writeFile(`${base}.md`, lines.join("\n"));
  await writeFile(`${base}.json`, `${JSON.stringify({ ...meta, routes: rows }, null, 2)}\n`);
  log(`report: ${base}.md, .json`);
}
