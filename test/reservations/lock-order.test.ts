import { env } from "cloudflare:workers";
import { type SQL, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import type { Experience } from "../../src/schemas/experiences";
import type { Reservation } from "../../src/schemas/reservation-views";
import { api } from "../helpers/api";
import { untilSomeoneWaitsOnALock } from "../helpers/db";
import {
  createExperience,
  EXPERIENCE_BODY,
  saveExperience,
  slotRows,
} from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import {
  createSlot,
  experienceWithSlot,
  importOk,
  putReservation,
  reservationBody,
  slotState,
} from "../helpers/reservations";

/**
 * E11 against E9 and experience saves on one experience. Those lock the experience (FOR UPDATE),
 * then its slots in (date, time, id) order, then (E9 moving occupied slots) the slots'
 * reservations. E11 locked its reservation, then its slots in id order: under concurrent moves
 * and slot updates the two waited on each other and Postgres aborted one, a 500 (an outside
 * audit: 90 requests of ~3,000). E11 now takes the experience first (FOR KEY SHARE), and a
 * transaction Postgres still aborts to break a deadlock is run again.
 */
let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

const lockSlot = (id: string) =>
  sql`select 1 from slots where winery_id = ${tenant.wineryId} and id = ${id} for update`;
const lockExperience = (id: string) =>
  sql`select 1 from experiences where winery_id = ${tenant.wineryId} and id = ${id} for update`;

/**
 * `send`'s request into a deadlock: a transaction takes `hold`, the request waits for it, then the
 * transaction waits for what the request holds (`then`). The request waited first, so its deadlock
 * check (deadlock_timeout, 1 s) runs first and Postgres aborts the request's transaction, which
 * lets this one through: what the request answers is what running it again did.
 */
async function deadlocked(hold: SQL, send: () => Promise<Response>, then: SQL) {
  const { pending } = await createDatabase(env, () => {}).transaction(async (tx) => {
    await tx.execute(hold);
    const pending = send();
    await untilSomeoneWaitsOnALock();
    await tx.execute(then);
    return { pending };
  });
  return pending;
}

describe("lock order of E11, E9 and experience saves", () => {
  it("E11 waits for the experience before it locks its reservation", async () => {
    const target = await experienceWithSlot(tenant); // 15:00
    const earlier = await createSlot(tenant, target.experienceId, target.date, "10:00:00");
    const reservation = await importOk(tenant, "NEW", reservationBody(target));
    const { wineryId } = tenant;
    // What E9 holds before it moves a slot's reservations: the experience and all its slots.
    const { pending } = await createDatabase(env, () => {}).transaction(async (tx) => {
      await tx.execute(sql`select 1 from experiences
        where winery_id = ${wineryId} and id = ${target.experienceId} for update`);
      await tx.execute(sql`select 1 from slots where winery_id = ${wineryId}
        and experience_id = ${target.experienceId} order by date, time, id for update`);
      const pending = putReservation(
        tenant,
        reservation.id,
        reservationBody({ ...target, time: "10:00:00" }),
      );
      await untilSomeoneWaitsOnALock();
      // E9's next step: the reservations of the slots it moves. The import waiting meanwhile
      // holds none of them (NOWAIT fails at once, 55P03, when it does).
      await tx.execute(sql`select 1 from reservations
        where winery_id = ${wineryId} and id = ${reservation.id} for update nowait`);
      return { pending };
    });
    const answer = await pending;
    expect(answer.status).toBe(200);
    const moved = (await answer.json()) as Reservation;
    expect(moved.slotId).toBe(earlier);
    expect((await slotState(earlier)).reservedCount).toBe(2);
    expect((await slotState(target.slotId)).reservedCount).toBe(0);
  });

  it("a deadlock Postgres breaks by aborting E9 is run again: 200, written once", async () => {
    const target = await experienceWithSlot(tenant);
    const later = await createSlot(tenant, target.experienceId, target.date, "18:00:00");
    // E9 locks the experience, then its slots in order, and waits for the later one. (A move:
    // an UPDATE in place of one slot by itself locks that row alone, and waits on nothing else.)
    const answer = await deadlocked(
      lockSlot(later),
      () =>
        api("/v2/availabilities/actions", {
          key: tenant.apiKey,
          body: {
            requests: [
              { action: "UPDATE", slotId: target.slotId, newMaxParties: 7, newTime: "16:00" },
            ],
          },
        }),
      lockExperience(target.experienceId),
    );
    expect(answer.status).toBe(200);
    expect(await slotState(target.slotId)).toMatchObject({ maxParties: 7, time: "16:00:00" });
  });
});

/**
 * The one-request batches (E9 of CREATE requests only; PUT experience without slotsRequests) take
 * the same locks in the same order inside one HTTP batch. A deadlock that aborts the batch wrote
 * nothing, and the interactive path does the work again: without that fallback the answer is the
 * 409 CONFLICT of a transaction that keeps losing.
 */
describe("one-request batches aborted by a deadlock", () => {
  it("E9's CREATE batch runs again as a transaction: 200, the slots made once", async () => {
    const [first, second] = [await createExperience(tenant), await createExperience(tenant)]
      .map((e) => e.id)
      .sort(); // the batch locks the experiences in id order: `first`, then `second`
    if (!first || !second) throw new Error("no experiences");
    // The batch holds `first` and waits for `second`.
    const answer = await deadlocked(
      lockExperience(second),
      () =>
        api("/v2/availabilities/actions", {
          key: tenant.apiKey,
          body: {
            requests: [first, second].map((experienceId) => ({
              action: "CREATE",
              experienceId,
              day: "2027-04-01",
              time: "10:00",
            })),
          },
        }),
      lockExperience(first),
    );
    expect(answer.status).toBe(200);
    for (const experienceId of [first, second])
      expect(await slotRows(tenant.wineryId, experienceId)).toHaveLength(1);
  });

  it("PUT experience's batch runs again as a transaction: 200, its slots updated", async () => {
    const target = await experienceWithSlot(tenant); // 15:00
    const later = await createSlot(tenant, target.experienceId, target.date, "18:00:00");
    // The batch locks the experience, then its slots by date and time, and waits for the later.
    const answer = await deadlocked(
      lockSlot(later),
      () => saveExperience(tenant, target.experienceId, { ...EXPERIENCE_BODY, maxParties: 6 }),
      lockExperience(target.experienceId),
    );
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as Experience).maxParties).toBe(6);
    for (const slot of [target.slotId, later]) expect((await slotState(slot)).maxParties).toBe(6);
  });
});
