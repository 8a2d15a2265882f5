import { describe, expect, it } from "vitest";
import { CONNECT_TIMEOUT_MS, QUERY_TIMEOUT_MS } from "../../src/db/client";
import type { Order } from "../../src/schemas/orders";
import { api } from "../helpers/api";
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
  reservationBody,
} from "../helpers/reservations";
import { tenantSnapshot } from "./snapshot";

/**
 * A database that accepts connections and requests but never answers them (mode "stall"): the
 * request gives up after its deadline (QUERY_TIMEOUT_MS per query or HTTP batch, CONNECT_TIMEOUT_MS
 * for a WebSocket session's start-up) with 503 and Retry-After, nothing is half-written, and the same
 * request succeeds once the database answers again, without a restart. The deadlines are asserted
 * as configuration, never measured. Each stalled request waits its deadline out, so the requests
 * held at their first query are sent at once, and each test is given time for its stalls.
 */
resetFaultsAfterEach();

/** A test's own time limit: its stalls' deadlines and a margin for the rest of its work. */
const allowing = (deadlines: number) => deadlines + 30_000;

/** Sends `requests` at once with the database stalled after `afterQueries` queries. */
async function stalled(
  tenant: TestTenant,
  afterQueries: number,
  requests: (() => Promise<Response>)[],
): Promise<Response[]> {
  await verifyKeyBeforeFault(tenant.apiKey);
  await setFault({ mode: "stall", afterQueries });
  const responses = await Promise.all(requests.map((send) => send()));
  const state = await faultState();
  await clearFault();
  expect(state, "the stall never met the requests").toMatchObject({ tripped: true });
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

  it("gives up after deadlines that are configuration: 30 s per query, 2 s per session start-up", () => {
    expect(QUERY_TIMEOUT_MS).toBeGreaterThan(0);
    expect(QUERY_TIMEOUT_MS).toBeLessThanOrEqual(30_000);
    expect(CONNECT_TIMEOUT_MS).toBeLessThanOrEqual(2_000);
  });
});
