import { describe, expect, it } from "vitest";
import { MAX_SAFE_CENTS, scaleCents } from "../../src/lib/money";
import { vatOfGross } from "../../src/services/receipts/issue-order-receipt";

describe("vatOfGross: the VAT in a gross amount", () => {
  it("rounds half away from zero, a credit line's negative VAT too", () => {
    expect(vatOfGross(1, 100)).toBe(1); // 0.5
    expect(vatOfGross(-1, 100)).toBe(-1); // -0.5 (Math.round would give -0)
    expect(vatOfGross(-3, 100)).toBe(-2); // -1.5
    expect(vatOfGross(1220, 22)).toBe(220);
    expect(vatOfGross(-500, 22)).toBe(-90); // -90.16
  });

  it("is exact for a whole rate at any safe amount, and takes a fractional order rate", () => {
    // 9007199254740988 × 22 / 122 = 1624249045936899.47...: in doubles it came to ...900.
    expect(vatOfGross(MAX_SAFE_CENTS - 3, 22)).toBe(1624249045936899);
    expect(vatOfGross(1055, 5.5)).toBe(55);
    expect(vatOfGross(1000, 0)).toBe(0);
  });
});

describe("scaleCents: a share of an amount", () => {
  it("rounds half away from zero, exactly, whatever the sizes", () => {
    expect(scaleCents(361, 100, 2000)).toBe(18); // 18.05
    expect(scaleCents(1, 1, 2)).toBe(1);
    expect(scaleCents(-1, 1, 2)).toBe(-1);
    expect(scaleCents(MAX_SAFE_CENTS, MAX_SAFE_CENTS - 1, MAX_SAFE_CENTS)).toBe(MAX_SAFE_CENTS - 1);
  });
});
