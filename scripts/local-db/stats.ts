/** Round-trip counters shared by the HTTP endpoint and the WebSocket relay, read by tests via GET /__stats. */
export interface Stats {
  /** POSTs to the SQL endpoint: one per driver round trip (a transaction batch counts once). */
  httpRequests: number;
  /** WebSocket connections accepted by the relay (one per driver Client/Pool connection). */
  wsSessions: number;
}

export function createStats(): Stats {
  return { httpRequests: 0, wsSessions: 0 };
}
