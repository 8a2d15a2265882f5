import { beforeAll, describe, expect, it } from "vitest";
import { couponUses } from "../../src/db/schema";
import type { Coupon, CouponUtilizationResult } from "../../src/schemas/coupons";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
});

const code = () => `V${crypto.randomUUID().slice(0, 8)}`;
async function coupon(
  body: Record<string, unknown>,
  uses: (string | null)[] = [],
): Promise<Coupon> {
  const c = code();
  const response = await api(`/v2/coupons/${c}`, { key: tenant.apiKey, method: "PUT", body });
  expect(response.status).toBe(200);
  const stored = (await response.json()) as Coupon;
  if (uses.length > 0) {
    await testDb()
      .insert(couponUses)
      .values(uses.map((email) => ({ wineryId: tenant.wineryId, couponId: stored.id, email })));
  }
  return stored;
}
const validate = (body: Record<string, unknown>, key = tenant.apiKey) =>
  api("/v2/coupons/validate", { key, body });
async function result(body: Record<string, unknown>, key = tenant.apiKey) {
  const response = await validate(body, key);
  expect(response.status).toBe(200);
  return (await response.json()) as CouponUtilizationResult;
}

const wines = [
  {
    entityType: "PRODUCT",
    entityId: "BRUNELLO",
    quantity: 2,
    amountCentsPerUnitBeforeDiscount: 4500,
  },
  { entityType: "PRODUCT", entityId: "ROSSO", quantity: 3, amountCentsBeforeDiscount: 3000 },
  { entityType: "EXPERIENCE", entityId: "TOUR", quantity: 1, amountCentsBeforeDiscount: 2501 },
];
const percent = { discountType: "percent", discountPercent: 10, type: "RESERVATION" };
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe("E5 POST /v2/coupons/validate: applying", () => {
  it("applies a percent coupon to every entity, half up, with per-unit amounts", async () => {
    const c = await coupon(percent);
    const r = await result({
      code: c.code.toLowerCase(),
      purchaseType: "reservation",
      saleEntities: wines,
    });
    expect(r).toMatchObject({
      success: true,
      couponCode: c.code.toLowerCase(),
      wineryId: tenant.wineryId,
      totalAmountCentsBeforeDiscount: 14501,
      discountTotalCents: 900 + 300 + 250,
      totalAmountCentsAfterDiscount: 14501 - 1450,
      coupon: { id: c.id, useCount: 0 },
    });
    expect(r.message).toMatch(/^OK/);
    expect(r.saleEntities).toEqual([
      {
        ...wines[0],
        amountCentsBeforeDiscount: 9000,
        discountCents: 900,
        amountCentsAfterDiscount: 8100,
        amountCentsPerUnitAfterDiscount: 4050,
      },
      {
        ...wines[1],
        amountCentsPerUnitBeforeDiscount: 1000,
        discountCents: 300,
        amountCentsAfterDiscount: 2700,
        amountCentsPerUnitAfterDiscount: 900,
      },
      // 250.1 -> 250
      {
        ...wines[2],
        amountCentsPerUnitBeforeDiscount: 2501,
        discountCents: 250,
        amountCentsAfterDiscount: 2251,
        amountCentsPerUnitAfterDiscount: 2251,
      },
    ]);
  });

  it("spreads a fixed discount by largest remainder over the rule-eligible entities only", async () => {
    const c = await coupon({
      discountType: "fixed",
      discountCents: 1000,
      couponRules: [{ entityType: "product" }],
    });
    const r = await result({ code: c.code, saleEntities: wines });
    // 1000 over 9000 and 3000: 750 and 250; the tour is not eligible.
    expect(r.saleEntities.map((e) => e.discountCents)).toEqual([750, 250, 0]);
    expect(r.discountTotalCents).toBe(1000);
    const sum = r.saleEntities.reduce((s, e) => s + e.amountCentsAfterDiscount, 0);
    expect(r.totalAmountCentsAfterDiscount).toBe(sum);
  });

  it("caps a fixed discount at the eligible total", async () => {
    const c = await coupon({
      discountType: "fixed",
      discountCents: 1_000_000,
      couponRules: [{ entityId: "TOUR" }],
    });
    const r = await result({ code: c.code, saleEntities: wines });
    expect(r.saleEntities.map((e) => e.discountCents)).toEqual([0, 0, 2501]);
    expect(r.totalAmountCentsAfterDiscount).toBe(14501 - 2501);
  });

  it("applies a coupon without rules to the total when no entities are sent", async () => {
    const c = await coupon({ discountType: "percent", discountPercent: 15 });
    const r = await result({ code: c.code, totalAmountCentsBeforeDiscount: 1003 });
    expect(r).toMatchObject({
      success: true,
      discountTotalCents: 150,
      totalAmountCentsAfterDiscount: 853,
      saleEntities: [],
    });
  });

  it("takes a couponRule as the interface types it (a stored rule with its coupon) and ignores it", async () => {
    const c = await coupon({ ...percent, couponRules: [{ entityId: "ROSSO" }] });
    const [rule] = c.couponRules;
    const sent = { ...rule, entityId: "BRUNELLO", coupon: { ...c, discountPercent: 90 } };
    const r = await result({ code: c.code, couponRule: sent, saleEntities: wines });
    // The stored rule applies: only ROSSO's 3000, at the stored 10%.
    expect(r).toMatchObject({ success: true, discountTotalCents: 300 });
  });

  it("never consumes a use, and costs one round trip", async () => {
    const c = await coupon({ ...percent, useMax: 1 });
    for (let n = 0; n < 3; n++) {
      const { result: response, trips } = await countRoundTrips(() =>
        validate({ code: c.code, saleEntities: wines }),
      );
      expect(((await response.json()) as CouponUtilizationResult).success).toBe(true);
      expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    }
    const read = (await (
      await api(`/v2/coupons/${c.code}`, { key: tenant.apiKey })
    ).json()) as Coupon;
    expect(read.useCount).toBe(0);
  });
});

