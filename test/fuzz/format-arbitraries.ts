import fc from "fast-check";

/** Values of the string formats of the document: all valid, many at the edges. */

const DAY_MS = 86_400_000;
const FIRST_DAY = Date.parse("0001-01-01T00:00:00Z") / DAY_MS;
const LAST_DAY = Date.parse("9999-12-31T00:00:00Z") / DAY_MS;
const NEAR_FIRST_DAY = Date.parse("2020-01-01T00:00:00Z") / DAY_MS;
const NEAR_LAST_DAY = Date.parse("2032-12-31T00:00:00Z") / DAY_MS;

/** Addresses every validator accepts (Zod's email check is stricter than RFC 5322). */
export const email = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9][a-z0-9_+-]{0,15}$/),
    fc.stringMatching(/^[a-z0-9]{1,12}$/),
    fc.constantFrom("com", "it", "example", "wine"),
  )
  .map(([local, domain, tld]) => `${local}@${domain}.${tld}`);

/** A local time of day, HH:MM:SS. */
export const localTime = fc
  .tuple(fc.nat(23), fc.nat(59), fc.nat(59))
  .map((parts) => parts.map((n) => String(n).padStart(2, "0")).join(":"));

const dayNumber = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: NEAR_FIRST_DAY, max: NEAR_LAST_DAY }) },
  { weight: 2, arbitrary: fc.integer({ min: FIRST_DAY, max: LAST_DAY }) },
  { weight: 1, arbitrary: fc.constantFrom(FIRST_DAY, LAST_DAY) },
);

/** A real calendar date in the years 0001..9999 (mostly near today, where business rules bite). */
export const calendarDate = dayNumber.map((day) =>
  new Date(day * DAY_MS).toISOString().slice(0, 10),
);

/** The first and last instants of the years 0001..9999, in the shapes clients send. */
const edgeInstants = fc.constantFrom(
  "0001-01-01T00:00:00Z",
  "0001-01-01T00:00:00.000+00:00",
  "0001-01-01T14:00:00+14:00",
  "9999-12-31T23:59:59.999Z",
  "9999-12-31T23:59:59Z",
  "9999-12-31T09:59:59-14:00",
);

/** An ISO 8601 instant with an offset whose UTC instant lies in the years 0001..9999. */
const anyInstant = fc
  .tuple(
    dayNumber,
    fc.integer({ min: 0, max: DAY_MS - 1 }),
    fc.constantFrom(0, 0, 60, 120, -300, 330, 840, -840),
    fc.boolean(),
  )
  .map(([day, ms, offsetMinutes, withMillis]) => {
    // Keep the UTC instant inside the years 0001..9999 whatever the offset.
    const clampedDay = Math.min(Math.max(day, FIRST_DAY + 1), LAST_DAY - 1);
    const local = new Date(clampedDay * DAY_MS + ms + offsetMinutes * 60_000).toISOString();
    const text = withMillis ? local.slice(0, 23) : local.slice(0, 19);
    if (offsetMinutes === 0) return `${text}Z`;
    const sign = offsetMinutes > 0 ? "+" : "-";
    const abs = Math.abs(offsetMinutes);
    const hh = String(Math.floor(abs / 60)).padStart(2, "0");
    const mm = String(abs % 60).padStart(2, "0");
    return `${text}${sign}${hh}:${mm}`;
  });

export const dateTime = fc.oneof({ weight: 6, arbitrary: anyInstant }, edgeInstants);
