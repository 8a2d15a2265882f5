/**
 * `npm run bench -- --dev --mix`: every route of the bench's table at once against the running
 * `npm run dev`, as an integrator's traffic arrives (each client sends the routes in turn, a new
 * request as soon as the last is answered), for a long time, and the resident memory of every
 * process of the stack meanwhile. What the per-route runs cannot show: failures that need the
 * routes together (a snapshot read while imports write, probes overlapping under load) and memory
 * that climbs only under mixed work.
 *
 * A run fails on any 5xx, any request that got no answer, any body cut off (a streamed export that
 * ended early), and any process of the stack whose RSS at the end exceeds its reading at
 * `baselineSeconds` by more than `maxGrowth` (the first minutes warm the stack up: see
 * bench/HISTORY.md, "Memory under npm run dev"). A 4xx is counted, not failed: the demo's data runs
 * out for some requests (E14 refunds the demo reservation until nothing is left to refund: 400
 * NOT_REFUNDABLE). Writes bench/results/<time>-dev-mix.{md,json}.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { gitState, kibToMib, log, round, stampOf } from "./common";
import { fixtures, runningStack, seed } from "./dev-ratios";
import { percentile } from "./load";
import { memoryOf, STACK_LABELS, stackProcesses } from "./proc";
import { ROUTES } from "./routes";
import { memoryGrowth } from "./soak";

export interface DevMixOptions {
  seconds: number;
  connections: number;
  sampleSeconds: number;
  baselineSeconds: number;
  /** Highest allowed end/baseline RSS ratio of a process of the stack, minus 1 (0.2 = 20%). */
  maxGrowth: number;
  only: string[];
  resultsDir: string;
}

interface RouteTally {
  ok: number;
  /** "status code" (or "network", "cut") -> count. */
  other: Record<string, number>;
  latencies: number[];
}

/** The stack's own processes: Postgres's backends and esbuild come and go with the load. */
const TRACKED = new Set<string>(Object.values(STACK_LABELS));

export async function runDevMix(o: DevMixOptions): Promise<boolean> {
  const stack = await runningStack();
  log(`npm run dev at ${stack.origin}; running npm run seed`);
  const f = fixtures(await seed());
  const routes = ROUTES.filter((r) => !r.todo && (o.only.length === 0 || o.only.includes(r.id)));
  const loadBefore = loadavg()[0] ?? 0;
  const processes = stackProcesses(stack.pid, stack.port).filter((p) => TRACKED.has(p.label));
  log(
    `${routes.length} routes in turn from ${o.connections} clients for ${o.seconds} s; RSS of ${processes.length} processes every ${o.sampleSeconds} s (baseline at ${o.baselineSeconds} s)`,
  );

  const tallies = new Map<string, RouteTally>(
    routes.map((r) => [r.id, { ok: 0, other: {}, latencies: [] }]),
  );
  const failureSamples: string[] = [];
  const fail = (tally: RouteTally, routeId: string, kind: string, sample: string) => {
    tally.other[kind] = (tally.other[kind] ?? 0) + 1;
    if (failureSamples.length < 10) failureSamples.push(`${routeId} ${kind}: ${sample}`);
  };
  let seq = 0;
  const start = performance.now();
  const deadline = start + o.seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const n = seq++;
      const route = routes[n % routes.length];
      if (!route) return;
      const tally = tallies.get(route.id) as RouteTally;
      const r = route.request(f, n);
      const sent = performance.now();
      let response: Response;
      try {
        response = await fetch(stack.origin + r.path, {
          method: r.method,
          headers: r.headers,
          body: r.body,
        });
      } catch (error) {
        fail(tally, route.id, "network", String(error));
        continue;
      }
      let body: string;
      try {
        body = await response.text();
      } catch (error) {
        fail(tally, route.id, "cut", `${response.status}, body ended early: ${String(error)}`);
        continue;
      }
      tally.latencies.push(performance.now() - sent);
      if (response.ok) tally.ok++;
      else if (response.status >= 500)
        fail(tally, route.id, String(response.status), body.slice(0, 300));
      else {
        const code = /"code":"([A-Z_]+)"/.exec(body)?.[1];
        const kind = `${response.status}${code ? ` ${code}` : ""}`;
        tally.other[kind] = (tally.other[kind] ?? 0) + 1;
      }
    }
  };

  const sampleTimes: number[] = [];
  const rss = processes.map(() => [] as (number | null)[]);
  let baselineIndex: number | undefined;
  const sample = () => {
    const at = round((performance.now() - start) / 1000, 0);
    sampleTimes.push(at);
    processes.forEach((p, i) => {
      const m = memoryOf(p.pid);
      rss[i]?.push(m ? kibToMib(m.rssKiB) : null);
    });
    if (baselineIndex === undefined && at >= o.baselineSeconds)
      baselineIndex = sampleTimes.length - 1;
    const requests = [...tallies.values()].reduce((a, t) => a + t.ok, 0);
    log(
      `t=${at}s ${requests} answered 2xx; RSS MiB: ${processes.map((p, i) => `${p.label} ${rss[i]?.at(-1) ?? "gone"}`).join(", ")}`,
    );
  };
  sample();
  const timer = setInterval(sample, o.sampleSeconds * 1000);
  await Promise.all(Array.from({ length: o.connections }, client));
  clearInterval(timer);
  sample();

  const failures: string[] = [];
  const memory = processes.map((p, i) => {
    const series = rss[i] ?? [];
    // Always read: --baseline is less than --seconds, and the last reading comes after the load.
    const baseline = baselineIndex === undefined ? null : (series[baselineIndex] ?? null);
    const end = series.at(-1) ?? null;
    const max = Math.max(...series.filter((v): v is number => v !== null));
    const { ratio, failure } = memoryGrowth(p, baseline, end, o.maxGrowth);
    if (failure) failures.push(failure);
    return { ...p, baselineMiB: baseline, endMiB: end, maxMiB: max, ratio, rssMiB: series };
  });
  const perRoute = routes.map((route) => {
    const t = tallies.get(route.id) as RouteTally;
    const sorted = Float64Array.from(t.latencies).sort();
    const at = (p: number) => round(percentile(sorted, p), 0);
    for (const [kind, count] of Object.entries(t.other))
      if (kind === "network" || kind === "cut" || kind.startsWith("5"))
        failures.push(`${route.id}: ${count} x ${kind}`);
    return {
      id: route.id,
      method: route.method,
      path: route.path,
      ok: t.ok,
      other: t.other,
      p50Ms: at(50),
      p99Ms: at(99),
    };
  });

  const record = {
    at: new Date().toISOString(),
    git: gitState(),
    cpus: cpus().length,
    loadAverage: { before: round(loadBefore, 2), after: round(loadavg()[0] ?? 0, 2) },
    options: o,
    sampleTimes,
    memory,
    routes: perRoute,
    failureSamples,
    failures,
  };
  await mkdir(o.resultsDir, { recursive: true });
  const base = join(o.resultsDir, `${stampOf(record.at)}-dev-mix`);
  await writeFile(`${base}.json`, `${JSON.stringify(record, null, 2)}\n`);
  await writeFile(`${base}.md`, markdown(record));
  log(`report: ${base}.md, .json`);
  for (const line of failures) log(`FAIL ${line}`);
  if (failures.length === 0)
    log("pass: no 5xx, no request unanswered or cut off, memory within bounds");
  return failures.length === 0;
}

