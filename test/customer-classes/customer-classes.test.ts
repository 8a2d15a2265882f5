import { beforeAll, describe, expect, it } from "vitest";
import { toJavaTimestamp } from "../../src/lib/java-timestamp";
import type { CustomerClass } from "../../src/schemas/customer-classes";
import { isExpired } from "../../src/services/customer-classes/customer-classes";
import { api, expectProblem } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
});

const wineClub = (overrides: Record<string, unknown> = {}) => ({
  className: "Club Brunello",
  classType: "WINE_CLUB",
  caseDiscountRate: 15,
  discountRate: 10,
  isActive: true,
  isPaid: true,
  price: 240,
  priceType: "YEARLY",
  validityDate: "2027-01-31T23:59:59.999Z",
  ...overrides,
});

const create = (t: TestTenant, body: unknown) => api("/v2/customerclass", { key: t.apiKey, body });
const update = (t: TestTenant, id: string, body: unknown) =>
  api(`/v2/customerclass/${id}`, { key: t.apiKey, method: "PUT", body });
const read = (t: TestTenant, id: string) => api(`/v2/customerclass/${id}`, { key: t.apiKey });

async function created(t: TestTenant, body: Record<string, unknown> = {}) {
  const response = await create(t, wineClub(body));
  expect(response.status).toBe(201);
  const created = (await response.json()) as CustomerClass;
  expect(response.headers.get("Location")).toBe(`/api/v2/customerclass/${created.id}`);
  return created;
}

describe("POST/GET /v2/customerclass", () => {
  it("creates a class numbered per winery and reads it back", async () => {
    const fresh = await createTenant();
    const first = await created(fresh);
    const second = await created(fresh, {
      className: "Trade",
      classType: "TRADE",
      priceType: "UNA_TANTUM",
    });
    expect([first.classId, second.classId]).toEqual([1, 2]);
    expect(first).toMatchObject({
      wineryId: fresh.wineryId,
      className: "Club Brunello",
      price: 240,
      priceType: "YEARLY",
      isExpired: false,
      validityDate: toJavaTimestamp(Date.parse("2027-01-31T23:59:59.999Z")),
    });
    expect(first.createdAt.timezoneOffset).toBe(0);
    expect(await (await read(fresh, first.id)).json()).toEqual(first);
  });

  it("takes null as left out: ignored fields accepted, optional ones defaulted", async () => {
    const response = await create(tenant, {
      id: null,
      wineryId: null,
      classId: null,
      className: "Generated client",
      classType: "TRADE",
      priceType: "MONTHLY",
      caseDiscountRate: null,
      discountRate: null,
      isActive: null,
      isPaid: null,
      price: null,
      validityDate: null,
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      className: "Generated client",
      caseDiscountRate: 0,
      discountRate: 0,
      isActive: true,
      isPaid: false,
      price: 0,
      validityDate: null,
      isExpired: false,
    });
    // Required fields stay required: null is 400 naming each.
    const problem = await expectProblem(
      await create(tenant, { className: null, classType: "TRADE", priceType: null }),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path).sort()).toEqual(["className", "priceType"]);
  });

  it("ignores a body id (the class gets its own) and reads an ISO validityDate to the millisecond", async () => {
    const existing = await created(tenant);
    const chosen = "f535b534-2fff-48b9-b8ac-211ee24f9f14";
    for (const id of [chosen, existing.id]) {
      const response = await create(
        tenant,
        wineClub({ id, className: "Own id", validityDate: "2030-01-01T00:00:00.123456789Z" }),
      );
      expect(response.status).toBe(201);
      const body = (await response.json()) as CustomerClass;
      expect(body.id).not.toBe(id);
      expect(body.validityDate).toMatchObject({ time: Date.UTC(2030, 0, 1, 0, 0, 0, 123) });
      expect(body.validityDate?.nanos).toBe(123_000_000);
    }
    // The class whose id was sent is untouched.
    expect(await (await read(tenant, existing.id)).json()).toEqual(existing);
    // Before the epoch the cut is toward the past too (Java's nanos stay positive).
    const early = await created(tenant, { validityDate: "1969-12-31T23:59:59.9999Z" });
    expect(early.validityDate).toMatchObject({ time: -1, seconds: 59, nanos: 999_000_000 });
  });

  it("numbers 20 concurrent creations 1..20 without a gap or a repeat", async () => {
    const fresh = await createTenant();
    const classes = await Promise.all(Array.from({ length: 20 }, () => created(fresh)));
    expect(classes.map((c) => c.classId).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });
});

