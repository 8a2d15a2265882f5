import type { HttpDb } from "../../db/client";
import { todayUtc } from "../../lib/calendar";
import type { ExperiencePreview } from "../../schemas/experience-preview";
import type { ExperienceInput } from "../../schemas/experiences";
import { localTime } from "../../schemas/slots";
import { changedSlotFields, occupantsOf } from "../slots/slot-set";
import { stateQueries, toState } from "./experience-record";
import { type ExperiencePlan, planExperience } from "./plan-experience";

/**
 * E8: the plan a save of this input would apply, computed by the save's own planning function on
 * the same state, and nothing written. One round trip (the experience and its slots in one batch).
 * An input without `id`, or with an id the winery does not have, previews a creation.
 */
export async function previewExperience(
  db: HttpDb,
  wineryId: string,
  input: ExperienceInput,
  today = todayUtc(),
): Promise<ExperiencePreview> {
  const id = input.id ?? crypto.randomUUID();
  const reads = stateQueries(db, wineryId, id);
  const [[current], slotRows] = input.id
    ? await db.batch([reads.experience, reads.slots])
    : [[], []];
  return describePlan(
    planExperience(id, toState(current, slotRows), input, today),
    input.id ?? null,
  );
}

export function describePlan(plan: ExperiencePlan, experienceId: string | null): ExperiencePreview {
  return {
    experienceId,
    changedFields: plan.changedFields,
    slots: {
      create: plan.slots.create.map((s) => ({
        date: s.date,
        time: localTime(s.time),
        maxParties: s.maxParties,
        minParties: s.minParties,
        enabledLanguages: s.enabledLanguages,
        defaultLanguages: s.defaultLanguages,
        active: s.active,
        series: s.parentSlotId !== null || plan.slots.create.some((o) => o.parentSlotId === s.id),
        extraData: s.extraData,
      })),
      update: plan.slots.update.map(({ before, after }) => ({
        slotId: before.id,
        date: before.date,
        time: localTime(before.time),
        changes: changedSlotFields(before, after).map((field) => ({
          field,
          before: field === "time" ? localTime(before.time) : before[field],
          after: field === "time" ? localTime(after.time) : after[field],
        })),
      })),
      delete: plan.slots.delete.map((s) => ({
        slotId: s.id,
        date: s.date,
        time: localTime(s.time),
        occupiedCount: occupantsOf(s),
      })),
    },
    conflicts: plan.conflicts.map((c) => ({ ...c, time: localTime(c.time) })),
    integrations: plan.integrations,
  };
}
