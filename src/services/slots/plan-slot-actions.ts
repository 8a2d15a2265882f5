/**
 * E9's plan: every request of a call, in order, on the slots read (and locked) at its start. Pure.
 * Throws NotFoundError for an experience or slot the winery does not have, ValidationError naming
 * `requests[i].field`, AppError CONFLICT for a move onto another slot's date and time, and
 * SlotConflictError when the net change deletes, moves or shrinks below its occupants an occupied
 * slot, unless the requests that made that change carry ignoreOccupiedSlot.
 */
import { eachDay, weekDayOf } from "../../lib/calendar";
import { AppError, type FieldError, NotFoundError, ValidationError } from "../../lib/errors";
import type { SlotActionRequest } from "../../schemas/slot-actions";
import { localTime } from "../../schemas/slots";
import { MAX_SLOTS_PER_CALL } from "./limits";
import { SlotConflictError, slotConflictMembers } from "./slot-conflict-error";
import {
  type ConflictReason,
  changeConflict,
  conflictOf,
  findConflicts,
  type SlotDiff,
  type SlotReads,
  SlotSet,
  type SlotState,
} from "./slot-set";

/** The largest value of an int4 column (occupied_count). */
const INT4_MAX = 2_147_483_647;

export interface ExperienceDefaults {
  id: string;
  maxParties: number | null;
  minPartiesToEnable: number | null;
  languagesIsoCode: unknown;
}

export interface SkippedSlot {
  requestIndex: number;
  slotId: string | null;
  experienceId: string;
  date: string;
  /** "HH:MM:SS". */
  time: string;
  reason: "ALREADY_EXISTS" | "MANUALLY_MODIFIED";
}

/** The skipped slots as the answer reports them: time a LocalTime object, as its slots have it. */
export const skippedAnswer = (skipped: SkippedSlot[]) =>
  skipped.map((slot) => ({ ...slot, time: localTime(slot.time) }));

export interface SlotActionsPlan {
  dryRun: boolean;
  diff: SlotDiff;
  skipped: SkippedSlot[];
}

const stringList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/**
 * `newId` names each slot a CREATE makes, in the order they are made (request by request, date by
 * date): random uuids, or the ids a write that already made them chose (createSlotsInOneRequest).
 * `reads`, when given, receives what the plan read of `rows` (SlotReads).
 */
