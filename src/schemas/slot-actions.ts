import { z } from "@hono/zod-openapi";
import { CalendarDate, Int32, NullableFreeObject, ownKeysRecord, Uuid } from "./common";
import { LocalTimeSchema, WEEK_DAYS } from "./slots";

/**
 * A LocalTime or null. Not `LocalTimeSchema.nullish()`: on a registered union that writes the null
 * into the shared LocalTime component, and the document then claims null for every other use
 * (E11's required `time`), which the route refuses.
 */
const nullableTime = LocalTimeSchema.or(z.null()).optional();

// ownKeysRecord, so a `__proto__` key reaches the check below (and is refused) instead of vanishing.
const WeekDaysSchema = ownKeysRecord(z.string(), z.boolean())
  .superRefine((map, ctx) => {
    for (const key of Object.keys(map)) {
      // As written, upper case: the document names the keys MONDAY..SUNDAY.
      if (!(WEEK_DAYS as readonly string[]).includes(key))
        ctx.addIssue({ code: "custom", path: [key], message: "must be MONDAY..SUNDAY" });
    }
  })
  .transform((map) => {
    const days = new Set(
      Object.entries(map)
        .filter(([, on]) => on)
        .map(([day]) => day),
    );
    return days;
  });

export const SlotActionRequestSchema = z
  .object({
    action: z.enum(["CREATE", "UPDATE", "DELETE"]),
    experienceId: Uuid.nullish(),
    slotId: Uuid.nullish(),
    parentSlotId: Uuid.nullish(),
    day: CalendarDate.nullish(),
    startFromValid: CalendarDate.nullish(),
    endToValid: CalendarDate.nullish(),
    // Documented by hand (the transform's output is a Set), on the nullish wrapper: an override
    // on the inner schema replaced the wrapper's type and left null out of the document.
    weekDays: WeekDaysSchema.nullish().openapi({
      type: ["object", "null"],
      additionalProperties: { type: "boolean" },
      description:
        "MONDAY..SUNDAY (upper case; any other key is 400) -> true for the days the range covers; absent or null: every day. Only with startFromValid..endToValid: a CREATE with `day` and weekDays is 400.",
    }),
    time: nullableTime,
    newDay: CalendarDate.nullish(),
    newTime: nullableTime,
    newMaxParties: Int32.min(0).nullish(),
    newMinParties: Int32.min(0).nullish(),
    newOccupantsCount: Int32.min(0).nullish().openapi({
      description:
        "Seats taken outside the system (phone bookings, walk-ins): replaces the slot's externalOccupants. Reservations keep their own count (reservedCount); occupiedCount is the sum.",
    }),
    newEnabledLanguages: z.array(z.string()).max(1000).nullish(),
    newDefaultLanguages: z.array(z.string()).max(1000).nullish(),
    newActive: z.boolean().nullish(),
    effectPolicy: z.enum(["SINGLE", "FOLLOWING", "SERIES"]).nullish().openapi({
      description:
        "With slotId: SINGLE (default) acts on that slot; FOLLOWING on it and the later slots of its series; SERIES on its whole series.",
    }),
    ignoreOccupiedSlot: z.boolean().nullish(),
    ignoreManualModification: z.boolean().nullish(),
    dryRun: z.boolean().nullish(),
    extraData: NullableFreeObject.optional(),
    options: ownKeysRecord(z.string(), z.boolean()).nullish().openapi({
      description: "Accepted and ignored: no options are defined.",
    }),
  })
  .superRefine((r, ctx) => {
    // CREATE makes `day`, or the range with its week days: never both, one would be ignored.
    if (r.action === "CREATE" && r.day != null)
      for (const field of ["startFromValid", "endToValid", "weekDays"] as const)
        if (r[field] != null)
          ctx.addIssue({
            code: "custom",
            path: [field],
            message: "CREATE takes day, or startFromValid..endToValid with weekDays, not both",
          });
    if (r.startFromValid && r.endToValid) {
      const days = (Date.parse(r.endToValid) - Date.parse(r.startFromValid)) / 86_400_000;
      if (days < 0)
        ctx.addIssue({
          code: "custom",
          path: ["endToValid"],
          message: "must not be before startFromValid",
        });
      else if (days > 365)
        ctx.addIssue({
          code: "custom",
          path: ["endToValid"],
          message: "the range spans at most 366 days",
        });
    }
  })
  .openapi("SlotActionRequest");
export type SlotActionRequest = z.infer<typeof SlotActionRequestSchema>;

export const SlotActionsCommandSchema = z
  .object({ requests: z.array(SlotActionRequestSchema).min(1).max(1000) })
  .openapi("SlotActionsCommand");
export type SlotActionsCommand = z.infer<typeof SlotActionsCommandSchema>;