describe("E5: every reason, in order", () => {
  const now = Date.now();
  it.each<[string, () => Promise<Record<string, unknown>>]>([
    ["NOT_FOUND", async () => ({ code: code() })],
    [
      "INACTIVE",
      async () => ({
        code: (await coupon({ ...percent, active: false, endAt: iso(now - DAY) })).code,
      }),
    ],
    [
      "NOT_YET_VALID",
      async () => ({
        code: (await coupon({ ...percent, startAt: iso(now + DAY), minimumOrderCents: 10 ** 9 }))
          .code,
      }),
    ],
    [
      "EXPIRED",
      async () => ({
        code: (await coupon({ ...percent, endAt: iso(now - DAY), type: "GIFT" })).code,
        purchaseType: "RESERVATION",
      }),
    ],
    [
      "TYPE_MISMATCH",
      async () => ({
        code: (await coupon({ ...percent, minimumOrderCents: 10 ** 9 })).code,
        purchaseType: "ORDER",
      }),
    ],
    [
      "MIN_ORDER_NOT_MET",
      async () => ({
        code: (await coupon({ ...percent, minimumOrderCents: 14502, useMax: 0 })).code,
      }),
    ],
    [
      "USE_MAX_REACHED",
      async () => ({
        code: (await coupon({ ...percent, useMax: 2, useMaxByEmail: 0 }, [null, "a@example.com"]))
          .code,
        email: "b@example.com",
      }),
    ],
    [
      "USE_MAX_BY_EMAIL_REACHED",
      async () => ({
        code: (
          await coupon(
            { ...percent, useMax: 5, useMaxByEmail: 1, couponRules: [{ entityId: "NONE" }] },
            ["  Guest@Example.com "],
          )
        ).code,
        email: "guest@example.COM",
      }),
    ],
    [
      "NOT_APPLICABLE",
      async () => ({
        code: (await coupon({ ...percent, couponRules: [{ entityType: "GIFT_CARD" }] })).code,
      }),
    ],
  ])("%s", async (reason, body) => {
    const r = await result({ saleEntities: wines, ...(await body()) });
    expect(r.success).toBe(false);
    expect(r.message.startsWith(`${reason}:`)).toBe(true);
    expect(r.discountTotalCents).toBe(0);
    expect(r.totalAmountCentsAfterDiscount).toBe(r.totalAmountCentsBeforeDiscount);
    expect(
      r.saleEntities.every(
        (e) => e.discountCents === 0 && e.amountCentsAfterDiscount === e.amountCentsBeforeDiscount,
      ),
    ).toBe(true);
    if (reason === "NOT_FOUND") expect(r.coupon).toBeNull();
  });

  it("does not count another email's uses against useMaxByEmail", async () => {
    const c = await coupon({ ...percent, useMaxByEmail: 1 }, ["guest@example.com"]);
    expect(
      (await result({ code: c.code, email: "other@example.com", saleEntities: wines })).success,
    ).toBe(true);
  });

  it("is NOT_APPLICABLE when only zero-quantity entities are eligible", async () => {
    const c = await coupon({ ...percent, couponRules: [{ entityId: "ROSSO" }] });
    const r = await result({ code: c.code, saleEntities: [{ ...wines[1], quantity: 0 }] });
    expect(r.message).toMatch(/^NOT_APPLICABLE/);
  });
});

