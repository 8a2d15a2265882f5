/**
 * The V8 heap of the Worker's isolate, through wrangler's DevTools endpoint: RSS says what the
 * process holds, but V8 grows its heap lazily and keeps garbage until it collects, so
 * Runtime.getHeapUsage (live JS heap, plus ArrayBuffer backing stores) is the closer measure of
 * what a request keeps alive.
 *
 * Not workerd's own inspector: it serves one session at a time, and wrangler keeps one open (a
 * second client and wrangler's keep taking it from each other). wrangler's inspector proxy, in the
 * proxy workerd, is the endpoint meant for DevTools and forwards over wrangler's session. Its port
 * (9229 unless taken) is found among the proxy process's listening sockets, next to the app's port.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { WebSocket } from "ws";

export interface HeapUsage {
  usedSize: number;
  totalSize: number;
  /** ArrayBuffer backing stores (e.g. encoded body chunks). */
  backingStorageSize: number;
}

/** Listening TCP ports of a process, in the order of their file descriptors. */
function listeningPorts(pid: number): number[] {
  const inodeToFd = new Map<string, number>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodeToFd.set(m[1], Number(fd));
    } catch {
      // closed meanwhile
    }
  }
  const found: { fd: number; port: number }[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      const [local, state, inode] = [cols[1], cols[3], cols[9]];
      if (!local || state !== "0A" || !inode) continue; // 0A = LISTEN
      const fd = inodeToFd.get(inode);
      if (fd !== undefined)
        found.push({ fd, port: Number.parseInt(local.split(":")[1] ?? "", 16) });
    }
  }
  return found.sort((a, b) => a.fd - b.fd).map((f) => f.port);
}

/**
 * The DevTools WebSocket URL of wrangler's inspector proxy, found among the listening ports of the
 * proxy workerd `pid` other than the app's `publicPort`; undefined when there is none.
 */
export async function findInspectorUrl(
  pid: number,
  publicPort: number,
): Promise<string | undefined> {
  let ports: number[];
  try {
    ports = listeningPorts(pid).filter((p) => p !== publicPort);
  } catch {
    return undefined;
  }
  for (const port of ports) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/json/list`, {
        signal: AbortSignal.timeout(1000),
      });
      const list = (await res.json()) as { webSocketDebuggerUrl?: string }[];
      const url = Array.isArray(list) ? list[0]?.webSocketDebuggerUrl : undefined;
      if (url) return url;
    } catch {
      // not the inspector
    }
  }
  return undefined;
}

/** A DevTools protocol session: send(method, params) resolves with the method's result. */
export interface CdpSession {
  send<T>(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  close(): void;
}

export async function openCdpSession(url: string): Promise<CdpSession> {
  const ws = new WebSocket(url, { maxPayload: 1 << 30 });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.on("error", () => {});
  let nextId = 1;
  const pending = new Map<number, (msg: { result?: unknown; error?: unknown }) => void>();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: unknown };
    if (msg.id !== undefined) {
      pending.get(msg.id)?.(msg);
      pending.delete(msg.id);
    }
  });
  return {
    send<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 2000) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method} timed out`));
        }, timeoutMs);
        pending.set(id, (msg) => {
          clearTimeout(timer);
          if (msg.error) reject(new Error(`${method}: ${JSON.stringify(msg.error)}`));
          else resolve(msg.result as T);
        });
        ws.send(JSON.stringify({ id, method, params }));
      });
    },
    close() {
      ws.close();
    },
  };
}

export interface HeapProbe {
  usage(): Promise<HeapUsage>;
  close(): void;
}

export async function openHeapProbe(url: string): Promise<HeapProbe> {
  const session = await openCdpSession(url);
  return {
    usage: () => session.send<HeapUsage>("Runtime.getHeapUsage"),
    close: () => session.close(),
  };
}

/** A V8 CPU profile (DevTools' .cpuprofile format). */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

/**
 * Samples the isolate's JavaScript while `during` runs (every `intervalUs` microseconds) and
 * resolves with the profile and `during`'s result.
 */
export async function cpuProfileOf<T>(
  session: CdpSession,
  during: () => Promise<T>,
  intervalUs = 200,
): Promise<{ profile: CpuProfile; result: T }> {
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: intervalUs });
  await session.send("Profiler.start");
  const outcome = await during().then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const { profile } = await session.send<{ profile: CpuProfile }>("Profiler.stop", {}, 60_000);
  if (!outcome.ok) throw outcome.error;
  return { profile, result: outcome.value };
}

/**
 * The functions that took the most samples of their own (self time), as a share of all samples
 * (idle, program and garbage collection included): "12.3% parse (index.js:1234)".
 */
export function topSelfTime(profile: CpuProfile, count = 12): string[] {
  const selfSamples = new Map<number, number>();
  for (const id of profile.samples ?? []) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
  const total = profile.samples?.length ?? 0;
  const byFrame = new Map<string, number>();
  for (const node of profile.nodes) {
    const n = selfSamples.get(node.id);
    if (!n) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url ? `${url.split("/").at(-1)}:${lineNumber + 1}` : "";
    const frame = `${functionName || "(anonymous)"}${file ? ` (${file})` : ""}`;
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + n);
  }
  return [...byFrame.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, n]) => `${((100 * n) / Math.max(total, 1)).toFixed(1)}% ${frame}`);
}
