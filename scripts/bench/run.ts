/**
 * npm run bench: the bundled Worker alone in workerd (environment.ts) on a scratch Postgres filled
 * with generated data (generate.ts), loaded route by route with autocannon (cannon.ts):
 *
 * 1. data at the small scale (SMALL_ROWS rows per scaled table, spread over 1,000 wineries), the
 *    demo winery of `npm run seed` and the measured winery;
 * 2. database round trips of one request of every route (the Neon stand-ins' counter);
 * 3. per route: requests/s, p50/p99 at a fixed concurrency, the Worker's CPU per request, the
 *    ratio to GET /api/health (measured between the routes of the same run);
 * 4. scaling: p50 (one connection) of the scaled routes, then the tables grown to --rows, again;
 * 5. E10 on a catalogue of many products; E17 exports of fixed sizes (time, workerd's peak RSS);
 * 6. steady load (E13 + E17) with workerd's RSS after 10 s and at the end.
 *
 * The report goes to bench/results/<time>.{md,json,svg} (report.ts).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import * as schema from "../../src/db/schema";
import { seedDemo } from "../commands/lib/seed-data";
import { idleCpuRate, type LoadResult, load, nextSeq, round } from "./cannon";
import { gitState, log, seconds, stampOf } from "./common";
import { type Environment, startEnvironment } from "./environment";
import { type ExportRun, runExport } from "./export";
import { Generator } from "./generate";
import { cpuProfileOf, findInspectorUrl, openCdpSession, topSelfTime } from "./inspector";
import { cpuSecondsOf, memoryOf } from "./proc";
import { type BenchRecord, type RouteRow, writeReport } from "./report";
import { type BenchRoute, documentedOperations, type Fixtures, ROUTES } from "./routes";
import { createTenant } from "./seed";

export interface BenchOptions {
  quick: boolean;
  connections: number;
  /** Measured seconds per route (after warmupSeconds). */
  seconds: number;
  warmupSeconds: number;
  /** Rows per scaled table at the small and the large scale. */
  smallRows: number;
  largeRows: number;
  /** Seconds of the one-connection p50 runs of the scaling table. */
  scaleSeconds: number;
  catalogueProducts: number;
  exportSizes: number[];
  steadySeconds: number;
  /** Route ids to measure (all when empty). */
  only: string[];
  resultsDir: string;
  /** A CPU profile of the Worker's isolate over each route's measured run (inspector.ts). */
  profile: boolean;
}

/** The measured winery's rows in each scaled table (the same at every scale). */
export const MEASURED = {
  orders: 50,
  receipts: 50,
  products: 50,
  contacts: 500,
  reservations: 50,
};
const FILLER_WINERIES = 999;
/** Slots E11's imports take in turn (see Generator.reservationTargets). */
const RESERVATION_SLOTS = 20;

const fmt = (n: number) => n.toLocaleString("en");

async function fixtures(gen: Generator, env: Environment): Promise<Fixtures> {
  const db = drizzle({ client: gen.pool, schema, casing: "snake_case" });
  const demo = await seedDemo(db, () => {});
  const one = async (text: string, values: unknown[]) =>
    String((await gen.query(text, values)).rows[0]?.id ?? "");
  const fileId = await one(
    "select id from product_files where product_id = $1 order by id limit 1",
    [demo.productId],
  );
  const attributeId = await one(
    "select id from attributes where winery_id = $1 order by id limit 1",
    [demo.wineryId],
  );
  const measured = await createTenant(db, "Bench measured winery");
  const reservations = await gen.reservationTargets(String(demo.wineryId), RESERVATION_SLOTS);
  void env;
  return {
    demo: {
      wineryId: String(demo.wineryId),
      apiKey: String(demo.apiKey),
      apiChannelKey: String(demo.apiChannelKey),
      orderId: String(demo.orderId),
      couponCode: String(demo.couponCode),
      commerceSessionId: String(demo.commerceSessionId),
      productId: String(demo.productId),
      fileId,
      attributeId,
      customerClassId: String(demo.customerClassId),
      experienceId: String(demo.experienceId),
      reservations,
    },
    measured,
    tag: Date.now().toString(36),
  };
}

