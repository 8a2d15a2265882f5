import { beforeAll, describe, expect, it } from "vitest";
import type { ExperiencePreview } from "../../src/schemas/experience-preview";
import type { Reservation } from "../../src/schemas/reservation-views";
import { api, expectProblem } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import {
  experienceWithSlot,
  importOk,
  queryReservations,
  reservationBody,
  slotState,
} from "../helpers/reservations";

/** decisions.md: E8 and E9 conflicts name the reservations a change would touch. */
let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

const act = (requests: unknown[]) =>
  api("/v2/availabilities/actions", { key: tenant.apiKey, body: { requests } });

describe("slot conflicts name reservations (E8, E9)", () => {
  it("E9 refuses to delete a slot with reservations, naming them; ignoreOccupiedSlot deletes it and the reservation stays without a slot", async () => {
    const target = await experienceWithSlot(tenant);
    const first = await importOk(tenant, "NEW", reservationBody(target));
    const second = await importOk(tenant, "NEW", reservationBody(target));
    const ids = [first.id, second.id].sort();
    const problem = await expectProblem(
      await act([{ action: "DELETE", slotId: target.slotId }]),
      409,
      "CONFLICT",
    );
    expect(problem.reservationIds).toEqual(ids);
    expect(problem.slots).toEqual([
      expect.objectContaining({ slotId: target.slotId, occupiedCount: 4, reservationIds: ids }),
    ]);
    expect(problem.detail).toContain(first.id);
    expect((await slotState(target.slotId)).reservedCount).toBe(4);

    expect(
      (await act([{ action: "DELETE", slotId: target.slotId, ignoreOccupiedSlot: true }])).status,
    ).toBe(200);
    const response = await queryReservations(tenant, { ids });
    const kept = (await response.json()) as Reservation[];
    expect(kept.map((r) => [r.id, r.slotId])).toEqual(ids.map((id) => [id, null]));
  });

  it("a slot moved with ignoreOccupiedSlot takes its reservations to its new date and time (E9)", async () => {
    const target = await experienceWithSlot(tenant);
    const reservation = await importOk(tenant, "NEW", reservationBody(target));
    const bystander = await experienceWithSlot(tenant, "2027-03-07");
    const other = await importOk(tenant, "NEW", reservationBody(bystander));
    const seen = async (id: string) => {
      const response = await queryReservations(tenant, { ids: [id] });
      const [found] = (await response.json()) as Reservation[];
      return {
        slotId: found?.slotId,
        date: found?.date,
        time: found?.time,
        updatedAt: found?.updatedAt,
      };
    };
    const [movedBefore, otherBefore] = [await seen(reservation.id), await seen(other.id)];
    const moved = await act([
      {
        action: "UPDATE",
        slotId: target.slotId,
        newDay: "2027-03-08",
        newTime: { hour: 17, minute: 30 },
        ignoreOccupiedSlot: true,
      },
    ]);
    expect(moved.status).toBe(200);
    const after = await seen(reservation.id);
    expect(after).toEqual({
      slotId: target.slotId,
      date: "2027-03-08",
      time: expect.stringMatching(/^17:30/),
      // updatedAt moves with it: a client syncing by updatedAt sees the move.
      updatedAt: expect.anything(),
    });
    expect(after.updatedAt).not.toEqual(movedBefore.updatedAt);
    expect((await slotState(target.slotId)).reservedCount).toBe(2);
    // Another slot's reservation stays where it was, untouched.
    expect(await seen(other.id)).toEqual(otherBefore);
  });

  it("E8's preview names the reservations on a slot the change would shrink below its occupants", async () => {
    const target = await experienceWithSlot(tenant);
    const reservation = await importOk(
      tenant,
      "NEW",
      reservationBody(target, { guestCountTotal: 6 }),
    );
    const response = await api("/v2/experiences/preview-propagation", {
      key: tenant.apiKey,
      body: { id: target.experienceId, maxParties: 4 },
    });
    expect(response.status).toBe(200);
    const plan = (await response.json()) as ExperiencePreview;
    expect(plan.conflicts).toEqual([
      expect.objectContaining({
        slotId: target.slotId,
        reason: "BELOW_OCCUPANTS",
        reservationIds: [reservation.id],
      }),
    ]);
  });
});