describe("E7 PUT /v2/customerclass/{id}: happy", () => {
  it.each([
    ["one millisecond before the epoch", "1969-12-31T23:59:59.999Z"],
    ["a year end", "1999-12-31T23:59:59.999Z"],
    ["a month end in a leap year", "2024-02-29T23:59:59.999Z"],
    ["year 0001 (Julian in Java)", "0001-01-01T00:00:00.000Z"],
    ["the last Julian millisecond", "1582-10-14T23:59:59.999Z"],
    ["the Gregorian cutover", "1582-10-15T00:00:00.000Z"],
    ["year 9999", "9999-12-31T23:59:59.999Z"],
  ])("round-trips %s given as ISO and as the object", async (_, iso) => {
    const { id } = await created(tenant);
    const ms = Date.parse(iso);
    const fromIso = (await (
      await update(tenant, id, wineClub({ validityDate: iso }))
    ).json()) as CustomerClass;
    expect(fromIso.validityDate).toEqual(toJavaTimestamp(ms));
    // The object as read is accepted back; its `time` decides.
    const again = (await (
      await update(tenant, id, wineClub({ validityDate: fromIso.validityDate }))
    ).json()) as CustomerClass;
    expect(again.validityDate).toEqual(fromIso.validityDate);
    expect((await (await read(tenant, id)).json()) as CustomerClass).toMatchObject({
      validityDate: fromIso.validityDate,
    });
  });

  it("reads only `time` from the object", async () => {
    const { id } = await created(tenant);
    const response = await update(
      tenant,
      id,
      wineClub({ validityDate: { time: -1, year: 300, month: 7, nanos: 5, day: 9 } }),
    );
    const body = (await response.json()) as CustomerClass;
    expect(body.validityDate).toEqual({
      date: 31,
      day: 3,
      hours: 23,
      minutes: 59,
      month: 11,
      nanos: 999_000_000,
      seconds: 59,
      time: -1,
      timezoneOffset: 0,
      year: 69,
    });
    expect(body.isExpired).toBe(true);
  });

  it("replaces the fields, keeps classId, computes isExpired, in one round trip", async () => {
    const before = await created(tenant);
    const future = new Date(Date.now() + 60_000).toISOString();
    const { result, trips } = await countRoundTrips(() =>
      update(
        tenant,
        before.id,
        wineClub({
          id: before.id,
          classId: 999,
          className: "Trade",
          priceType: "MONTHLY",
          validityDate: future,
          discountRate: 0,
          caseDiscountRate: 100,
        }),
      ),
    );
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    const after = (await result.json()) as CustomerClass;
    expect(after).toMatchObject({
      id: before.id,
      classId: before.classId,
      className: "Trade",
      priceType: "MONTHLY",
      isExpired: false,
      caseDiscountRate: 100,
    });
    expect(after.updatedAt.time).toBeGreaterThanOrEqual(before.updatedAt.time);
    const past = (await (
      await update(
        tenant,
        before.id,
        wineClub({ validityDate: new Date(Date.now() - 1000).toISOString() }),
      )
    ).json()) as CustomerClass;
    expect(past.isExpired).toBe(true);
    const none = (await (
      await update(tenant, before.id, wineClub({ validityDate: null }))
    ).json()) as CustomerClass;
    expect(none).toMatchObject({ validityDate: null, isExpired: false });
  });

  it("keeps every field left out: a partial PUT never re-activates or wipes", async () => {
    const before = await created(tenant, { isActive: false });
    const renamed = (await (
      await update(tenant, before.id, { className: "Renamed" })
    ).json()) as CustomerClass;
    const { updatedAt: _b, ...kept } = before;
    const { updatedAt: _a, ...now } = renamed;
    expect(now).toEqual({ ...kept, className: "Renamed" });
    expect(renamed).toMatchObject({ isActive: false, isPaid: true, discountRate: 10, price: 240 });
    // An empty body changes nothing but updatedAt; the read agrees.
    const untouched = (await (await update(tenant, before.id, {})).json()) as CustomerClass;
    expect(untouched).toMatchObject({ ...now, updatedAt: expect.any(Object) });
    expect(await (await read(tenant, before.id)).json()).toEqual(untouched);
  });

  it("a field sent replaces (validityDate null clears it, false and 0 are values)", async () => {
    const before = await created(tenant);
    const after = (await (
      await update(tenant, before.id, {
        validityDate: null,
        isPaid: false,
        discountRate: 0,
        priceType: "MONTHLY",
      })
    ).json()) as CustomerClass;
    expect(after).toMatchObject({
      validityDate: null,
      isExpired: false,
      isPaid: false,
      discountRate: 0,
      priceType: "MONTHLY",
      className: before.className,
      caseDiscountRate: before.caseDiscountRate,
      price: before.price,
      isActive: true,
    });
  });

  it("keeps a decimal price as given: the interface types it number, not integer cents", async () => {
    const before = await created(tenant);
    const after = await update(tenant, before.id, { price: 19.99 });
    expect(((await after.json()) as CustomerClass).price).toBe(19.99);
  });

  it("null keeps the stored value of a field the class always has; validityDate null clears", async () => {
    const before = await created(tenant, { isActive: false });
    const response = await update(tenant, before.id, {
      id: null,
      wineryId: null,
      classId: null,
      className: null,
      classType: null,
      caseDiscountRate: null,
      discountRate: null,
      isActive: null,
      isPaid: null,
      price: null,
      priceType: null,
      validityDate: null,
    });
    expect(response.status).toBe(200);
    const after = (await response.json()) as CustomerClass;
    const { updatedAt: _b, ...kept } = before;
    const { updatedAt: _a, ...now } = after;
    expect(now).toEqual({ ...kept, validityDate: null, isExpired: false });
    expect(after.isActive).toBe(false);
    expect(await (await read(tenant, before.id)).json()).toEqual(after);
  });

  it.each([
    "className",
    "classType",
    "caseDiscountRate",
    "discountRate",
    "isActive",
    "isPaid",
    "price",
    "priceType",
  ])("null for %s, which the class always has, keeps the stored value", async (field) => {
    const { id: classId, updatedAt: _, ...before } = await created(tenant);
    const response = await update(tenant, classId, { className: "Changed", [field]: null });
    expect(response.status).toBe(200);
    const expected = field === "className" ? before : { ...before, className: "Changed" };
    expect(await response.json()).toMatchObject(expected);
    expect(await (await read(tenant, classId)).json()).toMatchObject(expected);
  });

  it("isExpired at the boundary: the same instant is not past, one millisecond later is", () => {
    expect(isExpired(1000, 1000)).toBe(false);
    expect(isExpired(1000, 1001)).toBe(true);
    expect(isExpired(1000, 999)).toBe(false);
    expect(isExpired(null, 1001)).toBe(false);
  });
});

