import { z } from "@hono/zod-openapi";

/** ISO 8601 instant with an offset (`Z` or `+02:00`), as decisions.md requires for date-time. */
export const DateTime = z.iso
  .datetime({ offset: true })
  .openapi({ format: "date-time", example: "2026-05-01T10:00:00Z" });

/** Real calendar date YYYY-MM-DD. */
export const CalendarDate = z.iso.date().openapi({ format: "date", example: "2026-05-01" });

export const Int32 = z.int32();
export const Int64 = z.int().openapi({ format: "int64" });

/** Free-form JSON object, stored as given. */
export const FreeObject = z
  .record(z.string(), z.unknown())
  .openapi({ type: "object", additionalProperties: true });

/** A half-open date-time range `[dateFrom, dateTo)`. */
export const DateRange = z
  .object({ dateFrom: DateTime, dateTo: DateTime })
  .refine((r) => Date.parse(r.dateFrom) <= Date.parse(r.dateTo), {
    path: ["dateTo"],
    message: "dateTo must not be before dateFrom",
  });

/**
 * A uuid: any 8-4-4-4-12 hex string. Deliberately not RFC-variant strict, so ids made by hand or by
 * other systems (`11111111-1111-1111-1111-111111111111`) are accepted as Postgres accepts them.
 */
export const Uuid = z.guid().openapi({ format: "uuid" });
