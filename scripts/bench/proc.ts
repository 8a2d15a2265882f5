/**
 * Linux /proc readers for the bench: the workerd processes under the stack's process tree and their
 * resident memory (VmRSS now, VmHWM = the process's lifetime peak).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export interface WorkerdProcess {
  pid: number;
  /** "proxy" listens on the public port (wrangler's proxy worker); "worker" runs the app. */
  role: "proxy" | "worker";
}

export interface MemoryStatus {
  rssKiB: number;
  hwmKiB: number;
}

/** The fields of /proc/<pid>/stat after "(comm)": [state, ppid, ...], or undefined when gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // gone between readdir and read
  }
}

function parentOf(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : undefined;
}

function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const ppid = parentOf(pid);
    if (ppid === undefined) continue;
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The workerd processes below `root` (the stack's process), the proxy first. */
export function findWorkerd(root: number, publicPort: number): WorkerdProcess[] {
  const found: WorkerdProcess[] = [];
  for (const pid of descendants(root)) {
    if (read(`/proc/${pid}/comm`)?.trim() !== "workerd") continue;
    const args = (read(`/proc/${pid}/cmdline`) ?? "").split("\0");
    const proxy = args.some(
      (a) => a.startsWith("--socket-addr=entry=") && a.endsWith(`:${publicPort}`),
    );
    found.push({ pid, role: proxy ? "proxy" : "worker" });
  }
  return found.sort((a, b) => (a.role === b.role ? a.pid - b.pid : a.role === "proxy" ? -1 : 1));
}

/** VmRSS and VmHWM of a process, or undefined when it is gone. */
export function memoryOf(pid: number): MemoryStatus | undefined {
  const status = read(`/proc/${pid}/status`);
  if (!status) return undefined;
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  const rssKiB = kib("VmRSS");
  const hwmKiB = kib("VmHWM");
  if (!Number.isFinite(rssKiB) || !Number.isFinite(hwmKiB)) return undefined;
  return { rssKiB, hwmKiB };
}

export interface MemoryPeak {
  pid: number;
  role: WorkerdProcess["role"];
  baselineKiB: number;
  peakKiB: number;
  endKiB: number;
  hwmBeforeKiB: number;
  hwmAfterKiB: number;
  /** True when the process vanished while being sampled (wrangler restarted workerd). */
  lost: boolean;
}

export interface MemorySampler {
  stop(): { peaks: MemoryPeak[]; samples: number; maxGapMs: number };
}

/**
 * Samples VmRSS of the given processes every `intervalMs` until stop(); the baseline is read at
 * start. A timer on the main loop: the bench only moves bytes while it runs, so the loop stays free
 * (the largest gap between samples is reported to prove it).
 */
export function sampleMemory(processes: WorkerdProcess[], intervalMs: number): MemorySampler {
  const state = processes.map((p) => {
    const m = memoryOf(p.pid);
    return {
      ...p,
      baselineKiB: m?.rssKiB ?? 0,
      peakKiB: m?.rssKiB ?? 0,
      endKiB: m?.rssKiB ?? 0,
      hwmBeforeKiB: m?.hwmKiB ?? 0,
      hwmAfterKiB: m?.hwmKiB ?? 0,
      lost: m === undefined,
    };
  });
  let samples = 0;
  let maxGapMs = 0;
  let last = performance.now();
  const tick = () => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    samples++;
    for (const s of state) {
      const m = memoryOf(s.pid);
      if (!m) {
        s.lost = true;
        continue;
      }
      s.peakKiB = Math.max(s.peakKiB, m.rssKiB);
      s.endKiB = m.rssKiB;
      s.hwmAfterKiB = m.hwmKiB;
    }
  };
  const timer = setInterval(tick, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { peaks: state, samples, maxGapMs };
    },
  };
}

let clockTicks: number | undefined;
/** Clock ticks per second of /proc/<pid>/stat's utime and stime. */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** The labels labelOf gives the stack's own processes (any other is labelled by its comm). */
export const STACK_LABELS = {
  worker: "workerd (the Worker)",
  proxy: "workerd (wrangler's proxy)",
  devts: "dev.ts (database, Neon endpoints)",
  wrangler: "wrangler (node)",
} as const;

/** What a process of the stack is, for the CPU breakdown. */
function labelOf(pid: number, publicPort: number): string {
  const comm = read(`/proc/${pid}/comm`)?.trim() ?? "";
  const args = (read(`/proc/${pid}/cmdline`) ?? "").split("\0");
  if (comm === "workerd") {
    const proxy = args.some(
      (a) => a.startsWith("--socket-addr=entry=") && a.endsWith(`:${publicPort}`),
    );
    return proxy ? STACK_LABELS.proxy : STACK_LABELS.worker;
  }
  if (args.some((a) => a.endsWith("commands/dev.ts"))) return STACK_LABELS.devts;
  if (args.some((a) => a.includes("wrangler"))) return STACK_LABELS.wrangler;
  return comm || "other";
}

/** Every process of the stack (root and descendants) with what it is, e.g. for RSS by process. */
export function stackProcesses(root: number, publicPort: number): { pid: number; label: string }[] {
  return [root, ...descendants(root)]
    .filter((pid) => statFields(pid) !== undefined)
    .map((pid) => ({ pid, label: labelOf(pid, publicPort) }));
}

/** CPU seconds used so far by every process of the stack (root and descendants), by label. */
export function stackCpuSeconds(
  root: number,
  publicPort: number,
): Map<number, { label: string; seconds: number }> {
  const out = new Map<number, { label: string; seconds: number }>();
  for (const pid of [root, ...descendants(root)]) {
    const fields = statFields(pid);
    if (!fields) continue;
    // utime and stime are fields 14 and 15 of stat, i.e. 11 and 12 after "(comm)".
    const ticks = Number(fields[11]) + Number(fields[12]);
    out.set(pid, { label: labelOf(pid, publicPort), seconds: ticks / ticksPerSecond() });
  }
  return out;
}

/** CPU seconds (user + system) one process has used so far; 0 when it is gone. */
export function cpuSecondsOf(pid: number): number {
  const fields = statFields(pid);
  if (!fields) return 0;
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
}
