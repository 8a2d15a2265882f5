import { describe, expect, it } from "vitest";
import {
  divideCents,
  MAX_SAFE_CENTS,
  roundHalfAwayFromZero,
  scaleCents,
} from "../../src/lib/money";
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

describe("roundHalfAwayFromZero: the one money rounding", () => {
  it("compares the fraction instead of adding a half, which rounds itself", () => {
    expect(roundHalfAwayFromZero(MAX_SAFE_CENTS)).toBe(MAX_SAFE_CENTS); // + 0.5 gave 2^53
    expect(roundHalfAwayFromZero(-MAX_SAFE_CENTS)).toBe(-MAX_SAFE_CENTS);
    expect(roundHalfAwayFromZero(2 ** 52 + 1)).toBe(2 ** 52 + 1); // + 0.5 gave 2^52 + 2
    expect(roundHalfAwayFromZero(0.49999999999999994)).toBe(0); // + 0.5 gave 1
    expect(roundHalfAwayFromZero(2.5)).toBe(3);
    expect(roundHalfAwayFromZero(-2.5)).toBe(-3);
    expect(roundHalfAwayFromZero(-0.4)).toBe(0);
    expect(Object.is(roundHalfAwayFromZero(-0.4), 0)).toBe(true);
  });
});

describe("divideCents: a unit price from a line's gross", () => {
  it("is exact at any safe amount, rounded half away from zero, for either sign", () => {
    expect(divideCents(MAX_SAFE_CENTS, 1)).toBe(MAX_SAFE_CENTS);
    expect(divideCents(-MAX_SAFE_CENTS, 1)).toBe(-MAX_SAFE_CENTS);
    expect(divideCents(4503599627370497, 1)).toBe(4503599627370497);
    // 1286742750677284.43: in doubles the quotient came to ...284.5, rounded to ...285.
    expect(divideCents(MAX_SAFE_CENTS, 7)).toBe(1286742750677284);
    expect(divideCents(5, 2)).toBe(3);
    expect(divideCents(-5, 2)).toBe(-3);
    expect(divideCents(5, -2)).toBe(-3);
    expect(divideCents(0, 3)).toBe(0);
  });
});
