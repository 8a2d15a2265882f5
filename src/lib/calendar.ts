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

/** Every date of [from, to], both inclusive, kept when `keep` says so. */
export function eachDay(from: string, to: string, keep: (date: string) => boolean = () => true) {
  const days: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) if (keep(d)) days.push(d);
  return days;
}

/** Today's date in UTC. */
export const todayUtc = (): string => new Date().toISOString().slice(0, 10);
