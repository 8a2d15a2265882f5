import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { reservations } from "../../src/db/schema";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createExperience } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import {
  contact,
  experienceWithSlot,
  importOk,
  putReservation,
  refundOk,
  reservationBody,
  slotState,
} from "../helpers/reservations";

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
});

const stored = (wineryId: string, id: string) =>
  testDb()
    .select()
    .from(reservations)
    .where(and(eq(reservations.wineryId, wineryId), eq(reservations.id, id)));

describe("E11: errors", () => {
  it.each(["abc", "NEW1", "new", "12345"])("path %s is 400 naming reservationID", async (path) => {
    const target = await experienceWithSlot(tenant);
    const problem = await expectProblem(
      await putReservation(tenant, path, reservationBody(target)),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["reservationID"]);
  });

  it.each([
    ["no contact", []],
    ["no MASTER", [contact("SECONDARY")]],
    ["two MASTERs", [contact("MASTER"), contact("MASTER")]],
  ])("%s is 400 naming reservationContacts, writing nothing", async (_, contacts) => {
    const target = await experienceWithSlot(tenant);
    const id = crypto.randomUUID();
    const problem = await expectProblem(
      await putReservation(tenant, id, reservationBody(target, { reservationContacts: contacts })),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toContain("reservationContacts");
    expect(await stored(tenant.wineryId, id)).toEqual([]);
  });

  it.each([
    ["contactId", "abc"],
    ["contactId", 1.5],
    ["refundedTotalCents", "x"],
    ["paidAt", "yesterday"],
    ["refundedAt", 5],
  ])(
    "the derived field %s of another type (%j) is 400 naming it, writing nothing",
    async (field, value) => {
      const target = await experienceWithSlot(tenant);
      const id = crypto.randomUUID();
      const problem = await expectProblem(
        await putReservation(tenant, id, { ...reservationBody(target), [field]: value }),
        400,
        "VALIDATION_ERROR",
      );
      expect(problem.errors?.map((e) => e.path)).toEqual([field]);
      expect(await stored(tenant.wineryId, id)).toEqual([]);
    },
  );

  it("a well-typed contactId, refundedTotalCents, paidAt or refundedAt is ignored: the reservation's own are derived", async () => {
    const target = await experienceWithSlot(tenant);
    const id = crypto.randomUUID();
    const answer = await importOk(tenant, id, {
      ...reservationBody(target),
      contactId: 999_999,
      refundedTotalCents: 700,
      paidAt: "2020-01-01T00:00:00Z",
      refundedAt: "2020-01-02T00:00:00Z",
    });
    expect(answer.contactId).not.toBe(999_999);
    expect(answer.refundedTotalCents).toBe(0);
    expect(answer.refundedAt).toBeNull();
  });

  it("one contact twice (emails equal once folded) is 400 naming the later entry's email, writing nothing", async () => {
    const target = await experienceWithSlot(tenant);
    const id = crypto.randomUUID();
    const email = `d-${crypto.randomUUID().slice(0, 8)}@a.example`;
    const contacts = [
      contact("SECONDARY"),
      contact("MASTER", email),
      contact("SECONDARY", ` ${email.toUpperCase()} `),
    ];
    const problem = await expectProblem(
      await putReservation(tenant, id, reservationBody(target, { reservationContacts: contacts })),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["reservationContacts[2].email"]);
    expect(await stored(tenant.wineryId, id)).toEqual([]);
  });

  it.each([
    ["a date-time with a zone as createdAt", { createdAt: "2026-01-01T10:00:00Z" }, "createdAt"],
    ["February 30th", { date: "2027-02-30" }, "date"],
    [
      "a createdAt that rounds to the millisecond into year 10000",
      { createdAt: "9999-12-31T23:59:59.9996" },
      "createdAt",
    ],
    ["a negative total", { grossTotalCents: -1 }, "grossTotalCents"],
    ["a fractional paidTotalCents", { paidTotalCents: 10.5 }, "paidTotalCents"],
    ["closeSlots and openSlots", { closeSlots: true, openSlots: true }, "openSlots"],
    ["a time with nanos", { time: { hour: 10, minute: 0, nano: 5 } }, "time.nano"],
    ["a time string with a fraction of a second", { time: "15:00:00.5" }, "time"],
  ])("%s is 400 naming the field", async (_, extra, path) => {
    const target = await experienceWithSlot(tenant);
    const problem = await expectProblem(
      await putReservation(tenant, "NEW", reservationBody(target, extra)),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("takes a time string with a fraction of zeros (Jackson's LocalTime) as the whole second", async () => {
    const target = await experienceWithSlot(tenant, "2027-06-09");
    const reservation = await importOk(
      tenant,
      "NEW",
      reservationBody({ ...target, time: "15:00:00.000" }, { guestCountTotal: 1 }),
    );
    expect(reservation).toMatchObject({ time: "15:00:00", slotId: target.slotId });
  });

  it("an overfilling reservation is 409 naming the slot and the reservation, writing nothing", async () => {
    const target = await experienceWithSlot(tenant, "2027-06-05", 4);
    await importOk(tenant, "NEW", reservationBody(target, { guestCountTotal: 3 }));
    const id = crypto.randomUUID();
    const email = `${crypto.randomUUID()}@example.com`;
    const problem = await expectProblem(
      await putReservation(
        tenant,
        id,
        reservationBody(target, {
          guestCountTotal: 2,
          paidTotalCents: 100,
          reservationContacts: [contact("MASTER", email)],
        }),
      ),
      409,
      "CONFLICT",
    );
    expect(problem.detail).toContain(target.slotId);
    expect(problem.detail).toContain(id);
    expect(problem).toMatchObject({ slotId: target.slotId, reservationId: id });
    expect(await stored(tenant.wineryId, id)).toEqual([]);
    expect((await slotState(target.slotId)).reservedCount).toBe(3);
  });

  it.each(["NEW", "null"])(
    "an overfilling reservation created with path %s is 409 naming the slot and no reservation (its id was never stored)",
    async (path) => {
      const target = await experienceWithSlot(tenant, "2027-06-08", 2);
      await importOk(tenant, "NEW", reservationBody(target, { guestCountTotal: 2 }));
      const problem = await expectProblem(
        await putReservation(tenant, path, reservationBody(target, { guestCountTotal: 1 })),
        409,
        "CONFLICT",
      );
      expect(problem).toMatchObject({ slotId: target.slotId, reservationId: null });
      expect(problem.detail).toContain("the new reservation");
      expect((await slotState(target.slotId)).reservedCount).toBe(2);
    },
  );

  it("the document declares those members: E11's 409 is a SlotFullProblem", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(
      JSON.stringify(
        doc.paths["/api/v2/reservations/import/{reservationID}"]?.put?.responses["409"],
      ),
    ).toContain("#/components/schemas/SlotFullProblem");
    const schema = JSON.stringify(doc.components.schemas.SlotFullProblem);
    for (const member of ['"slotId"', '"reservationId"']) expect(schema).toContain(member);
  });

  it("growing a reservation past the slot's room is 409 and keeps the stored one", async () => {
    const target = await experienceWithSlot(tenant, "2027-06-06", 4);
    const id = crypto.randomUUID();
    await importOk(tenant, id, reservationBody(target, { guestCountTotal: 3 }));
    await expectProblem(
      await putReservation(tenant, id, reservationBody(target, { guestCountTotal: 5 })),
      409,
      "CONFLICT",
    );
    const [row] = await stored(tenant.wineryId, id);
    expect(row?.guestCountTotal).toBe(3);
    expect((await slotState(target.slotId)).reservedCount).toBe(3);
  });

  it("guests up to the int32 limit on an occupied slot are 409, not an overflow's unnamed 400", async () => {
    const target = await experienceWithSlot(tenant, "2027-06-07", 6);
    await importOk(tenant, "NEW", reservationBody(target, { guestCountTotal: 1 }));
    await expectProblem(
      await putReservation(
        tenant,
        "NEW",
        reservationBody(target, { guestCountTotal: 2_147_483_647 }),
      ),
      409,
      "CONFLICT",
    );
    expect((await slotState(target.slotId)).reservedCount).toBe(1);
  });

  it("paidTotalCents below what was refunded is 409, writing nothing", async () => {
    const target = await experienceWithSlot(tenant);
    const id = crypto.randomUUID();
    await importOk(tenant, id, reservationBody(target, { paidTotalCents: 5000 }));
    await refundOk(tenant, id, 3000);
    for (const paidTotalCents of [2999, 0]) {
      const problem = await expectProblem(
        await putReservation(tenant, id, reservationBody(target, { paidTotalCents, message: "x" })),
        409,
        "CONFLICT",
      );
      expect(problem.detail).toContain("refunded");
    }
    const [row] = await stored(tenant.wineryId, id);
    expect(row).toMatchObject({ paidTotalCents: 5000, message: null });
    const ok = await importOk(tenant, id, reservationBody(target, { paidTotalCents: 3000 }));
    expect(ok).toMatchObject({ paidTotalCents: 3000, refundedTotalCents: 3000 });
  });
});

describe("E11: tenancy", () => {
  it("another winery's experience is 404", async () => {
    const theirs = await createExperience(other);
    const id = crypto.randomUUID();
    await expectProblem(
      await putReservation(
        tenant,
        id,
        reservationBody({ experienceId: theirs.id, date: "2027-01-01", time: "10:00" }),
      ),
      404,
      "NOT_FOUND",
    );
    expect(await stored(tenant.wineryId, id)).toEqual([]);
  });

  it("a wineryId in the body other than the key's is 403", async () => {
    const target = await experienceWithSlot(tenant);
    await expectProblem(
      await putReservation(tenant, "NEW", reservationBody(target, { wineryId: other.wineryId })),
      403,
      "FORBIDDEN",
    );
  });

  it("another winery importing the same uuid gets its own reservation; the first is untouched", async () => {
    const mine = await experienceWithSlot(tenant);
    const theirs = await experienceWithSlot(other);
    const id = crypto.randomUUID();
    await importOk(tenant, id, reservationBody(mine, { message: "mine" }));
    const response = await putReservation(
      other,
      id,
      reservationBody(theirs, { message: "theirs" }),
      other.apiKey,
    );
    expect(response.status).toBe(200);
    const [row] = await stored(tenant.wineryId, id);
    expect(row?.message).toBe("mine");
    expect(await stored(other.wineryId, id)).toHaveLength(1);
  });
});
