import { env } from "cloudflare:workers";

export interface RoundTrips {
  httpRequests: number;
  wsSessions: number;
}

/**
 * Database round trips (SQL-over-HTTP requests and WebSocket sessions) made while `work` runs,
 * after authentication: API key lookups are counted apart (`keyLookups`), because the Worker caches
 * a verified key for 5 s, so whether a request pays one depends on the clock (a busy machine made
 * budgets flaky), not on the route; and so are the Worker's liveness probes (`livenessProbes`),
 * sent only while a query waits over LIVENESS_CHECK_AFTER_MS (src/db/client.ts).
 */
export async function countRoundTrips<T>(
  work: () => Promise<T>,
): Promise<{ result: T; trips: RoundTrips; keyLookups: number; livenessProbes: number }> {
  await fetch(`${env.TEST_STATS_URL}/reset`, { method: "POST" });
  const result = await work();
  const { keyLookups, livenessProbes, ...trips } = (await (
    await fetch(env.TEST_STATS_URL)
  ).json()) as RoundTrips & {
    keyLookups: number;
    livenessProbes: number;
  };
  return { result, trips, keyLookups, livenessProbes };
}
