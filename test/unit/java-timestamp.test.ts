import { describe, expect, it } from "vitest";
import { type JavaTimestamp, toJavaTimestamp } from "../../src/lib/java-timestamp";

/**
 * What the JDK prints for these instants: `new java.sql.Timestamp(ms)` with the default time zone
 * UTC, read through getDate, getDay, getHours, getMinutes, getMonth, getNanos, getSeconds, getTime,
 * getTimezoneOffset and getYear. Made once (openjdk 17.0.15) with this program, not run in CI:
 *
 *   TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
 *   for (String arg : args) { Timestamp t = new Timestamp(Long.parseLong(arg)); printf(...getters...); }
 *
 * run as `java Fixtures <ms...>` on the epoch milliseconds of the ISO instants in the comments
 * (JavaScript's Date.parse, proleptic Gregorian). Before 1582-10-15 Java counts Julian days.
 */
const JDK: [string, number, JavaTimestamp][] = [
  // Year 0001: proleptic Gregorian 0001-01-01 is Julian 0001-01-03, a Monday.
  [
    "0001-01-01T00:00:00.000Z",
    -62135596800000,
    {
      date: 3,
      day: 1,
      hours: 0,
      minutes: 0,
      month: 0,
      nanos: 0,
      seconds: 0,
      time: -62135596800000,
      timezoneOffset: 0,
      year: -1899,
    },
  ],
  [
    "0004-02-29T06:00:00.000Z",
    -62035869600000,
    {
      date: 2,
      day: 0,
      hours: 6,
      minutes: 0,
      month: 2,
      nanos: 0,
      seconds: 0,
      time: -62035869600000,
      timezoneOffset: 0,
      year: -1896,
    },
  ],
  [
    "0100-03-01T00:00:00.000Z",
    -59006361600000,
    {
      date: 2,
      day: 1,
      hours: 0,
      minutes: 0,
      month: 2,
      nanos: 0,
      seconds: 0,
      time: -59006361600000,
      timezoneOffset: 0,
      year: -1800,
    },
  ],
  [
    "1000-06-15T12:34:56.789Z",
    -30595922703211,
    {
      date: 9,
      day: 0,
      hours: 12,
      minutes: 34,
      month: 5,
      nanos: 789000000,
      seconds: 56,
      time: -30595922703211,
      timezoneOffset: 0,
      year: -900,
    },
  ],
  // The last Julian millisecond (1582-10-04) and the first Gregorian day (1582-10-15).
  // Julian 1500 is a leap year (Gregorian 1500 is not): Julian 1500-02-29.
  [
    "1500-03-10T00:00:00.000Z",
    -14825894400000,
    {
      date: 29,
      day: 6,
      hours: 0,
      minutes: 0,
      month: 1,
      nanos: 0,
      seconds: 0,
      time: -14825894400000,
      timezoneOffset: 0,
      year: -400,
    },
  ],
  [
    "1582-10-14T23:59:59.999Z",
    -12219292800001,
    {
      date: 4,
      day: 4,
      hours: 23,
      minutes: 59,
      month: 9,
      nanos: 999000000,
      seconds: 59,
      time: -12219292800001,
      timezoneOffset: 0,
      year: -318,
    },
  ],
  [
    "1582-10-15T00:00:00.000Z",
    -12219292800000,
    {
      date: 15,
      day: 5,
      hours: 0,
      minutes: 0,
      month: 9,
      nanos: 0,
      seconds: 0,
      time: -12219292800000,
      timezoneOffset: 0,
      year: -318,
    },
  ],
  [
    "1600-02-29T00:00:00.000Z",
    -11670998400000,
    {
      date: 29,
      day: 2,
      hours: 0,
      minutes: 0,
      month: 1,
      nanos: 0,
      seconds: 0,
      time: -11670998400000,
      timezoneOffset: 0,
      year: -300,
    },
  ],
  [
    "1899-12-31T23:59:59.999Z",
    -2208988800001,
    {
      date: 31,
      day: 0,
      hours: 23,
      minutes: 59,
      month: 11,
      nanos: 999000000,
      seconds: 59,
      time: -2208988800001,
      timezoneOffset: 0,
      year: -1,
    },
  ],
  [
    "1900-01-01T00:00:00.000Z",
    -2208988800000,
    {
      date: 1,
      day: 1,
      hours: 0,
      minutes: 0,
      month: 0,
      nanos: 0,
      seconds: 0,
      time: -2208988800000,
      timezoneOffset: 0,
      year: 0,
    },
  ],
  // One millisecond before the epoch: seconds 59 and nanos 999,000,000, never negative.
  [
    "1969-12-31T23:59:59.999Z",
    -1,
    {
      date: 31,
      day: 3,
      hours: 23,
      minutes: 59,
      month: 11,
      nanos: 999000000,
      seconds: 59,
      time: -1,
      timezoneOffset: 0,
      year: 69,
    },
  ],
  [
    "1970-01-01T00:00:00.000Z",
    0,
    {
      date: 1,
      day: 4,
      hours: 0,
      minutes: 0,
      month: 0,
      nanos: 0,
      seconds: 0,
      time: 0,
      timezoneOffset: 0,
      year: 70,
    },
  ],
  [
    "1970-01-01T00:00:00.001Z",
    1,
    {
      date: 1,
      day: 4,
      hours: 0,
      minutes: 0,
      month: 0,
      nanos: 1000000,
      seconds: 0,
      time: 1,
      timezoneOffset: 0,
      year: 70,
    },
  ],
  [
    "2000-02-29T12:00:00.500Z",
    951825600500,
    {
      date: 29,
      day: 2,
      hours: 12,
      minutes: 0,
      month: 1,
      nanos: 500000000,
      seconds: 0,
      time: 951825600500,
      timezoneOffset: 0,
      year: 100,
    },
  ],
  [
    "2024-12-31T23:59:59.999Z",
    1735689599999,
    {
      date: 31,
      day: 2,
      hours: 23,
      minutes: 59,
      month: 11,
      nanos: 999000000,
      seconds: 59,
      time: 1735689599999,
      timezoneOffset: 0,
      year: 124,
    },
  ],
  [
    "2026-05-14T09:30:15.250Z",
    1778751015250,
    {
      date: 14,
      day: 4,
      hours: 9,
      minutes: 30,
      month: 4,
      nanos: 250000000,
      seconds: 15,
      time: 1778751015250,
      timezoneOffset: 0,
      year: 126,
    },
  ],
  [
    "9999-12-31T23:59:59.999Z",
    253402300799999,
    {
      date: 31,
      day: 5,
      hours: 23,
      minutes: 59,
      month: 11,
      nanos: 999000000,
      seconds: 59,
      time: 253402300799999,
      timezoneOffset: 0,
      year: 8099,
    },
  ],
];

