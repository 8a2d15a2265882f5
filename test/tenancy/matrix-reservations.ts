import { expect } from "vitest";
import type { TestTenant } from "../helpers/factories";
import {
  contact,
  experienceWithSlot,
  importOk,
  ledgerSum,
  reservationBody,
} from "../helpers/reservations";
import { type Ids, type MatrixEntry, readOk, record } from "./matrix-entry";

/** A reservation of A, paid 5000 in-house, with a master contact only A knows. */
async function reservationOfA(a: TestTenant) {
  const target = await experienceWithSlot(a);
  const master = contact("MASTER");
  const id = crypto.randomUUID();
  await importOk(
    a,
    id,
    reservationBody(target, { paidTotalCents: 5000, paid: true, reservationContacts: [master] }),
  );
  return {
    ids: { reservationId: id, experienceId: target.experienceId, wineryId: a.wineryId },
    marks: [master.email],
  };
}

/** A's reservation as A reads it through E16, with its refund ledger. */
const reservationAsA = async (ids: Ids, a: TestTenant) => [
  await readOk(a, "/v2/reservations/query", { ids: [ids.reservationId] }),
  await ledgerSum(a.wineryId, ids.reservationId ?? ""),
];

/** A body for B's own experience (made on the fly), with `extra`. */
const bodyOfB = async (b: TestTenant, extra: Record<string, unknown> = {}) =>
  reservationBody(await experienceWithSlot(b, "2027-04-10"), extra);

export const reservations: MatrixEntry[] = [
  {
    // Reservation ids are per winery: B's PUT of A's id makes B's own reservation.
    operation: "PUT /api/v2/reservations/import/{reservationID}",
    case: "A's reservation id makes B's own reservation; A's is unchanged",
    arrangeA: reservationOfA,
    requestAsB: async (ids, b) => ({
      path: `/v2/reservations/import/${ids.reservationId}`,
      method: "PUT",
      body: await bodyOfB(b),
    }),
    expected: 200,
    checkAnswer: (body, _, b) => expect(record(body).wineryId).toBe(b.wineryId),
    readAsA: reservationAsA,
  },
  {
    operation: "PUT /api/v2/reservations/import/{reservationID}",
    case: "A's experienceId is 404 and A's reservation is unchanged",
    arrangeA: reservationOfA,
    requestAsB: (ids) => ({
      path: `/v2/reservations/import/${crypto.randomUUID()}`,
      method: "PUT",
      body: reservationBody({
        experienceId: ids.experienceId ?? "",
        date: "2027-03-06",
        time: "15:00:00",
      }),
    }),
    expected: 404,
    readAsA: reservationAsA,
  },
  {
    operation: "PUT /api/v2/reservations/import/{reservationID}",
    case: "A's wineryId in the body is 403",
    arrangeA: reservationOfA,
    requestAsB: async (ids, b) => ({
      path: "/v2/reservations/import/NEW",
      method: "PUT",
      body: await bodyOfB(b, { wineryId: ids.wineryId }),
    }),
    expected: 403,
  },
  {
    operation: "POST /api/v2/reservations/{reservationID}/refund",
    case: "A's reservation id is 404 and nothing is refunded",
    arrangeA: reservationOfA,
    requestAsB: (ids) => ({
      path: `/v2/reservations/${ids.reservationId}/refund`,
      body: { amountCents: 100 },
    }),
    expected: 404,
    readAsA: reservationAsA,
  },
  {
    operation: "POST /api/v2/reservations/query",
    case: "B's query naming A's reservation finds nothing",
    arrangeA: reservationOfA,
    requestAsB: (ids) => ({
      path: "/v2/reservations/query",
      body: { ids: [ids.reservationId] },
    }),
    expected: 200,
    checkAnswer: (body) => expect(body).toEqual([]),
  },
  {
    operation: "POST /api/v2/reservations/query",
    case: "A's wineryId in the body is 403",
    arrangeA: reservationOfA,
    requestAsB: (ids) => ({ path: "/v2/reservations/query", body: { wineryId: ids.wineryId } }),
    expected: 403,
  },
];