function markdown(r: {
  at: string;
  git: ReturnType<typeof gitState>;
  cpus: number;
  loadAverage: { before: number; after: number };
  options: DevMixOptions;
  memory: {
    label: string;
    baselineMiB: number | null;
    endMiB: number | null;
    maxMiB: number;
    ratio: number | null;
  }[];
  routes: {
    id: string;
    method: string;
    path: string;
    ok: number;
    other: Record<string, number>;
    p50Ms: number;
    p99Ms: number;
  }[];
  failureSamples: string[];
  failures: string[];
}): string {
  const o = r.options;
  const total = r.routes.reduce(
    (a, x) => a + x.ok + Object.values(x.other).reduce((b, c) => b + c, 0),
    0,
  );
  const lines = [
    `# Mixed load ${r.at} (dev: npm run dev)`,
    "",
    `Every route of the bench's table in turn from ${o.connections} clients for ${o.seconds} s against the running \`npm run dev\`, on the demo winery of \`npm run seed\`; ${total} requests; git ${r.git?.head ?? "?"}${r.git?.uncommittedFiles ? ` with ${r.git.uncommittedFiles} uncommitted files` : ""}; ${r.cpus} CPUs, load average ${r.loadAverage.before} before, ${r.loadAverage.after} after. Fails on a 5xx, a request unanswered or cut off, or a process of the stack whose RSS grew more than ${o.maxGrowth * 100}% from ${o.baselineSeconds} s to the end.`,
    "",
    `**${r.failures.length === 0 ? "pass" : "FAIL"}**${r.failures.length ? `: ${r.failures.join("; ")}` : ""}`,
    "",
    "## Memory (RSS, MiB)",
    "",
    `| process | at ${o.baselineSeconds} s | end | max | end / baseline |`,
    "|---|--:|--:|--:|--:|",
    ...r.memory.map(
      (m) =>
        `| ${m.label} | ${m.baselineMiB ?? "-"} | ${m.endMiB ?? "gone"} | ${m.maxMiB} | ${m.ratio ?? "-"} |`,
    ),
    "",
    "## Answers by route",
    "",
    "| route | operation | 2xx | other answers | p50 ms | p99 ms |",
    "|---|---|--:|---|--:|--:|",
    ...r.routes.map(
      (x) =>
        `| ${x.id} | \`${x.method} ${x.path}\` | ${x.ok} | ${
          Object.entries(x.other)
            .map(([k, v]) => `${k}: ${v}`)
            .join(", ") || "-"
        } | ${x.p50Ms} | ${x.p99Ms} |`,
    ),
    "",
  ];
  if (r.failureSamples.length)
    lines.push("## Failure samples", "", ...r.failureSamples.map((s) => `- ${s}`), "");
  return `${lines.join("\n")}\n`;
}
