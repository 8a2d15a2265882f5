/**
 * Closed-loop load: `concurrency` loops, each sending its next request as soon as the previous one
 * is answered, until a deadline. Node's global fetch (undici) keeps the connections alive, so after
 * the first request each loop reuses its socket. Bodies are always read to the end (a connection
 * goes back to the pool only then).
 */

export interface Target {
  name: string;
  /** Builds request number `seq` (unique per run). */
  request(seq: number): { url: string; init: RequestInit };
}

export interface RoundResult {
  ok: number;
  errors: number;
  /** Status (or "network") -> count, for the non-2xx answers. */
  errorKinds: Record<string, number>;
  /** Latencies of every answered request (2xx or not), in ms. */
  latencies: number[];
  elapsedMs: number;
  /** The first few error answers, for diagnostics. */
  errorSamples: string[];
}

/** Hard cap on requests a single loop sends per round, so a loop is bounded even if the clock is not. */
const MAX_REQUESTS_PER_LOOP = 1_000_000;

let nextSeq = 1;

export async function runRound(
  target: Target,
  concurrency: number,
  durationMs: number,
): Promise<RoundResult> {
  const result: RoundResult = {
    ok: 0,
    errors: 0,
    errorKinds: {},
    latencies: [],
    elapsedMs: 0,
    errorSamples: [],
  };
  const fail = (kind: string, sample: string) => {
    result.errors++;
    result.errorKinds[kind] = (result.errorKinds[kind] ?? 0) + 1;
    if (result.errorSamples.length < 3) result.errorSamples.push(sample);
  };
  const start = performance.now();
  const deadline = start + durationMs;
  const loop = async () => {
    for (let i = 0; i < MAX_REQUESTS_PER_LOOP && performance.now() < deadline; i++) {
      const { url, init } = target.request(nextSeq++);
      const sent = performance.now();
      try {
        const res = await fetch(url, init);
        const body = await res.text();
        result.latencies.push(performance.now() - sent);
        if (res.ok) result.ok++;
        else fail(String(res.status), `${res.status} ${body.slice(0, 300)}`);
      } catch (err) {
        result.latencies.push(performance.now() - sent);
        fail("network", String(err instanceof Error && err.cause ? err.cause : err));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  result.elapsedMs = performance.now() - start;
  return result;
}

export interface Summary {
  requests: number;
  ok: number;
  errors: number;
  errorKinds: Record<string, number>;
  seconds: number;
  /** 2xx answers per second. */
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Requests/s of each round, to show drift between them. */
  roundsRps: number[];
  errorSamples: string[];
}

/** The `p`th percentile (0-100, nearest rank) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN;
}

export function summarize(rounds: RoundResult[]): Summary {
  const latencies = new Float64Array(rounds.reduce((n, r) => n + r.latencies.length, 0));
  let at = 0;
  for (const r of rounds) {
    latencies.set(r.latencies, at);
    at += r.latencies.length;
  }
  latencies.sort();
  const ok = rounds.reduce((n, r) => n + r.ok, 0);
  const errors = rounds.reduce((n, r) => n + r.errors, 0);
  const seconds = rounds.reduce((n, r) => n + r.elapsedMs, 0) / 1000;
  const errorKinds: Record<string, number> = {};
  for (const r of rounds) {
    for (const [k, v] of Object.entries(r.errorKinds)) errorKinds[k] = (errorKinds[k] ?? 0) + v;
  }
  return {
    requests: ok + errors,
    ok,
    errors,
    errorKinds,
    seconds: round(seconds, 2),
    rps: round(ok / seconds, 1),
    p50Ms: round(percentile(latencies, 50), 2),
    p90Ms: round(percentile(latencies, 90), 2),
    p99Ms: round(percentile(latencies, 99), 2),
    maxMs: round(latencies.at(-1) ?? Number.NaN, 2),
    roundsRps: rounds.map((r) => round(r.ok / (r.elapsedMs / 1000), 1)),
    errorSamples: rounds.flatMap((r) => r.errorSamples).slice(0, 3),
  };
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
