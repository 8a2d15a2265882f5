import { env } from "cloudflare:workers";

export interface RoundTrips {
  httpRequests: number;
  wsSessions: number;
}

/** Database round trips (SQL-over-HTTP requests and WebSocket sessions) made while `work` runs. */
export async function countRoundTrips<T>(
  work: () => Promise<T>,
): Promise<{ result: T; trips: RoundTrips }> {
  await fetch(`${env.TEST_STATS_URL}/reset`, { method: "POST" });
  const result = await work();
  const trips = (await (await fetch(env.TEST_STATS_URL)).json()) as RoundTrips;
  return { result, trips };
}
