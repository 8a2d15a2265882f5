/**
 * java.sql.Timestamp's bean shape (the getters of java.util.Date plus getNanos) for an instant, as a
 * JVM whose default time zone is UTC prints it. Java's default calendar is hybrid: Gregorian from
 * 1582-10-15, Julian before (the day before 1582-10-15 is 1582-10-04), so the same epoch
 * millisecond has different calendar fields here than in JavaScript's proleptic Gregorian Date.
 * Pure arithmetic on the epoch milliseconds; no Date involved.
 */
export interface JavaTimestamp {
  /** Day of the month, 1..31. */
  date: number;
  /** Day of the week, 0 = Sunday. */
  day: number;
  hours: number;
  minutes: number;
  /** 0 = January. */
  month: number;
  /** The fraction of the second in nanoseconds, 0..999,999,999 (never negative). */
  nanos: number;
  seconds: number;
  /** Epoch milliseconds: the instant itself. */
  time: number;
  timezoneOffset: number;
  /** Year minus 1900. */
  year: number;
}

const MS_PER_DAY = 86_400_000;
/** Julian day number of 1970-01-01. */
const EPOCH_JDN = 2_440_588;
/** Julian day number of 1582-10-15 (Gregorian), the first day of Java's Gregorian calendar. */
const GREGORIAN_CUTOVER_JDN = 2_299_161;

const floorDiv = (a: number, b: number) => Math.floor(a / b);
const floorMod = (a: number, b: number) => ((a % b) + b) % b;

/** Calendar date of a Julian day number (Richards' algorithm; Gregorian or Julian rules). */
function civilDate(jdn: number, gregorian: boolean): { year: number; month: number; day: number } {
  let f = jdn + 1401;
  if (gregorian) f += floorDiv(floorDiv(4 * jdn + 274_277, 146_097) * 3, 4) - 38;
  const e = 4 * f + 3;
  const g = floorDiv(floorMod(e, 1461), 4);
  const h = 5 * g + 2;
  const day = floorDiv(floorMod(h, 153), 5) + 1;
  const month = floorMod(floorDiv(h, 153) + 2, 12) + 1;
  const year = floorDiv(e, 1461) - 4716 + floorDiv(12 + 2 - month, 12);
  return { year, month, day };
}

export function toJavaTimestamp(time: number): JavaTimestamp {
  const days = floorDiv(time, MS_PER_DAY);
  const msOfDay = time - days * MS_PER_DAY;
  const jdn = days + EPOCH_JDN;
  const civil = civilDate(jdn, jdn >= GREGORIAN_CUTOVER_JDN);
  return {
    date: civil.day,
    day: floorMod(jdn + 1, 7),
    hours: floorDiv(msOfDay, 3_600_000),
    minutes: floorDiv(msOfDay, 60_000) % 60,
    month: civil.month - 1,
    nanos: (msOfDay % 1000) * 1_000_000,
    seconds: floorDiv(msOfDay, 1000) % 60,
    time,
    timezoneOffset: 0,
    year: civil.year - 1900,
  };
}
