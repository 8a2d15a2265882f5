import { describe, expect, it } from "vitest";
import { addDays, daysBetween, eachDay, weekDayOf } from "../../src/lib/calendar";

describe("calendar dates", () => {
  it("eachDay ends at the last day of year 9999 (whose next day's text sorts before it)", () => {
    expect(eachDay("9999-12-31", "9999-12-31")).toEqual(["9999-12-31"]);
    expect(eachDay("9999-12-29", "9999-12-31")).toEqual(["9999-12-29", "9999-12-30", "9999-12-31"]);
    expect(eachDay("9999-12-25", "9999-12-31", (d) => weekDayOf(d) === "FRIDAY")).toEqual([
      "9999-12-31",
    ]);
  });

  it("eachDay walks the first days of year 1, leap days and an empty range", () => {
    expect(eachDay("0001-01-01", "0001-01-02")).toEqual(["0001-01-01", "0001-01-02"]);
    expect(eachDay("2024-02-28", "2024-03-01")).toEqual(["2024-02-28", "2024-02-29", "2024-03-01"]);
    expect(eachDay("2026-01-02", "2026-01-01")).toEqual([]);
  });

  it("addDays and daysBetween agree across years", () => {
    expect(addDays("2025-12-31", 1)).toBe("2026-01-01");
    expect(daysBetween("2024-01-01", "2025-01-01")).toBe(366);
    expect(weekDayOf("0001-01-01")).toBe("MONDAY");
  });
});
