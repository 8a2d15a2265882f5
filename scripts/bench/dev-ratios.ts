/**
 * `npm run bench -- --dev`: requests/s of every route relative to GET /api/health against the
 * `npm run dev` that is running (wrangler dev, as a new user starts it), on the demo winery of
 * `npm run seed`, which it runs first: the ratios a user of the dev stack sees, reproducible.
 *
 * Health is loaded before the first route and after every route; each route is compared with the
 * mean of the health runs on either side of it (wrangler dev drifts over a run). The list routes
 * ask for every date (the seed's rows are recent). E11 imports at dates without a slot (the seed's
 * slots are few and small), E14 refunds the seed's reservation a cent at a time. No Worker CPU
 * here: under wrangler dev a request crosses two workerd processes and wrangler's Node process
 * (`npm run bench` without --dev measures the Worker alone). Writes bench/results/<time>-dev.{md,json}.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { STACK_FILE } from "../commands/lib/paths";
import { load } from "./cannon";
import { gitState, log, round } from "./common";
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
}

const TARGET = { read: 0.5, write: 0.3 } as const;

async function runningStack(): Promise<string> {
  let apiUrl: string;
  try {
    ({ apiUrl } = JSON.parse(await readFile(STACK_FILE, "utf8")) as { apiUrl: string });
  } catch {
    throw new Error(`no running npm run dev (${STACK_FILE} is missing): start it first`);
  }
  const health = await fetch(`${apiUrl}/health`).catch(() => undefined);
  if (health?.status !== 200) throw new Error(`npm run dev at ${apiUrl} does not answer /health`);
  return new URL(apiUrl).origin;
}

/** `npm run seed` (the same script); its last line is the JSON of the demo winery's ids. */
function seed(): Promise<Record<string, unknown>> {
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

function fixtures(s: Record<string, unknown>): Fixtures {
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
      refundReservationId: text("reservationId"),
    },
  };
  return {
    demo,
    measured: { wineryId: demo.wineryId, apiKey: demo.apiKey },
    tag: `dev${Date.now().toString(36)}`,
    range: { from: "2000-01-01", to: "2099-12-31" },
  };
}

/** One route under load (cannon.ts, without a Worker process to read CPU from). */
const loadRoute = (origin: string, route: BenchRoute, f: Fixtures, o: DevRatiosOptions) =>
  load({
    origin,
    connections: o.connections,
    seconds: o.seconds,
    request: (seq) => route.request(f, seq),
  });

/** Runs the routes; true when every answer was a 2xx (targets are reported, not enforced). */
export async function runDevRatios(o: DevRatiosOptions): Promise<boolean> {
  const origin = await runningStack();
  log(`npm run dev at ${origin}; running npm run seed`);
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
  let previousHealth = (await loadRoute(origin, health, f, o)).rps;
  const rows: DevRow[] = [];
  for (const route of routes) {
    const measured = await loadRoute(origin, route, f, o);
    const nextHealth = (await loadRoute(origin, health, f, o)).rps;
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
    };
    rows.push(row);
    log(
      `${row.id.padEnd(20)} ${String(row.rps).padStart(7)} req/s  x${row.ratio.toFixed(2)} of health (${row.healthRps})${row.non2xx ? `  non-2xx ${row.non2xx}` : ""}`,
    );
  }
  await report(rows, o, loadBefore);
  return rows.every((r) => r.non2xx === 0);
}

async function report(rows: DevRow[], o: DevRatiosOptions, loadBefore: number) {
  const at = new Date();
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "");
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
  };
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
  ];
  await mkdir(o.resultsDir, { recursive: true });
  const base = join(o.resultsDir, `${stamp}-dev`);
  await writeFile(`${base}.md`, lines.join("\n"));
  await writeFile(`${base}.json`, `${JSON.stringify({ ...meta, routes: rows }, null, 2)}\n`);
  log(`report: ${base}.md, .json`);
}
