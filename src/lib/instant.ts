/**
 * Date-time bounds compared exactly. A bound may carry any number of fraction digits, but
 * JavaScript's Date keeps whole milliseconds (truncating) and Postgres reads a timestamptz to
 * whole microseconds (rounding half to even): read either way, an inclusive lower bound of
 * 00:00:00.0005 becomes 00:00:00.000 and admits a row stored 0.5 ms before it. These helpers read a
 * DateTime (as its schema accepts it: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, so offsets are
 * whole minutes and the fraction of the second is the fraction of the instant) with every digit,
 * and round it to whole microseconds in the direction that keeps a comparison with a stored value
 * (whole microseconds or coarser: the columns hold milliseconds) exact.
 */

/** An instant: whole milliseconds since the epoch (floor) and the digits past them. */
interface Exact {
  ms: number;
  /** The fraction's digits after the milliseconds ("" when none). */
  subMs: string;
}

const FRACTION = /\.(\d+)/;

function exact(value: string): Exact {
  const fraction = FRACTION.exec(value)?.[1] ?? "";
  // The whole second, plus the milliseconds read here: V8's Date.parse misreads a fraction of ten
  // digits or more (".0019999999" is 19 ms). The fraction counts forward, before 1970 too.
  const ms = Date.parse(value.replace(FRACTION, "")) + Number(fraction.slice(0, 3).padEnd(3, "0"));
  return { ms, subMs: fraction.slice(3) };
}

/** A DateTime's instant in whole milliseconds, rounded down (Date.parse, read correctly). */
export const instantMs = (value: string): number => exact(value).ms;

/**
 * Orders two DateTimes by their instants, every digit of the fraction counted: negative when a
 * is earlier, 0 when they are the same instant, positive when a is later.
 */
export function compareDateTimes(a: string, b: string): number {
  const x = exact(a);
  const y = exact(b);
  if (x.ms !== y.ms) return x.ms - y.ms;
  const width = Math.max(x.subMs.length, y.subMs.length);
  const p = x.subMs.padEnd(width, "0");
  const q = y.subMs.padEnd(width, "0");
  return p < q ? -1 : p > q ? 1 : 0;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/**
 * The instant `ms` + `us` microseconds in UTC with six fraction digits, as Postgres reads it
 * exactly (the year 10000 as "10000", which Postgres reads and toISOString writes "+010000").
 */
function format(ms: number, us: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(
    d.getUTCHours(),
  )}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}${pad(us, 3)}Z`;
}

/**
 * A DateTime rounded to whole microseconds, as text for `::timestamptz`: "down" is the last
 * microsecond at or before it (for `column <= bound`), "up" the first at or after it (for
 * `column >= bound` and `column < bound`). For a microsecond column c: c >= X iff c >= up(X),
 * c < X iff c < up(X), c <= X iff c <= down(X).
 */
export function microsecondBound(value: string, round: "down" | "up"): string {
  const { ms, subMs } = exact(value);
  let us = Number(subMs.slice(0, 3).padEnd(3, "0"));
  if (round === "up" && /[1-9]/.test(subMs.slice(3))) us += 1;
  return us === 1000 ? format(ms + 1, 0) : format(ms, us);
}
