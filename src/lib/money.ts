/**
 * Money is integer cents. Every amount, and every sum or product derived from amounts, must stay
 * within ±(2^53-1) so that JavaScript numbers and Postgres int8 hold it exactly (decisions.md,
 * "Hostile input"). One rounding rule for the whole service: half away from zero.
 */

export const MAX_SAFE_CENTS = Number.MAX_SAFE_INTEGER;

/** Rounds half away from zero: 0.5 -> 1, -0.5 -> -1, 2.4999 -> 2. The one money rounding. */
export function roundHalfAwayFromZero(value: number): number {
  // The fraction is compared, never added to: x + 0.5 itself rounds (2^53 - 1 + 0.5 is 2^53, and
  // 0.49999999999999994 + 0.5 is 1).
  const magnitude = Math.abs(value);
  const whole = Math.floor(magnitude);
  const rounded = magnitude - whole >= 0.5 ? whole + 1 : whole;
  return value < 0 ? -rounded || 0 : rounded;
}

export const isSafeCents = (value: number): boolean =>
  Number.isSafeInteger(value) && Math.abs(value) <= MAX_SAFE_CENTS;

/** The sum of cent amounts, or undefined when it (or any part) leaves the safe range. */
export function sumCents(values: Iterable<number>): number | undefined {
  let total = 0;
  for (const value of values) {
    total += value;
    if (!isSafeCents(value) || !isSafeCents(total)) return undefined;
  }
  return total;
}

/** Why an item is refused whose unit price times quantity leaves the safe range. */
export const PRODUCT_OUT_OF_RANGE =
  "times the quantity is out of range: a unit price times its quantity must stay within ±(2^53-1) cents";

/**
 * `cents` × `numerator` / `denominator` (denominator > 0), exact whatever the sizes (BigInt), rounded
 * half away from zero: a share of an amount, e.g. the VAT of the part of a gross that was paid.
 */
export function scaleCents(cents: number, numerator: number, denominator: number): number {
  const product = BigInt(cents) * BigInt(numerator);
  const divisor = BigInt(denominator);
  const quotient = product / divisor; // toward zero
  const remainder = product % divisor;
  const twice = (remainder < 0n ? -remainder : remainder) * 2n;
  const away = twice >= divisor ? (product < 0n ? -1n : 1n) : 0n;
  return Number(quotient + away);
}

/** `cents` / `divisor` (not 0), exact whatever the sizes (BigInt), rounded half away from zero. */
export function divideCents(cents: number, divisor: number): number {
  return divisor < 0 ? scaleCents(-cents, 1, -divisor) : scaleCents(cents, 1, divisor);
}

/** unit × quantity, or undefined when the product leaves the safe range. */
export function multiplyCents(unitCents: number, quantity: number): number | undefined {
  const product = unitCents * quantity;
  return isSafeCents(product) ? product : undefined;
}

/**
 * Exact conversion of decimal amounts in major units ("19.99", 19.99) to integer cents. Never
 * multiplies floats: `19.99 * 100` is 1998.9999999999998. The decimal text is split into digits
 * and rounded half away from zero past the second decimal ("1.005" -> 101, "-1.005" -> -101).
 */
export type CentsResult = { ok: true; cents: number } | { ok: false; message: string };

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
/** 13 integer digits keep every result below 10^15 cents, inside the safe-integer range. */
const MAX_INTEGER_DIGITS = 13;
/** Numbers below this print in exponent form ("1e-7") and all round to 0 cents. */
const SMALLEST_PLAIN_NUMBER = 1e-6;

export const AMOUNT_FORMAT_MESSAGE =
  'must be a decimal amount in major units with "." as the separator, e.g. "19.99"';

/** Cents of a decimal string or a JSON number; a result object, never a throw. */
export function decimalToCents(value: string | number): CentsResult {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return { ok: false, message: AMOUNT_FORMAT_MESSAGE };
    if (Math.abs(value) < SMALLEST_PLAIN_NUMBER) return { ok: true, cents: 0 };
    // The shortest text that reads back as the same double: what the JSON document said.
    text = String(value);
  } else {
    text = value.trim();
  }

  const match = DECIMAL.exec(text);
  if (!match) return { ok: false, message: AMOUNT_FORMAT_MESSAGE };
  const [, sign = "", integerPart = "", fraction = ""] = match;
  const digits = integerPart.replace(/^0+(?=\d)/, "");
  if (digits.length > MAX_INTEGER_DIGITS) return { ok: false, message: "is out of range" };

  const cents = Number(digits) * 100 + Number(fraction.slice(0, 2).padEnd(2, "0"));
  const roundsUp = (fraction[2] ?? "0") >= "5";
  const magnitude = cents + (roundsUp ? 1 : 0);
  return { ok: true, cents: sign === "-" && magnitude !== 0 ? -magnitude : magnitude };
}
