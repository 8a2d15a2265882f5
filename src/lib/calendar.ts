/** Calendar-date arithmetic on "YYYY-MM-DD" strings, in UTC so no time zone shifts a day. */

const DAY_MS = 86_400_000;
const WEEK_DAY_NAMES = [
  "SUNDAY",
  "MONDAY",
  "TUESDAY",
  "WEDNESDAY",
  "THURSDAY",
  "FRIDAY",
  "SATURDAY",
] as const;

export const addDays = (date: string, days: number): string =>
  new Date(Date.parse(date) + days * DAY_MS).toISOString().slice(0, 10);

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS);

/** MONDAY..SUNDAY, as java.time.DayOfWeek names them. */
export const weekDayOf = (date: string): string =>
  WEEK_DAY_NAMES[new Date(Date.parse(date)).getUTCDay()] ?? "SUNDAY";

/**
 * Every date of [from, to], both inclusive, kept when `keep` says so. Counted in days, never by
 * comparing texts: the day after 9999-12-31 is written `+010000-01-01`, which sorts before it.
 */
export function eachDay(from: string, to: string, keep: (date: string) => boolean = () => true) {
  const days: string[] = [];
  const last = Date.parse(to);
  for (let at = Date.parse(from); at <= last; at += DAY_MS) {
    const date = new Date(at).toISOString().slice(0, 10);
    if (keep(date)) days.push(date);
  }
  return days;
}

/** Today's date in UTC. */
export const todayUtc = (): string => new Date().toISOString().slice(0, 10);
