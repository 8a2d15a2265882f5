// Fault injection for the local Neon stand-ins, set by tests through POST /__faults on the HTTP
// endpoint and shared with the WebSocket relay (like the round-trip counters in stats.ts).
// With mode "none" (the default, and what dev always runs with) every check below is one
// comparison; nothing is delayed, parsed or counted beyond what the relay already does.

export type FaultMode = "none" | "refuse" | "drop" | "stall" | "latency";

export interface FaultSettings {
  /**
   * - refuse: every new SQL-over-HTTP request and WebSocket connection is cut at once, unanswered
   *   (a database that cannot be reached);
   * - drop: queries pass until `afterQueries` have gone through; the next one reaches the stand-in
   *   and its connection is cut before any answer (a connection lost mid-query);
   * - stall: queries pass until `afterQueries` have gone through; from then on every query, and
   *   every new WebSocket session's start-up, is held with its connection open and never answered
   *   (a database that accepts connections but does not answer). A held request stays held until
   *   its caller gives up and closes it, also after the fault is lifted; nothing held ever reaches
   *   Postgres;
   * - latency: every query waits `latencyMs` before it goes on to Postgres.
   */
  mode: FaultMode;
  /** drop, stall: queries let through before the fault acts (0: the first query meets it). */
  afterQueries: number;
  /** latency: added to every query. */
  latencyMs: number;
}

export interface Faults extends FaultSettings {
  /** Queries seen since the settings were last set (an HTTP request or batch counts as one). */
  queries: number;
  /** Whether the fault has acted on something since it was set (a refusal, a cut, a delay). */
  tripped: boolean;
}

export function createFaults(): Faults {
  return { mode: "none", afterQueries: 0, latencyMs: 0, queries: 0, tripped: false };
}

const MODES: readonly FaultMode[] = ["none", "refuse", "drop", "stall", "latency"];
const MAX_LATENCY_MS = 10_000;

/** Applies a POST /__faults body; answers an error message for a body it cannot apply. */
export function setFaults(faults: Faults, body: unknown): string | undefined {
  const input = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const mode = input.mode ?? "none";
  if (!MODES.includes(mode as FaultMode)) return `mode must be one of ${MODES.join(", ")}`;
  const afterQueries = input.afterQueries ?? 0;
  const latencyMs = input.latencyMs ?? 0;
  if (!Number.isInteger(afterQueries) || (afterQueries as number) < 0)
    return "afterQueries must be a non-negative integer";
  if (
    !Number.isInteger(latencyMs) ||
    (latencyMs as number) < 0 ||
    (latencyMs as number) > MAX_LATENCY_MS
  )
    return `latencyMs must be an integer from 0 to ${MAX_LATENCY_MS}`;
  Object.assign(faults, {
    mode: mode as FaultMode,
    afterQueries: afterQueries as number,
    latencyMs: latencyMs as number,
    queries: 0,
    tripped: false,
  } satisfies Faults);
  return undefined;
}

/**
 * What happens to `count` queries about to be sent on: passed on, delayed, their connection cut,
 * or held unanswered.
 */
export function onQueries(faults: Faults, count: number): "pass" | "delay" | "cut" | "stall" {
  if (faults.mode === "none" || count === 0) return "pass";
  faults.queries += count;
  if (faults.mode === "drop" && faults.queries > faults.afterQueries) {
    faults.tripped = true;
    return "cut";
  }
  if (faults.mode === "stall" && faults.queries > faults.afterQueries) {
    faults.tripped = true;
    return "stall";
  }
  if (faults.mode === "latency" && faults.latencyMs > 0) {
    faults.tripped = true;
    return "delay";
  }
  return "pass";
}

/**
 * What happens to a liveness probe of the Worker: the fault in force acts on it as on a query
 * (a stalled database does not answer it either), but it is not counted, so `afterQueries` and
 * the counts tests read stay the route's own.
 */
export function onProbe(faults: Faults): "pass" | "delay" | "cut" | "stall" {
  const due = faults.queries > faults.afterQueries;
  if (faults.mode === "stall" && due) return "stall";
  if (faults.mode === "drop" && due) return "cut";
  if (faults.mode === "latency" && faults.latencyMs > 0) return "delay";
  return "pass";
}

/** Whether a new connection (HTTP request, WebSocket upgrade) is refused. */
export function refusesConnections(faults: Faults): boolean {
  if (faults.mode !== "refuse") return false;
  faults.tripped = true;
  return true;
}

/** Whether a new WebSocket session is accepted but its start-up held unanswered (stall, once due). */
export function stallsSessions(faults: Faults): boolean {
  if (faults.mode !== "stall" || faults.queries < faults.afterQueries) return false;
  faults.tripped = true;
  return true;
}
