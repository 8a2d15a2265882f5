import { daysBetween, eachDay, weekDayOf } from "../../lib/calendar";
import { type FieldError, ValidationError } from "../../lib/errors";
import type { SlotRequest } from "../../schemas/experience-parts";
import type { ExperienceValues } from "../../schemas/experiences";
import { MAX_RANGE_DAYS, MAX_SLOTS_PER_CALL } from "../slots/limits";
import { conflictOf, type SlotConflict, type SlotSet, type SlotState } from "../slots/slot-set";

/**
 * The `slotsRequests` of a save, in order:
 * - with `id` (a slot of this experience): that slot is changed by hand: moved to `day`/`time`,
 *   given `maxParties`, `minPartiesToEnable`, `languages`, `extraData` where sent; it is marked
 *   manually modified;
 * - otherwise `time` and either `day` or the range `validityStart`..`validityEnd` (at most 366 days,
 *   on `dayOfWeek` only when given): the slot at each (date, time) is created, or updated with the
 *   fields sent when it exists. New slots take the experience's maxParties (required when the
 *   request has none), minPartiesToEnable (default 1), languagesIsoCode and active (default
 *   true); the slots of a range form a series whose parent is its first new slot.
 *
 * A move onto the date and time another slot holds at that point is not made: it is answered, as
 * E9 answers it, by a SLOT_EXISTS conflict naming that slot (the save's 409, E8's `conflicts`).
 */
export function applySlotRequests(
  set: SlotSet,
  experienceId: string,
  values: ExperienceValues,
  requests: SlotRequest[],
): SlotConflict[] {
  const errors: FieldError[] = [];
  const taken: SlotConflict[] = [];
  let created = 0;
  requests.forEach((request, index) => {
    const at = (field: string) => `slotsRequests[${index}].${field}`;
    const fail = (field: string, message: string) => errors.push({ path: at(field), message });
    const patch = (slot: SlotState): SlotState => ({
      ...slot,
      maxParties: request.maxParties ?? slot.maxParties,
      minParties: request.minPartiesToEnable ?? slot.minParties,
      enabledLanguages: request.languages ?? slot.enabledLanguages,
      extraData: request.extraData ?? slot.extraData,
    });

    // An id sent ("" included) names a slot; null or left out, new slots.
    if (request.id != null) {
      const slot = set.get(request.id);
      if (!slot || slot.experienceId !== experienceId) {
        fail("id", "is not a slot of this experience");
        return;
      }
      const moved = {
        ...patch(slot),
        date: request.day ?? slot.date,
        time: request.time ?? slot.time,
      };
      const other = set.at(experienceId, moved.date, moved.time);
      if (other && other.id !== slot.id) {
        taken.push(conflictOf(other, "SLOT_EXISTS"));
        return;
      }
      set.update(slot.id, { ...moved, manuallyModified: true });
      return;
    }

    if (!request.time) {
      fail("time", "is required without an id");
      return;
    }
    let dates: string[];
    if (request.day) dates = [request.day];
    else if (request.validityStart && request.validityEnd) {
      const { validityStart: from, validityEnd: to } = request;
      if (to < from) {
        fail("validityEnd", "must not be before validityStart");
        return;
      }
      if (daysBetween(from, to) >= MAX_RANGE_DAYS) {
        fail("validityEnd", `the range spans at most ${MAX_RANGE_DAYS} days`);
        return;
      }
      dates = eachDay(from, to, (d) => !request.dayOfWeek || weekDayOf(d) === request.dayOfWeek);
    } else {
      fail("day", "give day, or validityStart and validityEnd");
      return;
    }

    let parentSlotId: string | null = null;
    for (const date of dates) {
      const existing = set.at(experienceId, date, request.time);
      if (existing) {
        set.update(existing.id, patch(existing));
        continue;
      }
      const maxParties = request.maxParties ?? values.maxParties;
      if (maxParties == null) {
        fail("maxParties", "is required when the experience has no maxParties");
        return;
      }
      if (++created > MAX_SLOTS_PER_CALL) {
        fail("validityEnd", `a save creates at most ${MAX_SLOTS_PER_CALL} slots`);
        return;
      }
      const id = crypto.randomUUID();
      set.create({
        id,
        experienceId,
        date,
        time: request.time,
        maxParties,
        minParties: request.minPartiesToEnable ?? values.minPartiesToEnable ?? 1,
        enabledLanguages: request.languages ?? values.languagesIsoCode ?? [],
        defaultLanguages: [],
        // An inactive experience's new slots are inactive too, as the save that deactivates it
        // makes its existing ones (propagate, plan-experience.ts). E9's CREATE keeps its own
        // documented default (newActive, else true): there the caller sets each slot.
        active: values.active ?? true,
        parentSlotId: dates.length > 1 ? parentSlotId : null,
        manuallyModified: false,
        reservedCount: 0,
        externalOccupants: 0,
        extraData: request.extraData ?? null,
      });
      parentSlotId ??= id;
    }
  });
  if (errors.length > 0) throw new ValidationError(errors);
  return taken;
}
