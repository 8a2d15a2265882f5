/**
 * `npm run bench -- --soak`: steady E13 + E17 load on the stack for a fixed time, and the resident
 * memory of every process of the stack (both workerd processes, dev.ts with the local Neon
 * stand-ins and the embedded database, wrangler's Node process) early in the load and at its end.
 *
 * Memory that a request leaves behind shows as RSS that keeps climbing under load that does not
 * change; a process that is merely warm (JIT, V8 heap sized for the load, pools filled) levels off
 * within seconds. So the first reading is taken after `baselineSeconds` of load, not before it, and
 * a workerd process whose RSS at the end exceeds that by more than `maxGrowth` fails the soak.
 * E17 exports a winery of fixed size (E13 writes to another one), so every request does the same
 * work from start to end.
 */
import type { HeapProbe } from "./inspector";
import { round, runRound, summarize, type Target } from "./load";
import { findWorkerd, memoryOf, stackProcesses } from "./proc";
import type { Stack } from "./stack";

export interface SoakOptions {
  seconds: number;
  baselineSeconds: number;
  /** Time between the samples of the time series (the two readings are taken in any case). */
  sampleSeconds: number;
  e13Connections: number;
  e17Connections: number;
  /** Highest allowed end/baseline RSS ratio of a workerd process, minus 1 (0.2 = 20%). */
  maxGrowth: number;
}

export interface ProcessSeries {
  pid: number;
  label: string;
  workerd: boolean;
  /** RSS in MiB at each sample time (null once the process is gone). */
  rssMiB: (number | null)[];
  baselineMiB: number | null;
  endMiB: number | null;
  /** end / baseline. */
  ratio: number | null;
}

export interface SoakResult {
  options: SoakOptions;
  /** Seconds since the load began, for each entry of ProcessSeries.rssMiB. */
  sampleTimes: number[];
  processes: ProcessSeries[];
  /**
   * The Worker isolate's V8 heap at each sample, when an inspector was reachable: used (live and
   * not yet collected) and total (reserved by V8), in MiB. RSS growth that these do not follow is
   * native memory of workerd, not JavaScript objects the app keeps.
   */
  heapMiB?: { used: (number | null)[]; total: (number | null)[] };
  load: {
    e13: ReturnType<typeof summarize>;
    e17: ReturnType<typeof summarize>;
  };
  /** The workerd processes that grew by more than maxGrowth (or vanished: a restart voids the soak). */
  failures: string[];
}

const kibToMib = (kib: number) => round(kib / 1024, 1);

export function soakTargets(
  apiUrl: string,
  e13Key: string,
  e17Key: string,
  range: { dateFrom: string; dateTo: string },
): { e13: Target; e17: Target } {
  const runTag = Date.now().toString(36);
  return {
    e13: {
      name: "E13 POST /api/v2/contacts",
      request: (seq) => ({
        url: `${apiUrl}/v2/contacts`,
        init: {
          method: "POST",
          headers: { APIKey: e13Key, "Content-Type": "application/json" },
          body: JSON.stringify({
            contactType: "MASTER",
            countryIso: "IT",
            email: `soak-${runTag}-${seq}@example.com`,
            firstName: "Soak",
            lastName: `Contact ${seq}`,
            phoneNumber: `+39 333 ${String(seq).padStart(7, "0")}`,
          }),
        },
      }),
    },
    e17: {
      name: "E17 POST /api/v3/contacts/query",
      request: () => ({
        url: `${apiUrl}/v3/contacts/query`,
        init: {
          method: "POST",
          headers: { APIKey: e17Key, "Content-Type": "application/json" },
          body: JSON.stringify(range),
        },
      }),
    },
  };
}

/**
 * A process's RSS at the end over its baseline reading (null when either is missing: the process
 * was gone), and the failure to report when it grew by more than `maxGrowth` or was gone.
 */
export function memoryGrowth(
  p: { label: string; pid: number },
  baselineMiB: number | null,
  endMiB: number | null,
  maxGrowth: number,
): { ratio: number | null; failure?: string } {
  if (!baselineMiB || !endMiB)
    return { ratio: null, failure: `${p.label} (pid ${p.pid}) was gone before the end` };
  const ratio = round(endMiB / baselineMiB, 3);
  if (ratio <= 1 + maxGrowth) return { ratio };
  const grew = round((ratio - 1) * 100, 1);
  return {
    ratio,
    failure: `${p.label} (pid ${p.pid}) grew ${grew}% (${baselineMiB} -> ${endMiB} MiB)`,
  };
}

