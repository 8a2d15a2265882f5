import { z } from "@hono/zod-openapi";
import { PROBLEM_CONTENT_TYPE } from "../lib/problem";
import { CalendarDate, Int32, NullableFreeObject } from "./common";
import { ExperienceIntegrationSchema } from "./experience-parts";
import { ProblemSchema } from "./problem";
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
    extraData: NullableFreeObject,
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
    reason: z
      .enum(["DELETES_OCCUPIED_SLOT", "MOVES_OCCUPIED_SLOT", "BELOW_OCCUPANTS", "SLOT_EXISTS"])
      .openapi({
        description:
          "SLOT_EXISTS: a move (E9's UPDATE with newDay/newTime, a slotsRequests entry with id and day/time) would land on this slot's date and time; the slot named is the one that is there.",
      }),
    reservationIds: z.array(z.guid()).openapi({
      description:
        "The reservations on the slot that the change would touch (E11 imports; occupants counted through E9's newOccupantsCount have none).",
    }),
  })
  .openapi("SlotConflict", {
    description:
      "An occupied slot the change would delete, move, or leave with more occupants than maxParties, with the reservations on it; or (SLOT_EXISTS) the slot a move would land on.",
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

/**
 * The 409 of the routes that refuse a change to occupied slots (E9, PUT /experiences/{id}): a
 * problem whose `slots` are SlotConflicts, the shape E8 answers. Both members are absent from a
 * 409 that names no slot (two slots of one call meeting on the same date and time).
 */
export const SlotConflictProblemSchema = ProblemSchema.extend({
  slots: z.array(SlotConflictSchema).optional().openapi({
    description: "The slots the change would touch, as E8's conflicts name them.",
  }),
  reservationIds: z.array(z.guid()).optional().openapi({
    description: "The reservations on those slots, each once.",
  }),
}).openapi("SlotConflictProblem", {
  description:
    "CONFLICT: the change would touch occupied slots (or meet another slot); nothing was written.",
});

/**
 * E11's 409: a problem naming, when a slot had no room for the reservation's guests, the slot and
 * the reservation. Both members are absent from E11's other conflicts (a payment below what was
 * refunded, a slot deleted meanwhile, a race that kept losing).
 */
export const SlotFullProblemSchema = ProblemSchema.extend({
  slotId: z.guid().optional().openapi({ description: "The slot without room." }),
  reservationId: z.guid().nullable().optional().openapi({
    description:
      "The reservation whose guests found no room: null for one the call was creating under a new id (path `NEW` or `null`), which was never stored.",
  }),
}).openapi("SlotFullProblem", {
  description:
    "CONFLICT: a slot without room for the reservation's guests (or another conflict, then without these members); nothing was written.",
});

/** E11's 409 response, whose body is a SlotFullProblem. */
export const slotFullResponse = {
  409: {
    description:
      "CONFLICT: the slot at the reservation's date and time has no room for its guests (`slotId`, `reservationId`), the new paidTotalCents falls below what was already refunded, or a concurrent change won (the slot deleted meanwhile, a race lost again and again); nothing was written.",
    content: { [PROBLEM_CONTENT_TYPE]: { schema: SlotFullProblemSchema } },
  },
};

/** A 409 response whose body is a SlotConflictProblem. */
export const slotConflictResponse = {
  409: {
    description:
      "CONFLICT: the change would delete, move or shrink below its occupants an occupied slot, or (E9, or a concurrent write) move a slot onto another's date and time; nothing was written.",
    content: { [PROBLEM_CONTENT_TYPE]: { schema: SlotConflictProblemSchema } },
  },
};
