/**
 * The slots a plan works on, in memory: the rows read (and locked) at the start, then every
 * create, update and delete a save or an E9 call makes, one after the other. `diff()` gives the net
 * change against the rows read; conflicts are judged on that net change, so a request that shrinks
 * a slot and a later one that grows it back is no conflict. Pure: no database, no clock.
 */

export interface SlotState {
  id: string;
  experienceId: string;
  date: string;
  /** "HH:MM:SS". */
  time: string;
  maxParties: number;
  minParties: number;
  enabledLanguages: string[];
  defaultLanguages: string[];
  active: boolean;
  parentSlotId: string | null;
  manuallyModified: boolean;
  reservedCount: number;
  externalOccupants: number;
  extraData: Record<string, unknown> | null;
  /** The reservations on the slot as read (never written back): what a conflict names. */
  reservationIds?: string[];
}

export const occupantsOf = (slot: SlotState) => slot.reservedCount + slot.externalOccupants;

export interface SlotDiff {
  create: SlotState[];
  update: { before: SlotState; after: SlotState }[];
  /** The deleted slots as read. */
  delete: SlotState[];
  /**
   * A deleted slot's state when it was deleted, where earlier requests of the call changed it (its
   * occupants emptied first: see changeConflict). Absent: as read.
   */
  deletedAs?: ReadonlyMap<string, SlotState>;
}

export type ConflictReason =
  | "DELETES_OCCUPIED_SLOT"
  | "MOVES_OCCUPIED_SLOT"
  | "BELOW_OCCUPANTS"
  /** E9: a slot would move onto this one's date and time. */
  | "SLOT_EXISTS";

export interface SlotConflict {
  slotId: string;
  experienceId: string;
  date: string;
  time: string;
  occupiedCount: number;
  maxParties: number;
  reason: ConflictReason;
  /** The reservations the change would touch (decisions.md, E8 and E9). */
  reservationIds: string[];
}

/**
 * Fields a plan may change on a slot (identity, series and reservation counts excepted). Also what
 * E9's one-request create checks the slots Postgres made against (SLOT_VALUES derives from it).
 */
export const SLOT_FIELDS = [
  "date",
  "time",
  "maxParties",
  "minParties",
  "enabledLanguages",
  "defaultLanguages",
  "active",
  "manuallyModified",
  "externalOccupants",
  "extraData",
] as const;
export type SlotField = (typeof SLOT_FIELDS)[number];

/**
 * Whether two values are the same JSON once object keys are sorted (canonicalJson). Strings,
 * finite numbers, booleans and arrays of strings, what slots and most experience fields hold, are
 * compared directly, which gives the same answer without serialising them.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const type = typeof a;
  if (type === typeof b && (type === "string" || type === "boolean")) return false;
  if (type === "number" && typeof b === "number" && Number.isFinite(a) && Number.isFinite(b))
    return false;
  if (Array.isArray(a) && Array.isArray(b) && isStrings(a) && isStrings(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  return canonicalJson(a) === canonicalJson(b);
}

/** Every element a string (a hole is not). */
function isStrings(list: unknown[]): boolean {
  for (let i = 0; i < list.length; i++) if (typeof list[i] !== "string") return false;
  return true;
}

/** JSON with object keys sorted, so values read back from jsonb compare equal to the input. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * What a plan read of the slots it was given (SlotSet records it when given one): the slots it
 * looked up by id, the (experience, date, time) keys it looked at (`slotKey`), the series it
 * walked by their root, whether it walked them all, and the experiences whose values it read. A plan depends on those slots alone, so E9's
 * one-request path (slot-actions-in-one-request.ts) writes it only while they are as read.
 */
export interface SlotReads {
  ids: Set<string>;
  keys: Set<string>;
  roots: Set<string>;
  all: boolean;
  /** The experiences whose values the plan read (E9: a CREATE's defaults). */
  experiences: Set<string>;
}

export const noReads = (): SlotReads => ({
  ids: new Set(),
  keys: new Set(),
  roots: new Set(),
  all: false,
  experiences: new Set(),
});

/** A slot's (experience, date, time), as SlotReads.keys holds it. */
export const slotKey = (s: Pick<SlotState, "experienceId" | "date" | "time">) =>
  `${s.experienceId}|${s.date}|${s.time}`;

export class SlotSet {
  private readonly original = new Map<string, SlotState>();
  private readonly current = new Map<string, SlotState>();
  private readonly byKey = new Map<string, string>();
  private readonly order: string[] = [];
  /** The ids of each series (its first slot's id: parentSlotId, or its own), in `order`. */
  private readonly bySeries = new Map<string, string[]>();
  /** Each deleted slot's state when it was deleted. */
  private readonly deletedAs = new Map<string, SlotState>();

  constructor(
    rows: SlotState[],
    private readonly reads?: SlotReads,
  ) {
    for (const row of rows) {
      this.original.set(row.id, row);
      this.put(row);
    }
  }

  private put(slot: SlotState) {
    if (!this.current.has(slot.id)) {
      this.order.push(slot.id);
      const root = slot.parentSlotId ?? slot.id;
      const members = this.bySeries.get(root);
      if (members) members.push(slot.id);
      else this.bySeries.set(root, [slot.id]);
    }
    this.current.set(slot.id, slot);
    this.byKey.set(slotKey(slot), slot.id);
  }

  get(id: string): SlotState | undefined {
    this.reads?.ids.add(id);
    return this.current.get(id);
  }

