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

export interface HeapProbe {
  usage(): Promise<HeapUsage>;
  close(): void;
}

export async function openHeapProbe(url: string): Promise<HeapProbe> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.on("error", () => {});
  let nextId = 1;
  const pending = new Map<number, (result: unknown) => void>();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) {
      pending.get(msg.id)?.(msg.result);
      pending.delete(msg.id);
    }
  });
  return {
    usage() {
      const id = nextId++;
      return new Promise<HeapUsage>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error("Runtime.getHeapUsage timed out"));
        }, 2000);
        pending.set(id, (result) => {
          clearTimeout(timer);
          resolve(result as HeapUsage);
        });
        ws.send(JSON.stringify({ id, method: "Runtime.getHeapUsage" }));
      });
    },
    close() {
      ws.close();
    },
  };
}