describe("E5: errors and tenancy", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["no code", {}, "code"],
    [
      "an entity without an amount",
      { code: "X", saleEntities: [{ quantity: 1 }] },
      "saleEntities[0].amountCentsBeforeDiscount",
    ],
    [
      "a negative amount",
      { code: "X", saleEntities: [{ amountCentsBeforeDiscount: -1 }] },
      "saleEntities[0].amountCentsBeforeDiscount",
    ],
    [
      "a product out of the safe range",
      { code: "X", saleEntities: [{ quantity: 3, amountCentsPerUnitBeforeDiscount: 2 ** 52 }] },
      "saleEntities[0].amountCentsPerUnitBeforeDiscount",
    ],
    [
      "a sum out of the safe range",
      {
        code: "X",
        saleEntities: [
          { amountCentsBeforeDiscount: 2 ** 52 },
          { amountCentsBeforeDiscount: 2 ** 52 },
        ],
      },
      "saleEntities",
    ],
    [
      "a total below the entities' sum",
      { code: "X", totalAmountCentsBeforeDiscount: 10, saleEntities: wines },
      "totalAmountCentsBeforeDiscount",
    ],
    // The couponRule is ignored, but typed as the interface types it (an outside time audit).
    [
      "a couponRule with an impossible date",
      { code: "X", couponRule: { createdAt: "2026-02-30T00:00:00Z" } },
      "couponRule.createdAt",
    ],
    ["a couponRule whose id is no uuid", { code: "X", couponRule: { id: "x" } }, "couponRule.id"],
    [
      "a couponRule whose coupon has a fractional percent",
      { code: "X", couponRule: { coupon: { discountPercent: 1.5 } } },
      "couponRule.coupon.discountPercent",
    ],
  ])("answers 400 for %s", async (_, body, field) => {
    const problem = await expectProblem(await validate(body), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain(field);
  });

  it("answers 403 when the body names another winery, and never finds another winery's coupon", async () => {
    const c = await coupon(percent);
    await expectProblem(
      await validate({ code: c.code, wineryId: other.wineryId }),
      403,
      "FORBIDDEN",
    );
    const r = await result({ code: c.code, saleEntities: wines }, other.apiKey);
    expect(r.message).toMatch(/^NOT_FOUND/);
    expect(r.wineryId).toBe(other.wineryId);
  });
});
