import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  CONNECT_TIMEOUT_MS,
  createDatabase,
  LIVENESS_CHECK_AFTER_MS,
  LIVENESS_PROBE_TIMEOUT_MS,
  QUERY_TIMEOUT_MS,
} from "../../src/db/client";
import type { Order } from "../../src/schemas/orders";
import { api } from "../helpers/api";
import { untilSomeoneWaitsOnALock } from "../helpers/db";
import { saveExperience } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import {
  clearFault,
  countQueries,
  expectUnavailable,
  faultState,
  resetFaultsAfterEach,
  setFault,
  verifyKeyBeforeFault,
} from "../helpers/faults";
import { importedOrder } from "../helpers/orders";
import {
  experienceWithSlot,
  importOk,
  putReservation,
  refund,
  reservationBody,
} from "../helpers/reservations";
import { countRoundTrips } from "../helpers/round-trips";
import { tenantSnapshot } from "./snapshot";

/**
 * A database that accepts connections and requests but never answers them (mode "stall"): a query
 * that has waited LIVENESS_CHECK_AFTER_MS gets the database's liveness checked (`select 1`, which
 * the stall holds too), and the request gives up when that goes unanswered for
 * LIVENESS_PROBE_TIMEOUT_MS (a WebSocket session's start-up after CONNECT_TIMEOUT_MS): 503 with
 * Retry-After well before QUERY_TIMEOUT_MS, nothing is half-written, and the same request succeeds
 * once the database answers again, without a restart. A query waiting on a lock while the database
 * answers goes on waiting. The deadlines are asserted as configuration; the elapsed time is only
 * compared with QUERY_TIMEOUT_MS, to tell the liveness check from the last-resort deadline.
 */
resetFaultsAfterEach();

/** A test's own time limit: its stalls' deadlines and a margin for the rest of its work. */
const allowing = (deadlines: number) => deadlines + 30_000;

/** Stalled requests are answered by the liveness check, far sooner than the query deadline. */
const LONG_BEFORE_THE_DEADLINE_MS = QUERY_TIMEOUT_MS / 3;

/** Sends `requests` at once with the database stalled after `afterQueries` queries. */
async function stalled(
  tenant: TestTenant,
  afterQueries: number,
  requests: (() => Promise<Response>)[],
): Promise<Response[]> {
  await verifyKeyBeforeFault(tenant.apiKey);
  await setFault({ mode: "stall", afterQueries });
  const sentAt = Date.now();
  const responses = await Promise.all(requests.map((send) => send()));
  const elapsed = Date.now() - sentAt;
  const state = await faultState();
  await clearFault();
  expect(state, "the stall never met the requests").toMatchObject({ tripped: true });
  expect(elapsed, "answered by the liveness check, not the query deadline").toBeLessThan(
    LONG_BEFORE_THE_DEADLINE_MS,
  );
  return responses;
}

const paid = { paidTotalCents: 5000, paid: true };
/** An experience save that is an interactive transaction: it has slotsRequests. */
const withSlots = {
  active: true,
  maxParties: 10,
  titleTranslations: { en: "Tasting" },
  slotsRequests: [{ day: "2027-03-13", time: "10:00" }],
};