describe("toJavaTimestamp", () => {
  it.each(JDK)("%s is what the JDK prints", (iso, ms, expected) => {
    expect(Date.parse(iso)).toBe(ms);
    expect(toJavaTimestamp(ms)).toEqual(expected);
  });

  it("agrees with JavaScript's UTC fields on every day from 1582-10-15 to 9999 (sampled hourly-ish)", () => {
    const from = Date.parse("1582-10-15T00:00:00.000Z");
    const to = Date.parse("9999-12-31T23:59:59.999Z");
    // A prime step walks through every time of day and every kind of date.
    for (let ms = from; ms <= to; ms += 3_600_007 * 97) {
      const d = new Date(ms);
      expect(toJavaTimestamp(ms)).toEqual({
        date: d.getUTCDate(),
        day: d.getUTCDay(),
        hours: d.getUTCHours(),
        minutes: d.getUTCMinutes(),
        month: d.getUTCMonth(),
        nanos: d.getUTCMilliseconds() * 1_000_000,
        seconds: d.getUTCSeconds(),
        time: ms,
        timezoneOffset: 0,
        year: d.getUTCFullYear() - 1900,
      });
    }
  });

  it("counts Julian days before the cutover: consecutive days, Julian leap years", () => {
    const day = 86_400_000;
    const cutover = Date.parse("1582-10-15T00:00:00.000Z");
    expect(toJavaTimestamp(cutover - day)).toMatchObject({ year: -318, month: 9, date: 4 });
    // Julian 1500 is a leap year (not in Gregorian): February has 29 days.
    const feb28 = toJavaTimestamp(Date.parse("1500-03-09T00:00:00.000Z"));
    expect(feb28).toMatchObject({ year: -400, month: 1, date: 28 });
    expect(toJavaTimestamp(Date.parse("1500-03-10T00:00:00.000Z"))).toMatchObject({
      month: 1,
      date: 29,
    });
    expect(toJavaTimestamp(Date.parse("1500-03-11T00:00:00.000Z"))).toMatchObject({
      month: 2,
      date: 1,
    });
    // Weekdays never skip across the cutover: Thursday 4 October, Friday 15 October.
    expect(toJavaTimestamp(cutover - 1).day).toBe(4);
    expect(toJavaTimestamp(cutover).day).toBe(5);
  });

  it("keeps nanos in 0..999,999,999 for every millisecond around the epoch", () => {
    for (let ms = -2000; ms <= 2000; ms++) {
      const t = toJavaTimestamp(ms);
      expect(t.nanos).toBe((((ms % 1000) + 1000) % 1000) * 1_000_000);
      expect(t.seconds).toBeGreaterThanOrEqual(0);
    }
  });
});
