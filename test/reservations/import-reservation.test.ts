import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { contacts, reservationContacts, reservations } from "../../src/db/schema";
import { expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createExperience } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import {
  contact,
  createSlot,
  experienceWithSlot,
  importOk,
  putReservation,
  reservationBody,
  slotState,
} from "../helpers/reservations";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const storedRows = (id: string) =>
  testDb()
    .select()
    .from(reservations)
    .where(and(eq(reservations.wineryId, tenant.wineryId), eq(reservations.id, id)));

describe("E11 PUT /v2/reservations/import/{reservationID}: happy", () => {
  it.each([
    ["9999-12-31T23:59:59.9994", "9999-12-31T23:59:59.999"],
    // Rounded once over every digit: rounding to the microsecond first would make these .1235
    // and .9995, then .124 and year 10000.
    ["9999-12-31T23:59:59.9994999", "9999-12-31T23:59:59.999"],
    ["2026-01-01T10:00:00.1234999", "2026-01-01T10:00:00.123"],
    ["2026-01-01T10:00:00.1235", "2026-01-01T10:00:00.124"],
    ["2026-12-31T23:59:59.99951", "2027-01-01T00:00:00.000"],
    ["0050-03-01T10:00:00.00049", "0050-03-01T10:00:00.000"],
  ])("keeps createdAt %s to the millisecond, rounded half up once: %s", async (sent, stored) => {
    const target = await experienceWithSlot(tenant);
    const reservation = await importOk(tenant, "NEW", reservationBody(target, { createdAt: sent }));
    expect(reservation.createdAt).toBe(stored);
  });

  it.each(["NEW", "null"])("%s creates a reservation with a new uuid on its slot", async (path) => {
    const target = await experienceWithSlot(tenant);
    const body = reservationBody(target, {
      guestCountTotal: 3,
      grossTotalCents: 7500,
      message: "Window table, please",
      otherData: JSON.parse('{"__proto__":1,"nested":{"a":[1,2]}}'),
      experiencePriceExtras: [
        {
          id: 7,
          position: 1,
          price_cents: 500,
          price_currency: "EUR",
          quantity: 2,
          title_translations: { en: "Cheese board" },
          created_at: "2026-01-02T10:00:00",
        },
      ],
      experiencePriceLabels: [{ id: 1, price_cents: 2500, quantity: 3, islabel1: true }],
      createdAt: "2026-01-02T10:00:00",
    });
    const reservation = await importOk(tenant, path, body);
    expect(reservation.id).toMatch(UUID);
    expect(reservation).toMatchObject({
      wineryId: tenant.wineryId,
      experienceId: target.experienceId,
      slotId: target.slotId,
      date: target.date,
      time: "15:00:00",
      state: "CONFIRMED",
      guestCountTotal: 3,
      grossTotalCents: 7500,
      message: "Window table, please",
      createdAt: "2026-01-02T10:00:00.000",
      refundedTotalCents: 0,
      paidAt: null,
      refundedAt: null,
      experienceTitle: "Tasting",
      experiencePriceExtras: [
        {
          id: 7,
          position: 1,
          price_cents: 500,
          price_currency: "EUR",
          quantity: 2,
          title_translations: { en: "Cheese board" },
          created_at: "2026-01-02T10:00:00.000",
          updated_at: null,
          experience_id: null,
        },
      ],
      experiencePriceLabels: [{ id: 1, price_cents: 2500, quantity: 3, islabel1: true }],
    });
    expect(Object.keys(reservation.otherData ?? {}).sort()).toEqual(["__proto__", "nested"]);
    const { reservation: nested, ...top } = reservation;
    expect(nested).toEqual(top);
    const master = reservation.reservationContacts[0];
    expect(master).toMatchObject({
      contactType: "MASTER",
      email: body.reservationContacts[0]?.email,
    });
    expect(reservation.reservationMasterContact).toEqual(master);
    expect(reservation.contactId).toBe(master?.contactId);
    expect((await slotState(target.slotId)).reservedCount).toBe(3);
  });

  it("a given unknown uuid creates the reservation with that id; the same id again updates it", async () => {
    const target = await experienceWithSlot(tenant);
    const id = crypto.randomUUID();
    const created = await importOk(tenant, id, reservationBody(target, { guestCountTotal: 4 }));
    expect(created.id).toBe(id);
    const updated = await importOk(
      tenant,
      id.toUpperCase(),
      reservationBody(target, { guestCountTotal: 6, state: "draft", message: "late" }),
    );
    expect(updated).toMatchObject({ id, guestCountTotal: 6, state: "draft", message: "late" });
    expect(updated.createdAt).toBe(created.createdAt);
    expect(await storedRows(id)).toHaveLength(1);
    expect((await slotState(target.slotId)).reservedCount).toBe(6);
  });

  it("takes its own answer sent back (nested reservation and master contact included, never read)", async () => {
    const target = await experienceWithSlot(tenant);
    const first = await importOk(tenant, "NEW", reservationBody(target, { guestCountTotal: 2 }));
    const again = await importOk(tenant, first.id, { ...first, message: "sent back" });
    expect(again).toMatchObject({ id: first.id, guestCountTotal: 2, message: "sent back" });
    // They are objects as the answer has them: another type is a 400 naming the member.
    for (const member of ["reservation", "reservationMasterContact"]) {
      const problem = await expectProblem(
        await putReservation(tenant, first.id, { ...first, [member]: "x" }),
        400,
        "VALIDATION_ERROR",
      );
      expect(problem.errors?.map((e) => e.path)).toEqual([member]);
    }
  });

  it("upserts contacts by email: the same person in another reservation links the same contact", async () => {
    const target = await experienceWithSlot(tenant);
    const email = `Shared.${crypto.randomUUID().slice(0, 8)}@Example.com`;
    const first = await importOk(
      tenant,
      "NEW",
      reservationBody(target, {
        reservationContacts: [contact("MASTER", email), contact("SECONDARY")],
      }),
    );
    const second = await importOk(
      tenant,
      "NEW",
      reservationBody(target, {
        reservationContacts: [
          contact("SECONDARY"),
          { ...contact("MASTER", `  ${email.toLowerCase()} `), firstName: "Giulietta" },
        ],
      }),
    );
    expect(first.reservationContacts.map((c) => c.contactType)).toEqual(["MASTER", "SECONDARY"]);
    expect(second.reservationMasterContact?.contactId).toBe(
      first.reservationMasterContact?.contactId,
    );
    expect(second.reservationMasterContact?.firstName).toBe("Giulietta");
    const rows = await testDb()
      .select()
      .from(contacts)
      .where(
        and(eq(contacts.wineryId, tenant.wineryId), eq(contacts.emailKey, email.toLowerCase())),
      );
    expect(rows).toHaveLength(1);
  });

  it("closeSlots closes the slot and openSlots reopens it", async () => {
    const target = await experienceWithSlot(tenant);
    const id = crypto.randomUUID();
    const closed = await importOk(tenant, id, reservationBody(target, { closeSlots: true }));
    // Input only (the interface's Reservation table): not answered, also when sent.
    expect(closed).not.toHaveProperty("closeSlots");
    expect(closed).not.toHaveProperty("openSlots");
    expect((await slotState(target.slotId)).active).toBe(false);
    await importOk(tenant, id, reservationBody(target, { openSlots: true }));
    expect(await slotState(target.slotId)).toMatchObject({ active: true, reservedCount: 2 });
  });

  it("moving a reservation releases the old slot's seats and takes the new one's", async () => {
    const target = await experienceWithSlot(tenant, "2027-04-10");
    const later = await createSlot(tenant, target.experienceId, "2027-04-11", "10:30:00");
    const id = crypto.randomUUID();
    await importOk(tenant, id, reservationBody(target, { guestCountTotal: 5 }));
    const moved = await importOk(
      tenant,
      id,
      reservationBody({ ...target, date: "2027-04-11", time: "10:30" }, { guestCountTotal: 4 }),
    );
    expect(moved).toMatchObject({ slotId: later, date: "2027-04-11", time: "10:30:00" });
    expect((await slotState(target.slotId)).reservedCount).toBe(0);
    expect((await slotState(later)).reservedCount).toBe(4);
  });

  it("without a slot at that date and time the reservation is stored without one", async () => {
    const target = await experienceWithSlot(tenant);
    const reservation = await importOk(
      tenant,
      "NEW",
      reservationBody({ ...target, time: "18:45" }, { guestCountTotal: 40, closeSlots: true }),
    );
    expect(reservation).toMatchObject({ slotId: null, time: "18:45:00", guestCountTotal: 40 });
    expect(await slotState(target.slotId)).toMatchObject({ reservedCount: 0, active: true });
  });

  it("a positive paidTotalCents records the in-house payment (paidAt)", async () => {
    const target = await experienceWithSlot(tenant);
    const before = Date.now();
    const reservation = await importOk(
      tenant,
      "NEW",
      reservationBody(target, { paidTotalCents: 5000, paid: true }),
    );
    expect(reservation).toMatchObject({ paidTotalCents: 5000, paid: true, refundedTotalCents: 0 });
    expect(Date.parse(reservation.paidAt ?? "")).toBeGreaterThanOrEqual(before - 5000);
  });

  it("paid is as sent; left out, true when paidTotalCents records a payment, else null", async () => {
    const target = await experienceWithSlot(tenant);
    // No seats taken (no guestCountTotal), so that the slot holds them all.
    const body = (fields: Record<string, unknown>) =>
      reservationBody(target, { guestCountTotal: null, ...fields });
    const paidOf = async (fields: Record<string, unknown>) =>
      (await importOk(tenant, "NEW", body(fields))).paid;
    expect(await paidOf({ paidTotalCents: 5000 })).toBe(true);
    expect(await paidOf({ paidTotalCents: 5000, paid: false })).toBe(false);
    expect(await paidOf({ paidTotalCents: 5000, paid: null })).toBe(true);
    expect(await paidOf({ paidTotalCents: 0 })).toBeNull();
    expect(await paidOf({})).toBeNull();
    expect(await paidOf({ paid: true })).toBe(true);
    // An update derives it again from the new amount, as it stores every field anew.
    const id = crypto.randomUUID();
    expect((await importOk(tenant, id, body({ paidTotalCents: 300 }))).paid).toBe(true);
    const cleared = await importOk(tenant, id, body({ paidTotalCents: 0 }));
    expect([cleared.paid, cleared.paidAt]).toEqual([null, null]);
  });

  it("the experience title follows the reservation's language", async () => {
    const target = await experienceWithSlot(tenant);
    const reservation = await importOk(
      tenant,
      "NEW",
      reservationBody(target, { languageIso: "it" }),
    );
    expect(reservation.experienceTitle).toBe("Degustazione");
  });

  it("is one transaction in one round trip: one HTTP request (a batch), no WebSocket session", async () => {
    const target = await experienceWithSlot(tenant);
    const { result, trips } = await countRoundTrips(() =>
      putReservation(
        tenant,
        "NEW",
        reservationBody(target, {
          paidTotalCents: 100,
          reservationContacts: [contact("MASTER"), contact("SECONDARY"), contact("SECONDARY")],
        }),
      ),
    );
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it("answers an experience that is not the winery's in that round trip too: 404, nothing written", async () => {
    const theirs = await createExperience(await createTenant());
    const id = crypto.randomUUID();
    const { result, trips } = await countRoundTrips(() =>
      putReservation(
        tenant,
        id,
        reservationBody({ experienceId: theirs.id, date: "2027-05-03", time: "10:00" }),
      ),
    );
    const problem = await expectProblem(result, 404, "NOT_FOUND");
    expect(problem.detail).toBe(`Experience ${theirs.id} not found.`);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    expect(await testDb().select().from(reservations).where(eq(reservations.id, id))).toEqual([]);
  });

  it("answers a slot without room in that round trip too: 409, nothing written", async () => {
    const target = await experienceWithSlot(tenant, "2027-05-02", 2);
    const { result, trips } = await countRoundTrips(() =>
      putReservation(tenant, "NEW", reservationBody(target, { guestCountTotal: 3 })),
    );
    expect(result.status).toBe(409);
    expect(((await result.json()) as { code: string }).code).toBe("CONFLICT");
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    expect((await slotState(target.slotId)).reservedCount).toBe(0);
  });
});

describe("E11: concurrency", () => {
  it("concurrent imports into one slot never exceed its maxParties", async () => {
    const target = await experienceWithSlot(tenant, "2027-05-01", 10);
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        putReservation(tenant, "NEW", reservationBody(target, { guestCountTotal: 2 })),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(3);
    expect((await slotState(target.slotId)).reservedCount).toBe(10);
    const [count] = await testDb()
      .select({ n: sql<number>`count(*)::int` })
      .from(reservations)
      .where(
        and(eq(reservations.wineryId, tenant.wineryId), eq(reservations.slotId, target.slotId)),
      );
    expect(count?.n).toBe(5);
  });

  it("keeps one contact link set when the same id is imported twice at once", async () => {
    const target = await experienceWithSlot(tenant);
    const id = crypto.randomUUID();
    const responses = await Promise.all(
      [1, 2].map(() => putReservation(tenant, id, reservationBody(target))),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    const links = await testDb()
      .select()
      .from(reservationContacts)
      .where(
        and(
          eq(reservationContacts.wineryId, tenant.wineryId),
          eq(reservationContacts.reservationId, id),
        ),
      );
    expect(links).toHaveLength(1);
    expect((await slotState(target.slotId)).reservedCount).toBe(2);
  });
});
