import { env } from "cloudflare:workers";
import { afterEach, expect } from "vitest";
import type { FaultSettings } from "../../scripts/local-db";
import { SERVICE_UNAVAILABLE_DETAIL } from "../../src/lib/errors";
import { api, expectProblem } from "./api";

/** What the local Neon stand-ins report about the fault in force (scripts/local-db/faults.ts). */
export interface FaultState extends FaultSettings {
  queries: number;
  tripped: boolean;
}

/**
 * Sets a fault on the local database endpoints (both the SQL-over-HTTP endpoint and the WebSocket
 * relay): `refuse` cuts every new connection, `drop` cuts the connection of the query after
 * `afterQueries`, `stall` holds every query after `afterQueries` (and every WebSocket start-up
 * from then on) unanswered on an open connection, `latency` delays every query by `latencyMs`.
 * It stays until the next call.
 */
export async function setFault(
  settings: Partial<FaultSettings> & Pick<FaultSettings, "mode">,
): Promise<void> {
  const response = await fetch(env.TEST_FAULTS_URL, {
    method: "POST",
    body: JSON.stringify(settings),
  });
  if (response.status !== 200) throw new Error(`fault not set: ${await response.text()}`);
}

export const clearFault = () => setFault({ mode: "none" });

export async function faultState(): Promise<FaultState> {
  return (await (await fetch(env.TEST_FAULTS_URL)).json()) as FaultState;
}

/**
 * The database queries `send` makes (an HTTP request or batch counts one, and so does each query
 * of a WebSocket session), counted by a fault that acts on none (latency 0); and its answer.
 */
export async function countQueries(
  send: () => Promise<Response>,
): Promise<{ queries: number; response: Response }> {
  await setFault({ mode: "latency", latencyMs: 0 });
  const response = await send();
  const { queries } = await faultState();
  await clearFault();
  return { queries, response };
}

/**
 * 503 SERVICE_UNAVAILABLE problem+json with a positive Retry-After, whose detail tells a client how
 * to retry a write safely (the same Idempotency-Key).
 */
export async function expectUnavailable(response: Response): Promise<void> {
  const retryAfter = response.headers.get("Retry-After");
  const problem = await expectProblem(response, 503, "SERVICE_UNAVAILABLE");
  expect(Number(retryAfter)).toBeGreaterThan(0);
  expect(problem.detail).toBe(SERVICE_UNAVAILABLE_DETAIL);
  expect(problem.detail).toContain("same Idempotency-Key");
}

/**
 * Verifies `apiKey` in this isolate just before a fault is set (any answer after authentication
 * will do: 404 for an unknown route), so the key's lookup is cached for 5 s and the fault meets the
 * route's own queries, not the key lookup.
 */
export async function verifyKeyBeforeFault(apiKey: string): Promise<void> {
  await expectProblem(await api("/v2/no-such-route", { key: apiKey }), 404, "NOT_FOUND");
}

/** Registers the reset after every test of the file, so a fault never outlives its test. */
export function resetFaultsAfterEach(): void {
  afterEach(clearFault);
}