  at(experienceId: string, date: string, time: string): SlotState | undefined {
    const key = slotKey({ experienceId, date, time });
    this.reads?.keys.add(key);
    const id = this.byKey.get(key);
    return id === undefined ? undefined : this.current.get(id);
  }

  /** Slots in the order they were read or created, filtered. */
  filter(keep: (slot: SlotState) => boolean): SlotState[] {
    if (this.reads) this.reads.all = true;
    const slots: SlotState[] = [];
    for (const id of this.order) {
      const slot = this.current.get(id);
      if (slot && keep(slot)) slots.push(slot);
    }
    return slots;
  }

  /**
   * The slots of the series `root` names (the slot with that id and those whose parentSlotId it
   * is), in the order they were read or created: from an index, not a walk of every slot (a call
   * of 1,000 series actions over 9,000 slots walked 9 million).
   */
  series(root: string): SlotState[] {
    this.reads?.roots.add(root);
    const slots: SlotState[] = [];
    // A slot named as a root that is itself in a series is its own one-slot series.
    const self = this.current.get(root);
    if (self?.parentSlotId != null) slots.push(self);
    for (const id of this.bySeries.get(root) ?? []) {
      const slot = this.current.get(id);
      if (slot) slots.push(slot);
    }
    return slots;
  }

  create(slot: SlotState) {
    this.put(slot);
  }

  /** Replaces a slot's state; the caller has checked that a move lands on a free (date, time). */
  update(id: string, after: SlotState) {
    const before = this.current.get(id);
    if (!before) return;
    this.current.set(id, after);
    if (before.date === after.date && before.time === after.time) return; // its key stays
    this.byKey.delete(slotKey(before));
    this.byKey.set(slotKey(after), id);
  }

  delete(id: string) {
    const slot = this.current.get(id);
    if (!slot) return;
    this.current.delete(id);
    this.byKey.delete(slotKey(slot));
    this.deletedAs.set(id, slot);
  }

  diff(): SlotDiff {
    const diff: SlotDiff = { create: [], update: [], delete: [], deletedAs: this.deletedAs };
    for (const id of this.order) {
      const before = this.original.get(id);
      const after = this.current.get(id);
      if (!before && after) diff.create.push(after);
      else if (before && !after) diff.delete.push(before);
      else if (before && after && changedSlotFields(before, after).length > 0)
        diff.update.push({ before, after });
    }
    return diff;
  }
}

export function changedSlotFields(before: SlotState, after: SlotState): SlotField[] {
  return SLOT_FIELDS.filter((field) => !sameValue(before[field], after[field]));
}

/** The occupants of `before` still on the slot as `last` (see changeConflict). */
const displaced = (before: SlotState, last: SlotState) =>
  before.reservedCount + Math.min(before.externalOccupants, last.externalOccupants);

/** The conflict `slot` is in, for `reason`. */
export const conflictOf = (slot: SlotState, reason: ConflictReason): SlotConflict => ({
  slotId: slot.id,
  experienceId: slot.experienceId,
  date: slot.date,
  time: slot.time,
  occupiedCount: occupantsOf(slot),
  maxParties: slot.maxParties,
  reason,
  reservationIds: slot.reservationIds ?? [],
});

/** What the net change does to occupied slots: deleted, moved, or shrunk below their occupants. */
export function findConflicts(diff: SlotDiff): SlotConflict[] {
  const conflicts: SlotConflict[] = [];
  for (const slot of diff.delete) {
    const reason = changeConflict(slot, undefined, diff.deletedAs?.get(slot.id));
    if (reason) conflicts.push(conflictOf(slot, reason));
  }
  for (const { before, after } of diff.update) {
    const reason = changeConflict(before, after);
    if (reason)
      conflicts.push(conflictOf(reason === "MOVES_OCCUPIED_SLOT" ? before : after, reason));
  }
  for (const slot of diff.create) {
    const reason = changeConflict(undefined, slot);
    if (reason) conflicts.push(conflictOf(slot, reason));
  }
  return conflicts;
}

/**
 * The conflict a change of one slot makes, if any (`undefined` for a slot absent before or after):
 * an occupied slot deleted or moved, or one left with more occupants than maxParties by that
 * change (its maxParties lowered or its occupants raised). `deletedAs`: a deleted slot's state when
 * it was deleted (earlier requests of the call may have changed it), else `before`.
 *
 * Occupied means occupants the change displaces: the slot's reservations, and its external
 * occupants unless the same call emptied them (the least of their count before and after, so a
 * call that sets newOccupantsCount 0 and deletes or moves the slot is no conflict, as the same
 * two changes in two calls are none; one that moves an empty slot and then fills it neither).
 */
export function changeConflict(
  before: SlotState | undefined,
  after: SlotState | undefined,
  deletedAs: SlotState | undefined = before,
): ConflictReason | undefined {
  if (!after)
    return before && deletedAs && displaced(before, deletedAs) > 0
      ? "DELETES_OCCUPIED_SLOT"
      : undefined;
  const overfull = occupantsOf(after) > after.maxParties;
  if (!before) return overfull ? "BELOW_OCCUPANTS" : undefined;
  if (displaced(before, after) > 0 && (before.date !== after.date || before.time !== after.time))
    return "MOVES_OCCUPIED_SLOT";
  if (
    overfull &&
    (after.maxParties < before.maxParties || occupantsOf(after) > occupantsOf(before))
  )
    return "BELOW_OCCUPANTS";
  return undefined;
}
