import { z } from "@hono/zod-openapi";
import { CalendarDate, DateTime, Int32, NullableFreeObject } from "./common";

const LocalTimeObject = z.object({
  hour: Int32.min(0).max(23),
  minute: Int32.min(0).max(59),
  second: Int32.min(0).max(59).optional(),
  nano: Int32.min(0)
    .max(0, "must be 0: slots start at whole seconds")
    .optional()
    .openapi({ description: "Always 0: slots start at whole seconds." }),
});

/**
 * Java's LocalTime: the object form of the interface, or the "HH:MM[:SS[.fraction]]" string
 * Jackson writes (LocalTime.toString: a fraction of zeros, "10:00:00.000", is a whole second and
 * taken; another is refused as the object's nano is). Either becomes "HH:MM:SS", the form Postgres
 * `time` columns take and give back.
 */
export const LocalTimeSchema = z
  .union([
    LocalTimeObject,
    z
      .string()
      // The pattern is the rule the document states: a fraction of zeros only.
      .regex(
        /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.0{1,9})?)?$/,
        "must be HH:MM or HH:MM:SS, hours 00-23, minutes and seconds 00-59 (a fraction only of zeros: slots start at whole seconds)",
      ),
  ])
  .transform((t) => (typeof t === "string" ? toClock(t) : fromParts(t.hour, t.minute, t.second)))
  .openapi("LocalTime", {
    description:
      'An object {hour, minute, second, nano} or a string "HH:MM[:SS]" (a fraction of zeros, "HH:MM:SS.000", is taken as the whole second).',
  });

const pad = (n: number) => String(n).padStart(2, "0");
const fromParts = (h: number, m: number, s = 0) => `${pad(h)}:${pad(m)}:${pad(s)}`;
const toClock = (t: string) => (t.length === 5 ? `${t}:00` : t.slice(0, 8));

export const LocalTimeOutSchema = z
  .object({ hour: Int32, minute: Int32, second: Int32, nano: Int32 })
  .openapi("LocalTimeValue");
export type LocalTimeOut = z.infer<typeof LocalTimeOutSchema>;

/** "HH:MM:SS" as the interface's LocalTime object. */
export function localTime(clock: string): LocalTimeOut {
  const [hour = 0, minute = 0, second = 0] = clock.split(":").map(Number);
  return { hour, minute, second, nano: 0 };
}

export const WEEK_DAYS = [
  "MONDAY",
  "TUESDAY",
  "WEDNESDAY",
  "THURSDAY",
  "FRIDAY",
  "SATURDAY",
  "SUNDAY",
] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

export const SlotSchema = z
  .object({
    id: z.guid(),
    experienceId: z.guid(),
    date: CalendarDate,
    time: LocalTimeOutSchema,
    maxParties: Int32,
    minParties: Int32,
    enabledLanguages: z.array(z.string()),
    defaultLanguages: z.array(z.string()),
    active: z.boolean(),
    parentSlotId: z.guid().nullable().openapi({
      description: "The first slot of the series a range CREATE made; null for a single slot.",
    }),
    manuallyModified: z.boolean().openapi({
      description:
        "Set when the slot was changed on its own (UPDATE by slotId with effectPolicy SINGLE, or a slotsRequest naming its id); series actions and experience propagation skip it unless ignoreManualModification.",
    }),
    reservedCount: Int32.openapi({ description: "Seats taken by reservations." }),
    externalOccupants: Int32.openapi({
      description: "Seats taken outside the system (set by E9's newOccupantsCount).",
    }),
    occupiedCount: Int32.openapi({ description: "reservedCount + externalOccupants." }),
    availableSeats: Int32.openapi({ description: "max(0, maxParties - occupiedCount)." }),
    extraData: NullableFreeObject,
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Slot");
export type Slot = z.infer<typeof SlotSchema>;

export const AvailabilityQuerySchema = z
  .object({
    experienceId: z
      .guid()
      .optional()
      .openapi({ description: "One experience of the key's winery; absent: all of them." }),
    from: CalendarDate,
    to: CalendarDate,
  })
  .superRefine((q, ctx) => {
    const days = (Date.parse(q.to) - Date.parse(q.from)) / 86_400_000;
    if (days < 0)
      ctx.addIssue({ code: "custom", path: ["to"], message: "must not be before from" });
    else if (days > 365)
      ctx.addIssue({ code: "custom", path: ["to"], message: "the range spans at most 366 days" });
  });
export type AvailabilityQuery = z.infer<typeof AvailabilityQuerySchema>;