describe("E7 PUT /v2/customerclass/{id}: errors", () => {
  let id: string;
  beforeAll(async () => {
    id = (await created(tenant)).id;
  });

  it.each([
    ["discountRate", { discountRate: 100.5 }],
    ["caseDiscountRate", { caseDiscountRate: -1 }],
    ["priceType", { priceType: "WEEKLY" }],
    ["className", { className: "" }],
    ["price", { price: -1 }],
    ["isActive", { isActive: "false" }],
    ["classId", { classId: "1" }],
    ["validityDate", { validityDate: "2026-13-01T00:00:00Z" }],
    ["validityDate", { validityDate: "10000-01-01T00:00:00Z" }],
    ["validityDate", { validityDate: { time: -62135596800001 } }],
    ["validityDate", { validityDate: { time: 253402300800000 } }],
    ["validityDate", { validityDate: { year: 126 } }],
    ["validityDate", { validityDate: { time: 1.5 } }],
  ])("names the invalid field %s", async (path, override) => {
    const problem = await expectProblem(
      await update(tenant, id, wineClub(override)),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path.split(/[.[]/)[0])).toContain(path);
  });

  it("a body id other than the path's is 400; an unknown class 404; a malformed id 400", async () => {
    const problem = await expectProblem(
      await update(tenant, id, wineClub({ id: crypto.randomUUID() })),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.[0]?.path).toBe("id");
    await expectProblem(await update(tenant, crypto.randomUUID(), wineClub()), 404, "NOT_FOUND");
    await expectProblem(await update(tenant, "club", wineClub()), 400, "VALIDATION_ERROR");
    await expectProblem(await read(tenant, crypto.randomUUID()), 404, "NOT_FOUND");
  });
});

describe("customer classes: tenancy", () => {
  it("another winery's class is 404 to read and to update, and stays as it was", async () => {
    const theirs = await created(other, { className: "Theirs" });
    await expectProblem(await read(tenant, theirs.id), 404, "NOT_FOUND");
    await expectProblem(
      await update(tenant, theirs.id, wineClub({ className: "Mine" })),
      404,
      "NOT_FOUND",
    );
    expect(((await (await read(other, theirs.id)).json()) as CustomerClass).className).toBe(
      "Theirs",
    );
  });

  it("a body wineryId other than the key's is 403 on create and update", async () => {
    const mine = await created(tenant);
    await expectProblem(
      await create(tenant, wineClub({ wineryId: other.wineryId })),
      403,
      "FORBIDDEN",
    );
    await expectProblem(
      await update(tenant, mine.id, wineClub({ wineryId: other.wineryId })),
      403,
      "FORBIDDEN",
    );
    const ok = await update(tenant, mine.id, wineClub({ wineryId: tenant.wineryId }));
    expect(ok.status).toBe(200);
  });
});
