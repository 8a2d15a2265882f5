/**
 * THE planning function of an experience save, shared by E8 (which only reports the plan) and the
 * PUT (which applies it in one transaction), so the preview can never disagree with the save.
 * Pure: the current state, the input and today's date in, the plan out.
 */
import {
  EXPERIENCE_FIELD_NAMES,
  type ExperienceField,
  type ExperienceInput,
  type ExperienceValues,
} from "../../schemas/experiences";
import {
  findConflicts,
  type SlotConflict,
  type SlotDiff,
  type SlotReads,
  SlotSet,
  type SlotState,
  sameValue,
} from "../slots/slot-set";
import { applySlotRequests } from "./slot-requests";

export interface ExperienceState {
  /** The stored values, or null when the experience does not exist yet. */
  values: ExperienceValues | null;
  /** The experience's slots. */
  slots: SlotState[];
}

type Integration = NonNullable<ExperienceValues["experienceIntegrations"]>[number];

export interface ExperiencePlan {
  experienceId: string;
  values: ExperienceValues;
  changedFields: { field: ExperienceField; before: unknown; after: unknown }[];
  slots: SlotDiff;
  conflicts: SlotConflict[];
  integrations: {
    added: Integration[];
    removed: Integration[];
    changed: { before: Integration; after: Integration }[];
  };
}

/** A save replaces the experience: a field absent from the input is stored as null. */
export function valuesOf(input: ExperienceInput): ExperienceValues {
  return Object.fromEntries(
    EXPERIENCE_FIELD_NAMES.map((name) => [name, input[name] ?? null]),
  ) as ExperienceValues;
}

const dateOf = (instant: string | null | undefined) =>
  instant ? new Date(Date.parse(instant)).toISOString().slice(0, 10) : null;

/**
 * The validity window of stored values: its instants as given (what tells whether a save changes
 * the window) and the first and last dates it covers (what a changed window keeps).
 */
export function validityWindow(values: ExperienceValues | null) {
  const validityFrom = values?.flatTranslations?.validityFrom ?? null;
  const validityTo = values?.flatTranslations?.validityTo ?? null;
  return { validityFrom, validityTo, from: dateOf(validityFrom), to: dateOf(validityTo) };
}

/** `reads`, when given, receives what the plan read of the slots (SlotReads). */
export function planExperience(
  experienceId: string,
  state: ExperienceState,
  input: ExperienceInput,
  today: string,
  reads?: SlotReads,
): ExperiencePlan {
  const values = valuesOf(input);
  const before = state.values;
  const changedFields = EXPERIENCE_FIELD_NAMES.flatMap((field) => {
    const was = before?.[field] ?? null;
    return sameValue(was, values[field]) ? [] : [{ field, before: was, after: values[field] }];
  });
  const changed = new Set(changedFields.map((c) => c.field));

  const set = new SlotSet(state.slots, reads);
  propagate(set, values, changed, before, today);
  const taken = applySlotRequests(set, experienceId, values, input.slotsRequests ?? []);
  const slots = set.diff();

  return {
    experienceId,
    values,
    changedFields,
    slots,
    conflicts: [...findConflicts(slots), ...taken],
    integrations: diffIntegrations(
      before?.experienceIntegrations ?? [],
      values.experienceIntegrations ?? [],
    ),
  };
}

/**
 * Experience-level changes reach the experience's slots from today on that were not changed by
 * hand: maxParties -> capacity, minPartiesToEnable -> minimum parties, languagesIsoCode -> enabled
 * languages, active -> active; a changed validity window (flatTranslations.validityFrom/To) deletes
 * the slots that fall outside it. Only a field that this save changes propagates.
 */
function propagate(
  set: SlotSet,
  values: ExperienceValues,
  changed: Set<ExperienceField>,
  before: ExperienceValues | null,
  today: string,
) {
  const { from, to, validityFrom, validityTo } = validityWindow(values);
  const was = validityWindow(before);
  const windowChanged =
    !sameValue(was.validityFrom, validityFrom) || !sameValue(was.validityTo, validityTo);
  const setMax = changed.has("maxParties") && values.maxParties !== null;
  const setMin = changed.has("minPartiesToEnable") && values.minPartiesToEnable !== null;
  const setLanguages = changed.has("languagesIsoCode") && values.languagesIsoCode !== null;
  const setActive = changed.has("active") && values.active !== null;
  const mayDelete = windowChanged && Boolean(from || to);
  // Nothing to set and nothing to delete: every slot would be rewritten with its own values,
  // which diff() drops, so the loop is skipped (the common save that leaves these fields alone).
  if (!setMax && !setMin && !setLanguages && !setActive && !mayDelete) return;
  for (const slot of set.filter((s) => s.date >= today && !s.manuallyModified)) {
    if (mayDelete && ((from && slot.date < from) || (to && slot.date > to))) {
      set.delete(slot.id);
      continue;
    }
    const after = { ...slot };
    if (setMax) after.maxParties = values.maxParties as number;
    if (setMin) after.minParties = values.minPartiesToEnable as number;
    if (setLanguages) after.enabledLanguages = values.languagesIsoCode as string[];
    if (setActive) after.active = values.active as boolean;
    set.update(slot.id, after);
  }
}

function diffIntegrations(before: Integration[], after: Integration[]) {
  // By integrationId as a uuid, whatever its letters' case; one without an id by its place.
  const keyOf = (i: Integration, index: number) => i.integrationId?.toLowerCase() ?? `#${index}`;
  const old = new Map(before.map((i, n) => [keyOf(i, n), i]));
  const now = new Map(after.map((i, n) => [keyOf(i, n), i]));
  return {
    added: [...now].filter(([k]) => !old.has(k)).map(([, i]) => i),
    removed: [...old].filter(([k]) => !now.has(k)).map(([, i]) => i),
    changed: [...now].flatMap(([k, i]) => {
      const was = old.get(k);
      return was && !sameValue(was, i) ? [{ before: was, after: i }] : [];
    }),
  };
}
