/** Phase 1 of the full bench: throughput of E13 against GET /api/health, and helpers on the stack. */
import { kibToMib, log } from "./common";
import { findInspectorUrl, type HeapProbe, openHeapProbe } from "./inspector";
import { round, runRound, summarize, type Target } from "./load";
import { findWorkerd, memoryOf, stackCpuSeconds } from "./proc";
import type { Stack } from "./stack";

/** VmRSS of each workerd process now, in MiB. */
export function workerdRss(s: Stack): Record<string, number> {
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
export function assertAlive(s: Stack): void {
  const reason = s.exitReason();
  if (reason) throw new Error(`the stack stopped during the bench: ${reason}`);
}

/** A heap probe on the app's isolate, or undefined (with a progress line) when out of reach. */
export async function openProbe(s: Stack): Promise<HeapProbe | undefined> {
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

export function pids(s: Stack): string {
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

export interface ThroughputSettings {
  concurrency: number;
  seconds: number;
  rounds: number;
  warmupSeconds: number;
}

export type ThroughputResult = Awaited<ReturnType<typeof throughput>>;

/**
 * GET /api/health and E13 in interleaved rounds (ABBA), each alone on the Worker during its round,
 * with the CPU every process of the stack used meanwhile.
 */
export async function throughput(
  s: Stack,
  apiKey: string,
  warnings: string[],
  {
    concurrency: CONCURRENCY,
    seconds: SECONDS,
    rounds: ROUNDS,
    warmupSeconds: WARMUP_SECONDS,
  }: ThroughputSettings,
) {
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
