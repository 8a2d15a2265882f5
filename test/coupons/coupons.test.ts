import { beforeAll, describe, expect, it } from "vitest";
import { couponUses } from "../../src/db/schema";
import type { Coupon } from "../../src/schemas/coupons";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
});

const code = () => `C${crypto.randomUUID().slice(0, 8)}`;
const put = (c: string, body: unknown, key = tenant.apiKey) =>
  api(`/v2/coupons/${c}`, { key, method: "PUT", body });
const get = (c: string, key = tenant.apiKey) => api(`/v2/coupons/${c}`, { key });

const percent = { discountType: "percent", discountPercent: 10, type: "RESERVATION" };

describe("PUT/GET /v2/coupons/{code}: happy", () => {
  it("creates a coupon with its rules and reads it back case-insensitively", async () => {
    const c = code();
    const response = await put(c, {
      ...percent,
      startAt: "2026-01-01T00:00:00Z",
      endAt: "2026-12-31T23:59:59.999Z",
      minimumOrderCents: 5000,
      useMax: 100,
      useMaxByEmail: 1,
      couponRules: [{ entityType: "PRODUCT", entityId: "BRUNELLO", rules: { note: "only this" } }],
    });
    expect(response.status).toBe(200);
    const coupon = (await response.json()) as Coupon;
    expect(coupon).toMatchObject({
      code: c,
      active: true,
      discountType: "percent",
      discountPercent: 10,
      discountCents: null,
      useCount: 0,
      useMax: 100,
      winery: { id: tenant.wineryId },
      couponRules: [
        { entityType: "PRODUCT", entityId: "BRUNELLO", rules: { note: "only this" }, coupon: null },
      ],
    });
    expect(await (await get(c.toLowerCase())).json()).toEqual(coupon);
  });

  it("replaces the coupon and its rules, keeping id, createdAt and recorded uses", async () => {
    const c = code();
    const first = (await (
      await put(c, { ...percent, couponRules: [{ entityId: "A" }, { entityId: "B" }] })
    ).json()) as Coupon;
    await testDb()
      .insert(couponUses)
      .values({ wineryId: tenant.wineryId, couponId: first.id, email: "x@example.com" });
    const response = await put(c.toLowerCase(), {
      discountType: "fixed",
      discountCents: 700,
      couponRules: [{ entityId: "C" }],
    });
    const replaced = (await response.json()) as Coupon;
    expect(replaced).toMatchObject({
      id: first.id,
      createdAt: first.createdAt,
      code: c.toLowerCase(),
      discountType: "fixed",
      discountCents: 700,
      discountPercent: null,
      type: null,
      useCount: 1,
    });
    expect(replaced.couponRules.map((r) => r.entityId)).toEqual(["C"]);
  });

  it("20 concurrent replaces leave exactly one writer's rules", async () => {
    const c = code();
    await put(c, percent);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        put(c, {
          ...percent,
          discountPercent: n,
          couponRules: [{ entityId: `r${n}-1` }, { entityId: `r${n}-2` }],
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const final = (await (await get(c)).json()) as Coupon;
    const n = final.discountPercent;
    expect(final.couponRules.map((r) => r.entityId)).toEqual([`r${n}-1`, `r${n}-2`]);
  });

  it("costs one round trip to write and one to read", async () => {
    const c = code();
    const write = await countRoundTrips(() =>
      put(c, { ...percent, couponRules: [{ entityId: "A" }] }),
    );
    expect(write.result.status).toBe(200);
    expect(write.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    const read = await countRoundTrips(() => get(c));
    expect(read.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });
});

describe("PUT/GET /v2/coupons/{code}: errors and tenancy", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["percent without discountPercent", { discountType: "percent" }, "discountPercent"],
    ["fixed without discountCents", { discountType: "fixed" }, "discountCents"],
    ["an unknown discountType", { discountType: "gift" }, "discountType"],
    ["a percent over 100", { discountType: "percent", discountPercent: 101 }, "discountPercent"],
    ["negative cents", { discountType: "fixed", discountCents: -1 }, "discountCents"],
    [
      "an end before the start",
      { ...percent, startAt: "2026-02-01T00:00:00Z", endAt: "2026-01-01T00:00:00Z" },
      "endAt",
    ],
    ["a negative useMax", { ...percent, useMax: -1 }, "useMax"],
  ])("answers 400 for %s", async (_, body, field) => {
    const problem = await expectProblem(await put(code(), body), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain(field);
  });

  it("answers 404 for an unknown code and for another winery's coupon", async () => {
    const c = code();
    await put(c, percent);
    await expectProblem(await get(code()), 404, "NOT_FOUND");
    await expectProblem(await get(c, other.apiKey), 404, "NOT_FOUND");
  });

  it("lets two wineries use the same code independently", async () => {
    const c = code();
    const mine = (await (await put(c, percent)).json()) as Coupon;
    const theirs = (await (
      await put(c, { discountType: "fixed", discountCents: 1 }, other.apiKey)
    ).json()) as Coupon;
    expect(theirs.id).not.toBe(mine.id);
    expect(((await (await get(c)).json()) as Coupon).discountPercent).toBe(10);
  });
});
