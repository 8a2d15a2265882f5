/** Round-trip counters shared by the HTTP endpoint and the WebSocket relay, read by tests via GET /__stats. */
export interface Stats {
  /** POSTs to the SQL endpoint: one per driver round trip (a transaction batch counts once). */
  httpRequests: number;
  /** WebSocket connections accepted by the relay (one per driver Client/Pool connection). */
  wsSessions: number;
  /**
   * API key lookups (SQL-over-HTTP selects from api_keys), counted apart from httpRequests: the
   * Worker caches a verified key for 5 s per isolate, so whether a request pays the lookup depends
   * on the clock, not on the route. Round-trip budgets are per route, after authentication.
   */
  keyLookups: number;
  /**
   * The Worker's liveness probes (LIVENESS_PROBE_SQL in src/db/client.ts), also apart from
   * httpRequests: one is sent only while a query has waited over LIVENESS_CHECK_AFTER_MS, which
   * depends on the machine's load, not on the route.
   */
  livenessProbes: number;
}

export function createStats(): Stats {
  return { httpRequests: 0, wsSessions: 0, keyLookups: 0, livenessProbes: 0 };
}
