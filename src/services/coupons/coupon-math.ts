/**
 * The money math of a coupon, pure: integer cents in, integer cents out, exact for every amount in
 * the safe-integer range (products that could leave it are computed in BigInt). decisions.md:
 * percent discounts give each eligible entity round-half-up of amount × percent (the service's one
 * rounding, roundHalfAwayFromZero, which is half-up for the non-negative amounts here); fixed
 * discounts are capped at the eligible total and spread in proportion by largest remainder, so the
 * parts always sum to the discount exactly.
 */
import { roundHalfAwayFromZero } from "../../lib/money";

export type CouponDiscount =
  | { type: "percent"; percent: number }
  | { type: "fixed"; cents: number };

export interface MathEntity {
  /** The entity's amount before discount, cents, >= 0. */
  amountCents: number;
  /** Units, >= 0. An entity without units takes no discount. */
  quantity: number;
  eligible: boolean;
}

/** numerator / divisor rounded half up, exactly: the integer part in BigInt, the rest rounded. */
export function divideRounded(numerator: bigint, divisor: bigint): number {
  const quotient = numerator / divisor;
  const rest = numerator % divisor;
  return Number(quotient) + roundHalfAwayFromZero(Number(rest) / Number(divisor));
}

/** round-half-up(amount × percent / 100), percent 0..100: never above the amount. */
export function percentOf(amountCents: number, percent: number): number {
  return divideRounded(BigInt(amountCents) * BigInt(percent), 100n);
}

/**
 * `cents` (capped at the sum of `amounts`) spread in proportion to the amounts: each gets the floor
 * of its exact share, and the cents left over go one each to the largest remainders (ties to the
 * earlier entity). The parts sum to the capped discount and none exceeds its amount.
 */
export function spreadByLargestRemainder(amounts: number[], cents: number): number[] {
  const total = amounts.reduce((sum, a) => sum + BigInt(a), 0n);
  if (total === 0n || cents <= 0) return amounts.map(() => 0);
  const discount = BigInt(cents) < total ? BigInt(cents) : total;
  const shares = amounts.map((a) => (discount * BigInt(a)) / total);
  const remainders = amounts.map((a, index) => ({ index, rest: (discount * BigInt(a)) % total }));
  let left = Number(discount - shares.reduce((sum, s) => sum + s, 0n));
  remainders.sort((x, y) => (x.rest === y.rest ? x.index - y.index : x.rest > y.rest ? -1 : 1));
  for (const { index } of remainders) {
    if (left === 0) break;
    shares[index] = (shares[index] as bigint) + 1n;
    left -= 1;
  }
  return shares.map(Number);
}

/** The discount of each entity: zero for the ineligible and those without units or amount. */
export function discountShares(entities: MathEntity[], discount: CouponDiscount): number[] {
  const takes = (e: MathEntity) => e.eligible && e.quantity > 0 && e.amountCents > 0;
  if (discount.type === "percent") {
    return entities.map((e) => (takes(e) ? percentOf(e.amountCents, discount.percent) : 0));
  }
  const bases = entities.map((e) => (takes(e) ? e.amountCents : 0));
  return spreadByLargestRemainder(bases, discount.cents);
}

/** A per-unit amount: amount / quantity rounded half up; without units, `fallback`. */
export function perUnit(amountCents: number, quantity: number, fallback: number): number {
  return quantity > 0 ? divideRounded(BigInt(amountCents), BigInt(quantity)) : fallback;
}

export interface EntityOutcome {
  discountCents: number;
  amountCentsAfterDiscount: number;
  amountCentsPerUnitBeforeDiscount: number;
  amountCentsPerUnitAfterDiscount: number;
}

/**
 * Before and after, total and per unit, for each entity. The per-unit amount before is the one
 * sent (else amount / quantity); after a discount it is the discounted amount / quantity, rounded
 * half up; without a discount it stays the one before.
 */
export function entityOutcomes(
  entities: (MathEntity & { perUnitCents?: number | null })[],
  discount: CouponDiscount,
): EntityOutcome[] {
  const shares = discountShares(entities, discount);
  return entities.map((e, index) => {
    const discountCents = shares[index] ?? 0;
    const after = e.amountCents - discountCents;
    const perUnitBefore = e.perUnitCents ?? perUnit(e.amountCents, e.quantity, 0);
    return {
      discountCents,
      amountCentsAfterDiscount: after,
      amountCentsPerUnitBeforeDiscount: perUnitBefore,
      amountCentsPerUnitAfterDiscount:
        discountCents === 0 ? perUnitBefore : perUnit(after, e.quantity, perUnitBefore),
    };
  });
}