/** Fills the scaled tables up to `rows` each: the measured winery's share first, fillers the rest. */
async function fillTo(gen: Generator, rows: number, measuredWineryId: string | undefined) {
  const counts = await gen.counts();
  const started = performance.now();
  if (measuredWineryId) {
    const owner = { wineryId: measuredWineryId };
    await gen.orders(owner, MEASURED.orders);
    await gen.receipts(owner, MEASURED.receipts);
    await gen.products(owner, MEASURED.products);
    await gen.contacts(owner, MEASURED.contacts);
    // After the contacts: the reservations' MASTER contacts are the winery's own.
    await gen.reservations(owner, MEASURED.reservations);
  }
  const now = await gen.counts();
  for (const table of ["orders", "receipts", "products", "contacts", "reservations"] as const) {
    const missing = rows - (now[table] ?? 0);
    if (missing <= 0) continue;
    log(`generating ${fmt(missing)} ${table} for the filler wineries`);
    await gen[table]("fillers", missing);
  }
  await gen.analyze();
  const after = await gen.counts();
  log(
    `tables now: ${Object.entries(after)
      .map(([t, n]) => `${t} ${fmt(n)}`)
      .join(", ")} (was ${fmt(counts.orders ?? 0)} orders; ${seconds(started)} s)`,
  );
  return { counts: after, seconds: seconds(started) };
}

/**
 * --profile: a DevTools session on the Worker's workerd; profile(id, during) samples the isolate
 * while `during` runs, writes <dir>/<id>.cpuprofile and answers the top functions by self time.
 */
async function openProfiler(env: Environment, resultsDir: string) {
  const url = await findInspectorUrl(env.worker.pid, env.worker.port);
  if (!url) throw new Error("--profile: workerd's inspector was not found");
  const session = await openCdpSession(url);
  const dir = join(resultsDir, `${stampOf(new Date().toISOString())}-profiles`);
  await mkdir(dir, { recursive: true });
  log(`CPU profiles of each route's measured run go to ${dir}`);
  return {
    dir,
    async profile<T>(id: string, during: () => Promise<T>) {
      const { profile, result } = await cpuProfileOf(session, during);
      const file = `${id.replace(/[^A-Za-z0-9]+/g, "-")}.cpuprofile`;
      await writeFile(join(dir, file), JSON.stringify(profile));
      return { top: topSelfTime(profile), result };
    },
    close: () => session.close(),
  };
}

/**
 * One request of the route: its status and the database round trips it made. Sent twice, counted
 * the second time: the first request with an API key also looks the key up (then cached), which
 * is not the route's work.
 */
async function probe(env: Environment, route: BenchRoute, f: Fixtures) {
  const send = async () => {
    const r = route.request(f, nextSeq());
    await env.resetRoundTrips();
    const res = await fetch(`${env.origin}${r.path}`, {
      method: r.method,
      headers: r.headers,
      ...(r.body !== undefined && { body: r.body }),
    });
    const text = await res.text();
    const policy = res.headers.get("RateLimit-Policy");
    return { status: res.status, roundTrips: await env.roundTrips(), text, policy };
  };
  await send();
  const { status, roundTrips, text, policy } = await send();
  return { status, roundTrips, policy, sample: status < 300 ? undefined : text.slice(0, 300) };
}