export async function runSoak(
  stack: Stack,
  targets: { e13: Target; e17: Target },
  o: SoakOptions,
  log: (line: string) => void,
  heapProbe?: HeapProbe,
  /** A workerd outside the stack (the bundled Worker alone), to sample as well. */
  workerPid?: number,
): Promise<SoakResult> {
  const processes = stackProcesses(stack.pid, stack.port);
  if (workerPid !== undefined)
    processes.unshift({ pid: workerPid, label: "workerd (the bundled Worker alone)" });
  const workerdPids = new Set(findWorkerd(stack.pid, stack.port).map((p) => p.pid));
  if (workerPid !== undefined) workerdPids.add(workerPid);
  const series: ProcessSeries[] = processes.map((p) => ({
    ...p,
    workerd: workerdPids.has(p.pid),
    rssMiB: [],
    baselineMiB: null,
    endMiB: null,
    ratio: null,
  }));
  const sampleTimes: number[] = [];
  const heapUsed: (number | null)[] = [];
  const heapTotal: (number | null)[] = [];
  const start = performance.now();
  const sampleHeap = async () => {
    const u = await heapProbe?.usage().catch(() => undefined);
    heapUsed.push(u ? round(u.usedSize / 1024 / 1024, 1) : null);
    heapTotal.push(u ? round(u.totalSize / 1024 / 1024, 1) : null);
  };
  const sample = () => {
    const at = round((performance.now() - start) / 1000, 1);
    sampleTimes.push(at);
    for (const s of series) {
      const m = memoryOf(s.pid);
      s.rssMiB.push(m ? kibToMib(m.rssKiB) : null);
    }
    const line = series
      .filter((s) => s.workerd)
      .map((s) => `${s.label} ${s.rssMiB.at(-1) ?? "gone"}`)
      .join(", ");
    log(`t=${at}s RSS MiB: ${line}`);
    heaps.push(sampleHeap());
    return series.map((s) => s.rssMiB.at(-1) ?? null);
  };
  const heaps: Promise<void>[] = [];

  const durationMs = o.seconds * 1000;
  const load = Promise.all([
    runRound(targets.e13, o.e13Connections, durationMs),
    runRound(targets.e17, o.e17Connections, durationMs),
  ]);
  let baseline: (number | null)[] = [];
  // The series every sampleSeconds; the baseline reading is taken on its own timer (and is part
  // of the series) unless a tick falls on it.
  let ticks = 0;
  const tick = setInterval(() => {
    ticks++;
    if (Math.abs(ticks * o.sampleSeconds - o.baselineSeconds) > 0.01) sample();
  }, o.sampleSeconds * 1000);
  const baselineTimer = setTimeout(() => {
    baseline = sample();
  }, o.baselineSeconds * 1000);
  const [e13, e17] = await load;
  clearInterval(tick);
  clearTimeout(baselineTimer);
  const end = sample();
  await Promise.all(heaps);

  const failures: string[] = [];
  series.forEach((s, i) => {
    s.baselineMiB = baseline[i] ?? null;
    s.endMiB = end[i] ?? null;
    const growth = memoryGrowth(s, s.baselineMiB, s.endMiB, o.maxGrowth);
    s.ratio = growth.ratio;
    if (s.workerd && growth.failure) failures.push(growth.failure);
  });
  const e13Summary = summarize([e13]);
  const e17Summary = summarize([e17]);
  for (const [name, s] of [
    ["E13", e13Summary],
    ["E17", e17Summary],
  ] as const) {
    if (s.errors > 0) failures.push(`${name}: ${s.errors} errors, e.g. ${s.errorSamples[0]}`);
  }
  return {
    options: o,
    sampleTimes,
    processes: series,
    ...(heapProbe && { heapMiB: { used: heapUsed, total: heapTotal } }),
    load: { e13: e13Summary, e17: e17Summary },
    failures,
  };
}