export function planSlotActions(
  requests: SlotActionRequest[],
  experiences: Map<string, ExperienceDefaults>,
  rows: SlotState[],
  newId: () => string = () => crypto.randomUUID(),
  reads?: SlotReads,
): SlotActionsPlan {
  const set = new SlotSet(rows, reads);
  const errors: FieldError[] = [];
  const skipped: SkippedSlot[] = [];
  const mayOverfill = new Set<string>();
  // Per slot, the conflicts a request without ignoreOccupiedSlot made by its own change: another
  // request's flag on the same slot does not excuse them.
  const unexcused = new Map<string, Set<ConflictReason>>();
  const refuseUnlessFlagged = (r: SlotActionRequest, before?: SlotState, after?: SlotState) => {
    const id = before?.id ?? after?.id;
    const reason = r.ignoreOccupiedSlot ? undefined : changeConflict(before, after);
    if (id && reason) unexcused.set(id, (unexcused.get(id) ?? new Set()).add(reason));
  };
  let created = 0;

  const planOne = (r: SlotActionRequest, index: number): boolean => {
    const fail = (field: string, message: string) => {
      errors.push({ path: `requests[${index}].${field}`, message });
      return false;
    };
    const inRange = (date: string) =>
      (!r.startFromValid || date >= r.startFromValid) &&
      (!r.endToValid || date <= r.endToValid) &&
      (!r.weekDays || r.weekDays.has(weekDayOf(date)));

    if (r.action === "CREATE") {
      if (!r.experienceId) return fail("experienceId", "is required for CREATE");
      reads?.experiences.add(r.experienceId);
      const experience = experiences.get(r.experienceId);
      if (!experience) throw new NotFoundError("Experience", r.experienceId);
      if (!r.time) return fail("time", "is required for CREATE");
      let dates: string[];
      if (r.day) dates = [r.day];
      else if (r.startFromValid && r.endToValid)
        dates = eachDay(r.startFromValid, r.endToValid, inRange);
      else if (r.startFromValid) return fail("endToValid", "is required with startFromValid");
      else if (r.endToValid) return fail("startFromValid", "is required with endToValid");
      else return fail("day", "give day, or startFromValid and endToValid");
      const maxParties = r.newMaxParties ?? experience.maxParties;
      if (maxParties == null)
        return fail("newMaxParties", "is required: the experience has no maxParties");
      const minParties = r.newMinParties ?? experience.minPartiesToEnable ?? 1;
      // UPDATE's rule: a new* value may not leave a slot whose minimum exceeds its capacity.
      if (minParties > maxParties && (r.newMinParties != null || r.newMaxParties != null))
        return fail(
          r.newMinParties != null ? "newMinParties" : "newMaxParties",
          "minParties must not exceed maxParties",
        );
      let parentSlotId: string | null = null;
      for (const date of dates) {
        const existing = set.at(experience.id, date, r.time);
        if (existing) {
          skipped.push({
            requestIndex: index,
            slotId: existing.id,
            experienceId: experience.id,
            date,
            time: r.time,
            reason: "ALREADY_EXISTS",
          });
          continue;
        }
        if (++created > MAX_SLOTS_PER_CALL)
          return fail("endToValid", `one call creates at most ${MAX_SLOTS_PER_CALL} slots`);
        const id = newId();
        const slot: SlotState = {
          id,
          experienceId: experience.id,
          date,
          time: r.time,
          maxParties,
          minParties,
          enabledLanguages: r.newEnabledLanguages ?? stringList(experience.languagesIsoCode),
          defaultLanguages: r.newDefaultLanguages ?? [],
          active: r.newActive ?? true,
          parentSlotId: dates.length > 1 ? parentSlotId : null,
          manuallyModified: false,
          reservedCount: 0,
          externalOccupants: r.newOccupantsCount ?? 0,
          extraData: r.extraData ?? null,
        };
        refuseUnlessFlagged(r, undefined, slot);
        set.create(slot);
        if (r.ignoreOccupiedSlot) mayOverfill.add(id);
        parentSlotId ??= id;
      }
      return true;
    }

    // UPDATE and DELETE: one slot, part of its series, or a series, optionally within a range.
    const series = (root: string) => set.series(root);
    let targets: SlotState[];
    const direct = Boolean(r.slotId) && (r.effectPolicy ?? "SINGLE") === "SINGLE";
    if (r.slotId) {
      const slot = set.get(r.slotId);
      if (!slot || (r.experienceId && slot.experienceId !== r.experienceId))
        throw new NotFoundError("Slot", r.slotId);
      const root = slot.parentSlotId ?? slot.id;
      const at = `${slot.date} ${slot.time}`;
      if (direct) targets = [slot];
      else if (r.effectPolicy === "FOLLOWING")
        targets = series(root).filter((s) => `${s.date} ${s.time}` >= at && inRange(s.date));
      else targets = series(root).filter((s) => inRange(s.date));
    } else if (r.parentSlotId) {
      const all = series(r.parentSlotId).filter(
        (s) => !r.experienceId || s.experienceId === r.experienceId,
      );
      if (all.length === 0) throw new NotFoundError("Slot series", r.parentSlotId);
      targets = all.filter((s) => inRange(s.date));
    } else {
      return fail("slotId", `slotId or parentSlotId is required for ${r.action}`);
    }
    if (r.action === "UPDATE" && r.newDay && !direct)
      return fail("newDay", "moves a single slot only (slotId with effectPolicy SINGLE)");

    for (const slot of targets) {
      if (!direct && slot.manuallyModified && !r.ignoreManualModification) {
        skipped.push({
          requestIndex: index,
          slotId: slot.id,
          experienceId: slot.experienceId,
          date: slot.date,
          time: slot.time,
          reason: "MANUALLY_MODIFIED",
        });
        continue;
      }
      if (r.ignoreOccupiedSlot) mayOverfill.add(slot.id);
      if (r.action === "DELETE") {
        refuseUnlessFlagged(r, slot);
        set.delete(slot.id);
        continue;
      }
      const after: SlotState = {
        ...slot,
        date: r.newDay ?? slot.date,
        time: r.newTime ?? slot.time,
        maxParties: r.newMaxParties ?? slot.maxParties,
        minParties: r.newMinParties ?? slot.minParties,
        enabledLanguages: r.newEnabledLanguages ?? slot.enabledLanguages,
        defaultLanguages: r.newDefaultLanguages ?? slot.defaultLanguages,
        active: r.newActive ?? slot.active,
        externalOccupants: r.newOccupantsCount ?? slot.externalOccupants,
        extraData: r.extraData ?? slot.extraData,
        // A slot changed on its own is "by hand"; a series action that overrode it brings it back.
        manuallyModified: direct ? true : slot.manuallyModified && !r.ignoreManualModification,
      };
      if (
        after.minParties > after.maxParties &&
        (r.newMinParties != null || r.newMaxParties != null)
      )
        return fail(
          r.newMinParties != null ? "newMinParties" : "newMaxParties",
          "minParties must not exceed maxParties",
        );
      // occupied_count (reserved + external) is an int4 column: past its range the write failed
      // with an unnamed 400 while the dry run answered 200.
      if (r.newOccupantsCount != null && slot.reservedCount + after.externalOccupants > INT4_MAX)
        return fail(
          "newOccupantsCount",
          `with the slot's ${slot.reservedCount} reserved seat(s), its occupants would exceed ${INT4_MAX}`,
        );
      const moved = after.date !== slot.date || after.time !== slot.time;
      const other = moved ? set.at(after.experienceId, after.date, after.time) : undefined;
      if (other && other.id !== slot.id) {
        throw new AppError(
          "CONFLICT",
          `Slot ${slot.id} cannot move to ${after.date} ${after.time}: slot ${other.id} is there.`,
          { extensions: slotConflictMembers([conflictOf(other, "SLOT_EXISTS")]) },
        );
      }
      refuseUnlessFlagged(r, slot, after);
      set.update(slot.id, after);
    }
    return true;
  };
  requests.forEach((r, index) => {
    planOne(r, index);
  });

  if (errors.length > 0) throw new ValidationError(errors);
  const diff = set.diff();
  // The call's net change decides (a slot shrunk by one request and emptied by a later one is no
  // conflict); ignoreOccupiedSlot excuses a conflict its own request made, not another's.
  const conflicts = findConflicts(diff).filter(
    (c) => !mayOverfill.has(c.slotId) || unexcused.get(c.slotId)?.has(c.reason),
  );
  if (conflicts.length > 0)
    throw new SlotConflictError(
      conflicts,
      "Set ignoreOccupiedSlot on the request to apply it anyway.",
    );
  return { dryRun: requests.some((r) => r.dryRun === true), diff, skipped };
}