export async function runBench(o: BenchOptions): Promise<boolean> {
  const began = performance.now();
  const loadBefore = loadavg();
  const git = gitState();
  log(
    `node ${process.version}, ${cpus().length} CPUs, load average ${loadBefore.map((l) => l.toFixed(2)).join(" ")}; ${o.connections} connections, ${o.seconds} s per route (+${o.warmupSeconds} s warm-up)`,
  );
  const env = await startEnvironment(log, { inspector: o.profile });
  const pid = env.worker.pid;
  const gen = Generator.open(env.db.connectionString, log);
  const timings: Record<string, number> = {};
  try {
    // 1. Data at the small scale.
    let t = performance.now();
    const f = await fixtures(gen, env);
    await gen.fillerWineries(FILLER_WINERIES);
    const small = await fillTo(gen, o.smallRows, f.measured.wineryId);
    timings.seedSmallSeconds = seconds(t);

    const doc = (await (await fetch(`${env.origin}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = new Set(documentedOperations(doc));
    const selected = ROUTES.filter(
      (r) => r.kind === "baseline" || o.only.length === 0 || o.only.includes(r.id),
    );
    const rows: RouteRow[] = [];
    const active: BenchRoute[] = [];
    for (const route of selected) {
      const op = `${route.method} ${route.path}`;
      if (!documented.has(op)) {
        rows.push({
          id: route.id,
          operation: op,
          kind: route.kind,
          skipped: `not in /api/openapi.json${route.todo ? `; TODO: ${route.todo}` : ""}`,
        });
        continue;
      }
      active.push(route);
    }
    const covered = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    const notMeasured = [...documented].filter(
      (op) => !covered.has(op) && !op.includes("/docs") && !op.endsWith("openapi.json"),
    );

    // 2. Round trips of one request each (also proves the request works before loading it).
    t = performance.now();
    const probes = new Map<BenchRoute, Awaited<ReturnType<typeof probe>>>();
    for (const route of active) {
      const p = await probe(env, route, f);
      probes.set(route, p);
      log(
        `${route.id.padEnd(20)} ${p.status}, ${p.roundTrips} round trip(s)${p.policy ? `, RateLimit-Policy ${p.policy}` : ""}${p.sample ? `: ${p.sample}` : ""}`,
      );
    }
    timings.roundTripSeconds = seconds(t);

    // 3. Per route at a fixed concurrency, health between every few routes.
    t = performance.now();
    const idleRate = await idleCpuRate(pid, 5);
    log(
      `idle workerd uses ${round(idleRate * 1000, 1)} ms of CPU per second (taken off each route's CPU)`,
    );
    const profiler = o.profile ? await openProfiler(env, o.resultsDir) : undefined;
    const profiles: Record<string, string[]> = {};
    // The per-route runs are profiled (--profile); the scaling runs, with one connection, are not.
    const run = async (
      route: BenchRoute,
      connections = o.connections,
      secs = o.seconds,
      profiled = true,
    ) => {
      const common = { origin: env.origin, connections, workerPid: pid, idleCpuRate: idleRate };
      if (o.warmupSeconds > 0)
        await load({ ...common, seconds: o.warmupSeconds, request: (s) => route.request(f, s) });
      const measured = () =>
        load({ ...common, seconds: secs, request: (s) => route.request(f, s) });
      if (!profiler || !profiled || route.kind === "baseline") return measured();
      const { top, result } = await profiler.profile(route.id, measured);
      profiles[route.id] = top;
      log(`${route.id.padEnd(20)}  self time: ${top.slice(0, 5).join("; ")}`);
      return result;
    };
    const health = active.find((r) => r.kind === "baseline");
    if (!health) throw new Error("no health route");
    const healthRuns: LoadResult[] = [];
    const measureHealth = async () => {
      const h = await run(health);
      healthRuns.push(h);
      log(
        `health                ${h.rps} req/s, p50 ${h.p50Ms} ms, p99 ${h.p99Ms} ms, CPU ${h.cpuMsPerRequest} ms/req`,
      );
    };
    await measureHealth();
    const results = new Map<BenchRoute, LoadResult>();
    let sinceHealth = 0;
    for (const route of active) {
      if (route.kind === "baseline") continue;
      if ((probes.get(route)?.status ?? 500) >= 300) continue;
      const r = await run(route);
      results.set(route, r);
      log(
        `${route.id.padEnd(20)}  ${r.rps} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, CPU ${r.cpuMsPerRequest} ms/req${r.non2xx ? `, ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}` : ""}`,
      );
      if (++sinceHealth === 6) {
        await measureHealth();
        sinceHealth = 0;
      }
    }
    await measureHealth();
    profiler?.close();
    timings.routesSeconds = seconds(t);
    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s[Math.floor(s.length / 2)] ?? Number.NaN;
    };
    const healthRps = median(healthRuns.map((h) => h.rps));
    const healthCpu = median(healthRuns.map((h) => h.cpuMsPerRequest));
    for (const route of active) {
      const p = probes.get(route);
      const r =
        route.kind === "baseline"
          ? ({ ...healthRuns[0], rps: healthRps, cpuMsPerRequest: healthCpu } as LoadResult)
          : results.get(route);
      const target = route.kind === "read" ? 0.5 : route.kind === "write" ? 0.3 : undefined;
      const ratio = r ? round(r.rps / healthRps, 2) : undefined;
      const cpuAbove = r ? round(r.cpuMsPerRequest - healthCpu, 2) : undefined;
      rows.push({
        id: route.id,
        operation: `${route.method} ${route.path}`,
        kind: route.kind,
        roundTrips: p?.roundTrips,
        status: p?.status,
        ...(p?.sample && { error: p.sample }),
        ...(r && {
          rps: r.rps,
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          cpuMsPerRequest: r.cpuMsPerRequest,
          cpuMsAboveHealth: cpuAbove,
          ratioToHealth: ratio,
          non2xx: r.non2xx,
          errors: r.errors,
          ...(target !== undefined && {
            target,
            meetsTarget: (ratio ?? 0) >= target && (cpuAbove ?? 99) <= 1,
          }),
        }),
      });
    }

    // 4. Scaling: p50 with one connection, small tables then large.
    const scaled = active.filter((r) => r.scaled && (probes.get(r)?.status ?? 500) < 300);
    const scaleRun = async () => {
      const out: Record<string, number> = {};
      for (const route of scaled) {
        const r = await run(route, 1, o.scaleSeconds, false);
        out[route.id] = r.p50Ms;
        log(`scaling ${route.id}: p50 ${r.p50Ms} ms (${r.requests} requests)`);
      }
      return out;
    };
    t = performance.now();
    const p50Small = await scaleRun();
    const grow = await fillTo(gen, o.largeRows, undefined);
    timings.generateLargeSeconds = grow.seconds;
    const p50Large = await scaleRun();
    timings.scalingSeconds = seconds(t);
    const scaling = {
      smallRows: o.smallRows,
      largeRows: o.largeRows,
      wineries: FILLER_WINERIES + 1,
      measuredWinery: MEASURED,
      tablesSmall: small.counts,
      tablesLarge: grow.counts,
      generateLargeSeconds: grow.seconds,
      routes: scaled.map((r) => ({
        id: r.id,
        p50SmallMs: p50Small[r.id],
        p50LargeMs: p50Large[r.id],
        ratio: round((p50Large[r.id] ?? Number.NaN) / (p50Small[r.id] ?? Number.NaN), 2),
      })),
    };

    // 5a. E10 on a big catalogue: one request at a time.
    t = performance.now();
    const catalogue = await createTenant(
      drizzle({ client: gen.pool, schema, casing: "snake_case" }),
      "Bench catalogue",
    );
    log(`generating a catalogue of ${fmt(o.catalogueProducts)} products with their child rows`);
    await gen.products({ wineryId: catalogue.wineryId }, o.catalogueProducts);
    await gen.analyze();
    const e10 = ROUTES.find((r) => r.id === "E10");
    const catalogueRuns: { ms: number; cpuMs: number; bytes: number; status: number }[] = [];
    if (e10) {
      const cf: Fixtures = { ...f, measured: catalogue };
      for (let i = 0; i < 3; i++) {
        const r = e10.request(cf, nextSeq());
        const cpu0 = cpuSecondsOf(pid);
        const t0 = performance.now();
        const res = await fetch(`${env.origin}${r.path}`, {
          method: r.method,
          headers: r.headers,
          body: r.body ?? null,
        });
        const body = await res.arrayBuffer();
        catalogueRuns.push({
          ms: round(performance.now() - t0, 1),
          cpuMs: round((cpuSecondsOf(pid) - cpu0) * 1000, 0),
          bytes: body.byteLength,
          status: res.status,
        });
      }
      log(
        `E10 with ${fmt(o.catalogueProducts)} products: ${catalogueRuns.map((r) => `${r.ms} ms (CPU ${r.cpuMs} ms, ${r.status})`).join(", ")}`,
      );
    }
    timings.catalogueSeconds = seconds(t);

    // 5b. Exports.
    t = performance.now();
    const exports: ExportRun[] = [];
    const processes = [{ pid, role: "worker" as const }];
    for (const size of o.exportSizes) {
      const tenant = await createTenant(
        drizzle({ client: gen.pool, schema, casing: "snake_case" }),
        `Bench export ${size}`,
      );
      log(`generating ${fmt(size)} contacts for the export`);
      await gen.contacts({ wineryId: tenant.wineryId }, size, "2025-06-15T12:00:00Z");
      await gen.query("analyze contacts");
      const e = await runExport({
        apiUrl: env.worker.apiUrl,
        apiKey: tenant.apiKey,
        dateFrom: "2025-01-01T00:00:00Z",
        dateTo: "2026-01-01T00:00:00Z",
        expected: size,
        label: `${fmt(size)} contacts`,
        processes,
        sampleIntervalMs: 20,
        heapSampleIntervalMs: 50,
      });
      exports.push(e);
      const m = e.memory[0];
      log(
        `export of ${fmt(size)}: ${e.totalMs} ms, ${round(e.bytes / 1e6, 1)} MB, RSS ${round((m?.baselineKiB ?? 0) / 1024, 1)} -> peak ${round((m?.peakKiB ?? 0) / 1024, 1)} MiB${e.ok ? "" : `; ${e.problem}`}`,
      );
    }
    timings.exportSeconds = seconds(t);

    // 6. Steady load: E13 and E17 (the measured winery's contacts) at once; RSS at 10 s and at the end.
    t = performance.now();
    const e13 = ROUTES.find((r) => r.id === "E13");
    const e17 = ROUTES.find((r) => r.id === "E17");
    const rss = () => round((memoryOf(pid)?.rssKiB ?? 0) / 1024, 1);
    const series: { at: number; rssMiB: number }[] = [{ at: 0, rssMiB: rss() }];
    let steady: { e13?: LoadResult; e17?: LoadResult } = {};
    if (e13 && e17 && o.steadySeconds > 0) {
      const start = performance.now();
      const timer = setInterval(() => {
        series.push({ at: round((performance.now() - start) / 1000, 0), rssMiB: rss() });
      }, 10_000);
      const [a, b] = await Promise.all([
        load({
          origin: env.origin,
          connections: 5,
          seconds: o.steadySeconds,
          workerPid: pid,
          request: (s) => e13.request(f, s),
        }),
        load({
          origin: env.origin,
          connections: 5,
          seconds: o.steadySeconds,
          workerPid: pid,
          request: (s) => e17.request(f, s),
        }),
      ]);
      clearInterval(timer);
      series.push({ at: round((performance.now() - start) / 1000, 0), rssMiB: rss() });
      steady = { e13: a, e17: b };
      log(`steady load: RSS ${series.map((s) => `${s.at}s ${s.rssMiB}`).join(", ")} MiB`);
    }
    timings.steadySeconds = seconds(t);
    timings.totalSeconds = seconds(began);

    const record: BenchRecord = {
      at: new Date().toISOString(),
      mode: o.quick ? "quick" : "full",
      git,
      node: process.version,
      cpus: cpus().length,
      loadAverage: { before: loadBefore, after: loadavg() },
      database: env.db.description,
      settings: o,
      health: { rps: healthRps, cpuMsPerRequest: healthCpu, runs: healthRuns.map((h) => h.rps) },
      idleWorkerdCpuMsPerSecond: round(idleRate * 1000, 2),
      routes: rows,
      ...(profiler && { profiles: { dir: profiler.dir, routes: profiles } }),
      notMeasured,
      scaling,
      catalogue: { products: o.catalogueProducts, runs: catalogueRuns },
      exports: exports.map((e) => ({
        label: e.label,
        contacts: e.contacts,
        ok: e.ok,
        problem: e.problem,
        megabytes: round(e.bytes / 1e6, 1),
        firstByteMs: e.ttfbMs,
        totalMs: e.totalMs,
        rssBeforeMiB: round((e.memory[0]?.baselineKiB ?? 0) / 1024, 1),
        rssPeakMiB: round((e.memory[0]?.peakKiB ?? 0) / 1024, 1),
      })),
      steady: {
        seconds: o.steadySeconds,
        series,
        rssAt10sMiB: series.find((s) => s.at >= 10)?.rssMiB,
        rssAtEndMiB: series.at(-1)?.rssMiB,
        e13Rps: steady.e13?.rps,
        e17Rps: steady.e17?.rps,
        errors: (steady.e13?.non2xx ?? 0) + (steady.e17?.non2xx ?? 0),
      },
      timings,
    };
    await writeReport(record, o.resultsDir);
    return exports.every((e) => e.ok);
  } finally {
    await gen.close().catch(() => {});
    log("stopping workerd, the Neon stand-ins and the database");
    await env.stop();
  }
}
