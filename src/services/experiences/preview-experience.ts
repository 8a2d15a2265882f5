import type { HttpDb } from "../../db/client";
import { rawQuery } from "../../db/raw-batch";
import { todayUtc } from "../../lib/calendar";
import type { ExperiencePreview } from "../../schemas/experience-preview";
import type { ExperienceInput } from "../../schemas/experiences";
import { localTime } from "../../schemas/slots";
import { changedSlotFields, occupantsOf } from "../slots/slot-set";
import { type ExperiencePlan, type ExperienceState, planExperience } from "./plan-experience";
import { experienceState, slotStatesJson } from "./save-in-one-request";

/**
 * The state a preview plans on, as ONE statement of fixed text (no query built per call): the
 * experience row (row_to_json, its columns mapped onto the fields below) and its slots as the
 * planner's SlotState, in (date, time) order, with the reservations on each (what a conflict
 * names). Dates and times as Postgres' text, as drizzle reads them.
 *
 * $3, today's date, when the input has no `slotsRequests`: then only the slots from today on not
 * changed by hand are read. Without slot requests the plan is only propagation, which looks at no
 * other slot (planExperience's `propagate`), and a slot it does not touch is in no part of the plan
 * (SlotSet.diff lists changed slots only; conflicts are judged on that diff), so leaving them out
 * changes no answer, while an experience's long past no longer makes its preview dearer. The same
 * filter as the save's own statement (save-in-one-request.ts), its dates compared as the planner
 * compares them: as text, byte by byte (collate "C").
 * A slot request may name, move onto or meet any slot, so with them ($3 null) every slot is read.
 */
const STATE_SQL = `
select (select row_to_json(x) from experiences x where x.winery_id = $1 and x.id = $2)
    as experience,
  ${slotStatesJson("$3::text")} as slots`;

async function readState(
  db: HttpDb,
  wineryId: string,
  id: string,
  onlyFrom: string | null,
): Promise<ExperienceState> {
  const [row] = await rawQuery(db, STATE_SQL, [wineryId, id, onlyFrom]);
  return experienceState(row?.experience as Record<string, unknown> | null | undefined, row?.slots);
}

/**
 * E8: the plan a save of this input would apply, computed by the save's own planning function on
 * the same state, and nothing written. One round trip (the experience and its slots in one
 * statement). An input without `id`, or with an id the winery does not have, previews a creation.
 */
export async function previewExperience(
  db: HttpDb,
  wineryId: string,
  input: ExperienceInput,
  today = todayUtc(),
): Promise<ExperiencePreview> {
  const id = input.id ?? crypto.randomUUID();
  const state: ExperienceState = input.id
    ? await readState(db, wineryId, id, input.slotsRequests?.length ? null : today)
    : { values: null, slots: [] };
  return describePlan(planExperience(id, state, input, today), input.id ?? null);
}

export function describePlan(plan: ExperiencePlan, experienceId: string | null): ExperiencePreview {
  // The first slot of a new series is its parent: named by the others, not by a parentSlotId.
  const parents = new Set<string | null>(plan.slots.create.map((s) => s.parentSlotId));
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
        series: s.parentSlotId !== null || parents.has(s.id),
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
