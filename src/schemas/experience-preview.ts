import { z } from "@hono/zod-openapi";
import { CalendarDate, FreeObject, Int32 } from "./common";
import { ExperienceIntegrationSchema } from "./experience-parts";
import { LocalTimeOutSchema } from "./slots";

const Change = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() });

export const PlannedSlotSchema = z
  .object({
    date: CalendarDate,
    time: LocalTimeOutSchema,
    maxParties: Int32,
    minParties: Int32,
    enabledLanguages: z.array(z.string()),
    defaultLanguages: z.array(z.string()),
    active: z.boolean(),
    series: z.boolean().openapi({ description: "Part of a series (a range slotsRequest)." }),
    extraData: FreeObject.nullable(),
  })
  .openapi("PlannedSlot");

export const SlotConflictSchema = z
  .object({
    slotId: z.guid(),
    experienceId: z.guid(),
    date: CalendarDate,
    time: LocalTimeOutSchema,
    occupiedCount: Int32,
    maxParties: Int32,
    reason: z.enum(["DELETES_OCCUPIED_SLOT", "MOVES_OCCUPIED_SLOT", "BELOW_OCCUPANTS"]),
    reservationIds: z.array(z.guid()).openapi({
      description:
        "The reservations on the slot that the change would touch (E11 imports; occupants counted through E9's newOccupantsCount have none).",
    }),
  })
  .openapi("SlotConflict", {
    description:
      "An occupied slot the change would delete, move, or leave with more occupants than maxParties, with the reservations on it.",
  });

export const ExperiencePreviewSchema = z
  .object({
    experienceId: z.guid().nullable(),
    changedFields: z.array(Change),
    slots: z.object({
      create: z.array(PlannedSlotSchema),
      update: z.array(
        z.object({
          slotId: z.guid(),
          date: CalendarDate,
          time: LocalTimeOutSchema,
          changes: z.array(Change),
        }),
      ),
      delete: z.array(
        z.object({
          slotId: z.guid(),
          date: CalendarDate,
          time: LocalTimeOutSchema,
          occupiedCount: Int32,
        }),
      ),
    }),
    conflicts: z.array(SlotConflictSchema),
    integrations: z.object({
      added: z.array(ExperienceIntegrationSchema),
      removed: z.array(ExperienceIntegrationSchema),
      changed: z.array(
        z.object({ before: ExperienceIntegrationSchema, after: ExperienceIntegrationSchema }),
      ),
    }),
  })
  .openapi("ExperiencePropagationPreview");
export type ExperiencePreview = z.infer<typeof ExperiencePreviewSchema>;
