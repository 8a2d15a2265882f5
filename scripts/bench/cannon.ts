/**
 * A fixed-concurrency load on one route with autocannon (closed loop: each connection sends its
 * next request when the previous one is answered), and the Worker's CPU time over the same window,
 * read from /proc/<workerd pid>/stat (utime + stime), since Cloudflare bills CPU time.
 */
import autocannon from "autocannon";
import { cpuSecondsOf } from "./proc";

export interface LoadRequest {
  method: string;
  /** Path and query, e.g. /api/v2/contacts */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * The Worker process's CPU per answered request, in ms, less what workerd uses when idle over
   * the same window (see idleCpuRate): a slow route would otherwise be charged the idle CPU of
   * its long window.
   */
  cpuMsPerRequest: number;
  statusCodes: Record<string, number>;
}

export interface LoadOptions {
  origin: string;
  connections: number;
  seconds: number;
  /** The Worker's process, for its CPU time; without it cpuMsPerRequest is NaN (wrangler dev). */
  workerPid?: number;
  /** CPU seconds per second that the idle workerd process uses (idleCpuRate), 0 if unknown. */
  idleCpuRate?: number;
  /** Request number `seq` (unique within the bench run), for writes that need unique bodies. */
  request(seq: number): LoadRequest;
}

let seq = 1;
/** The next request number of the run (writes use it for unique emails, ids ...). */
export const nextSeq = () => seq++;

export async function load(o: LoadOptions): Promise<LoadResult> {
  const first = o.request(nextSeq());
  const pid = o.workerPid;
  const cpuBefore = pid === undefined ? 0 : cpuSecondsOf(pid);
  const result = await autocannon({
    url: o.origin,
    connections: o.connections,
    duration: o.seconds,
    timeout: 30,
    requests: [
      {
        ...first,
        setupRequest: (req) => {
          const r = o.request(nextSeq());
          return { ...req, method: r.method, path: r.path, headers: r.headers, body: r.body ?? "" };
        },
      },
    ],
  });
  const elapsed = (result.finish.getTime() - result.start.getTime()) / 1000;
  const cpuSeconds =
    pid === undefined
      ? Number.NaN
      : Math.max(0, cpuSecondsOf(pid) - cpuBefore - (o.idleCpuRate ?? 0) * elapsed);
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, Number(s.count)]),
  );
  const ok = result["2xx"];
  const requests = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const seconds = elapsed;
  return {
    requests,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    seconds: round(seconds, 2),
    rps: round(ok / seconds, 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuMsPerRequest: requests > 0 ? round((cpuSeconds * 1000) / requests, 3) : Number.NaN,
    statusCodes,
  };
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** CPU seconds per second the process uses while no request arrives, over `seconds`. */
export async function idleCpuRate(pid: number, seconds: number): Promise<number> {
  const before = cpuSecondsOf(pid);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return (cpuSecondsOf(pid) - before) / seconds;
}
