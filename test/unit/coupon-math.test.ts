import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  discountShares,
  entityOutcomes,
  type MathEntity,
  percentOf,
  spreadByLargestRemainder,
} from "../../src/services/coupons/coupon-math";

const MAX = Number.MAX_SAFE_INTEGER;
const entity = (amountCents: number, quantity = 1, eligible = true): MathEntity => ({
  amountCents,
  quantity,
  eligible,
});
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe("percentOf: round half up of amount × percent", () => {
  it.each([
    [1000, 10, 100],
    [5, 10, 1], // 0.5 -> 1
    [4, 10, 0], // 0.4 -> 0
    [15, 10, 2], // 1.5 -> 2
    [1, 50, 1], // 0.5 -> 1
    [999, 100, 999],
    [999, 0, 0],
    [MAX, 100, MAX],
    [MAX, 50, 4503599627370496], // 4503599627370495.5 -> up
    [MAX, 1, 90071992547410], // 90071992547409.91 -> 90071992547410
  ])("%i at %i%% is %i", (amount, percent, expected) => {
    expect(percentOf(amount, percent)).toBe(expected);
  });
});

describe("spreadByLargestRemainder", () => {
  it.each<[number[], number, number[]]>([
    [[100, 100, 100], 100, [34, 33, 33]],
    [[1, 1, 1], 1, [1, 0, 0]],
    [[500, 300, 200], 100, [50, 30, 20]],
    [[500, 300, 200], 5000, [500, 300, 200]], // capped at the eligible total
    [[0, 100], 50, [0, 50]],
    [[0, 0], 50, [0, 0]],
    [[333, 333, 334], 10, [3, 3, 4]],
  ])("%j sharing %i gives %j", (amounts, cents, expected) => {
    expect(spreadByLargestRemainder(amounts, cents)).toEqual(expected);
  });

  it("puts one cent over many entities on exactly one of them", () => {
    const shares = spreadByLargestRemainder(Array(997).fill(1234), 1);
    expect(sum(shares)).toBe(1);
    expect(shares.filter((s) => s === 1)).toHaveLength(1);
  });

  it("stays exact at the edge of the safe range", () => {
    const shares = spreadByLargestRemainder([MAX - 1, 1], MAX - 7);
    expect(sum(shares)).toBe(MAX - 7);
    expect(shares[0]).toBeLessThanOrEqual(MAX - 1);
    expect(shares[1]).toBeLessThanOrEqual(1);
  });
});

describe("discountShares and entityOutcomes", () => {
  it("gives nothing to ineligible entities or those without units", () => {
    const entities = [entity(1000), entity(1000, 0), entity(1000, 2, false), entity(0, 3)];
    expect(discountShares(entities, { type: "percent", percent: 10 })).toEqual([100, 0, 0, 0]);
    expect(discountShares(entities, { type: "fixed", cents: 5000 })).toEqual([1000, 0, 0, 0]);
  });

  it("computes per-unit amounts before and after", () => {
    const [a, b, c] = entityOutcomes(
      [
        { ...entity(3000, 3), perUnitCents: 1000 },
        entity(1000, 3),
        { ...entity(700, 0), perUnitCents: 350 },
      ],
      { type: "fixed", cents: 1000 },
    );
    expect(a).toEqual({
      discountCents: 750,
      amountCentsAfterDiscount: 2250,
      amountCentsPerUnitBeforeDiscount: 1000,
      amountCentsPerUnitAfterDiscount: 750,
    });
    // 1000 / 3 = 333.33 -> 333; 750 / 3 = 250 after its 250 share.
    expect(b).toMatchObject({ amountCentsPerUnitBeforeDiscount: 333, discountCents: 250 });
    expect(b?.amountCentsPerUnitAfterDiscount).toBe(250);
    expect(c).toEqual({
      discountCents: 0,
      amountCentsAfterDiscount: 700,
      amountCentsPerUnitBeforeDiscount: 350,
      amountCentsPerUnitAfterDiscount: 350,
    });
  });
});

const entities = fc.array(
  fc.record({
    amountCents: fc.oneof(fc.integer({ min: 0, max: 10_000_000 }), fc.maxSafeNat()),
    quantity: fc.integer({ min: 0, max: 1000 }),
    eligible: fc.boolean(),
  }),
  { maxLength: 40 },
);
const discounts = fc.oneof(
  fc.record({ type: fc.constant("percent" as const), percent: fc.integer({ min: 0, max: 100 }) }),
  fc.record({ type: fc.constant("fixed" as const), cents: fc.maxSafeNat() }),
  fc.record({ type: fc.constant("fixed" as const), cents: fc.integer({ min: 0, max: 100_000 }) }),
);

describe("properties (fast-check)", () => {
  it("discounts are never negative, never above the entity's amount, integers", () => {
    fc.assert(
      fc.property(entities, discounts, (es, d) => {
        discountShares(es, d).forEach((share, i) => {
          expect(Number.isSafeInteger(share)).toBe(true);
          expect(share).toBeGreaterThanOrEqual(0);
          expect(share).toBeLessThanOrEqual(es[i]?.amountCents ?? 0);
          if (!es[i]?.eligible || es[i]?.quantity === 0) expect(share).toBe(0);
        });
      }),
      { numRuns: 500 },
    );
  });

  it("fixed shares sum exactly to the discount capped at the eligible total", () => {
    fc.assert(
      fc.property(entities, fc.maxSafeNat(), (es, cents) => {
        const shares = discountShares(es, { type: "fixed", cents });
        const eligible = es
          .filter((e) => e.eligible && e.quantity > 0)
          .reduce((s, e) => s + BigInt(e.amountCents), 0n);
        const expected = BigInt(cents) < eligible ? BigInt(cents) : eligible;
        expect(shares.reduce((s, x) => s + BigInt(x), 0n)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("percent shares are each entity's round-half-up, and after = before - discount", () => {
    fc.assert(
      fc.property(entities, fc.integer({ min: 0, max: 100 }), (es, percent) => {
        const outcomes = entityOutcomes(es, { type: "percent", percent });
        outcomes.forEach((o, i) => {
          const e = es[i] as MathEntity;
          const exact = BigInt(e.amountCents) * BigInt(percent);
          const expected = e.eligible && e.quantity > 0 ? Number((exact * 2n + 100n) / 200n) : 0;
          expect(o.discountCents).toBe(expected);
          expect(o.amountCentsAfterDiscount).toBe(e.amountCents - o.discountCents);
          expect(o.amountCentsPerUnitAfterDiscount).toBeLessThanOrEqual(
            o.amountCentsPerUnitBeforeDiscount,
          );
        });
      }),
      { numRuns: 500 },
    );
  });
});