/** Until the endpoint has counted `n` liveness probes since its stats were reset (10 s at most). */
async function untilLivenessProbes(n: number): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    const { livenessProbes } = (await (await fetch(env.TEST_STATS_URL)).json()) as {
      livenessProbes: number;
    };
    if (livenessProbes >= n) return;
    if (waited > 10_000) throw new Error(`${livenessProbes} liveness probes after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a stalled database", () => {
  it(
    "a read, two HTTP writes (a statement, a batch) and a transaction write held at their first query or session start-up: 503 with Retry-After each, nothing written; then each succeeds",
    async () => {
      const tenant = await createTenant();
      // The read: GET /v4/orders/{id}, one SQL-over-HTTP query.
      const order = await importedOrder(tenant);
      const read = () => api(`/v4/orders/${order.id}`, { key: tenant.apiKey });
      // The HTTP write: E14 without Idempotency-Key, one statement.
      const refunded = crypto.randomUUID();
      await importOk(tenant, refunded, reservationBody(await experienceWithSlot(tenant), paid));
      const refund = () =>
        api(`/v2/reservations/${refunded}/refund`, {
          key: tenant.apiKey,
          body: { amountCents: 1000 },
        });
      // A batch write: E11, one HTTP request holding one transaction.
      const imported = crypto.randomUUID();
      const body = reservationBody(await experienceWithSlot(tenant, "2027-03-13"), paid);
      const batch = () => putReservation(tenant, imported, body);
      // The transaction write: an experience saved with slotsRequests, one WebSocket session,
      // held before it has started.
      const saved = crypto.randomUUID();
      const write = () => saveExperience(tenant, saved, withSlots);

      const before = await tenantSnapshot(tenant.wineryId);
      for (const response of await stalled(tenant, 0, [read, refund, batch, write]))
        await expectUnavailable(response);
      expect(await tenantSnapshot(tenant.wineryId)).toEqual(before);

      const recovered = await read();
      expect(recovered.status).toBe(200);
      expect((await recovered.json()) as Order).toEqual(order);
      const refundedNow = await refund();
      expect(refundedNow.status).toBe(200);
      expect(await refundedNow.json()).toMatchObject({ refundedTotalCents: 1000 });
      const importedNow = await batch();
      expect(importedNow.status, await importedNow.clone().text()).toBe(200);
      expect(await importedNow.json()).toMatchObject({ id: imported, paidTotalCents: 5000 });
      const savedNow = await write();
      expect(savedNow.status, await savedNow.clone().text()).toBe(200);
      expect(await savedNow.json()).toMatchObject({ id: saved, maxParties: 10 });
    },
    allowing(QUERY_TIMEOUT_MS),
  );

  it(
    "a transaction write (an experience saved with slotsRequests) held at its COMMIT, every write sent: 503 with Retry-After, nothing half-written; then it succeeds",
    async () => {
      const tenant = await createTenant();
      // The same write once on a fresh experience, healthy, to count its queries.
      await verifyKeyBeforeFault(tenant.apiKey);
      const counted = await countQueries(() =>
        saveExperience(tenant, crypto.randomUUID(), withSlots),
      );
      expect(counted.response.status).toBe(200);
      const total = counted.queries;
      expect(total).toBeGreaterThan(3); // BEGIN, the writes, COMMIT

      const id = crypto.randomUUID();
      const write = () => saveExperience(tenant, id, withSlots);
      const before = await tenantSnapshot(tenant.wineryId);
      // Every query but the last (COMMIT) answered: the writes wait uncommitted when it is held.
      const [held] = await stalled(tenant, total - 1, [write]);
      await expectUnavailable(held as Response);
      expect(await tenantSnapshot(tenant.wineryId)).toEqual(before);
      const recovered = await write();
      expect(recovered.status, await recovered.clone().text()).toBe(200);
      expect(await recovered.json()).toMatchObject({ id, maxParties: 10 });
    },
    allowing(QUERY_TIMEOUT_MS),
  );

  it(
    "notices a stalled database in time right after a request that started a probe has ended (the probe's fetch ended with it)",
    async () => {
      const tenant = await createTenant();
      const order = await importedOrder(tenant);
      await verifyKeyBeforeFault(tenant.apiKey);
      const read = () => api(`/v4/orders/${order.id}`, { key: tenant.apiKey });
      // A's query waits past LIVENESS_CHECK_AFTER_MS, so A sends a probe; A is answered and ends
      // while its probe is still on the way.
      await setFault({ mode: "latency", latencyMs: LIVENESS_CHECK_AFTER_MS + 300 });
      expect((await read()).status).toBe(200);
      // B's query then meets a database that answers nothing, while A's probe is recent.
      await setFault({ mode: "stall", afterQueries: 0 });
      const sentAt = Date.now();
      const b = await read();
      const elapsed = Date.now() - sentAt;
      await clearFault();
      await expectUnavailable(b);
      expect(elapsed, "answered by the liveness check, not the query deadline").toBeLessThan(
        LONG_BEFORE_THE_DEADLINE_MS,
      );
    },
    allowing(QUERY_TIMEOUT_MS),
  );

  it(
    "while the database is known to be silent, a new query has its liveness checked at once, and the first answer ends that",
    async () => {
      const tenant = await createTenant();
      const order = await importedOrder(tenant);
      await verifyKeyBeforeFault(tenant.apiKey);
      const read = () => api(`/v4/orders/${order.id}`, { key: tenant.apiKey });
      // The outage is noticed: a check went unanswered.
      await setFault({ mode: "stall", afterQueries: 0 });
      await expectUnavailable(await read());
      await clearFault();
      // The next query is checked as it is sent, not after LIVENESS_CHECK_AFTER_MS: during an
      // outage it answers 503 within a check's timeout. The database is back: answered.
      const next = await countRoundTrips(read);
      expect(next.result.status).toBe(200);
      expect(next.livenessProbes).toBe(1);
      // That answer ended the outage: a quick query is not checked.
      const after = await countRoundTrips(read);
      expect(after.result.status).toBe(200);
      expect(after.livenessProbes).toBe(0);
    },
    allowing(QUERY_TIMEOUT_MS),
  );

  it("a write waiting on a row lock for several liveness checks is answered once the lock is released, not 503: the database answers the checks", async () => {
    const tenant = await createTenant();
    const id = crypto.randomUUID();
    await importOk(tenant, id, reservationBody(await experienceWithSlot(tenant), paid));
    await verifyKeyBeforeFault(tenant.apiKey);
    // Another transaction holds the in-house payment's row; E14's conditional UPDATE waits for
    // it. Nothing else queries meanwhile, so only the checks' own answers keep the write waiting.
    const { result: answer, livenessProbes } = await countRoundTrips(async () => {
      const { pending } = await createDatabase(env, () => {}).transaction(async (tx) => {
        await tx.execute(
          sql`select 1 from reservation_payments where winery_id = ${tenant.wineryId} for update`,
        );
        const pending = refund(tenant, id, 1000);
        await untilSomeoneWaitsOnALock();
        // Until the endpoint has had three checks (a fixed wait of three intervals was once two
        // checks short on a busy machine: a check's own answer takes a connection's start-up).
        await untilLivenessProbes(3);
        return { pending };
      });
      return pending;
    });
    // The checks were made, and answered: the write was not given up.
    expect(livenessProbes).toBeGreaterThanOrEqual(3);
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(await answer.json()).toMatchObject({ refundedTotalCents: 1000 });
  });

  it("gives up after deadlines that are configuration: 503 within 2 s of silence (a liveness check after 0.3 s left unanswered for 0.7 s; 2 s at most for a session start-up), 30 s at most for a query the database is working on", () => {
    expect(QUERY_TIMEOUT_MS).toBeGreaterThan(0);
    expect(QUERY_TIMEOUT_MS).toBeLessThanOrEqual(30_000);
    expect(CONNECT_TIMEOUT_MS).toBeLessThanOrEqual(2_000);
    expect(LIVENESS_CHECK_AFTER_MS + LIVENESS_PROBE_TIMEOUT_MS).toBeLessThanOrEqual(2_000);
  });
});
