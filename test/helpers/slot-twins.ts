import { AppError } from "../../src/lib/errors";
import type { slotRows } from "./experiences";

/**
 * Comparing what two paths did to twin experiences (the same slots, made apart, so their ids
 * differ): each slot is named by its date and time before the call.
 */
export type SlotRow = Awaited<ReturnType<typeof slotRows>>[number];

const nameOf = (slot: { date: string; time: unknown }) =>
  `${slot.date} ${typeof slot.time === "string" ? slot.time : JSON.stringify(slot.time)}`;

/** Each slot's name: its date and time in `before` (else in `after`, for the slots made). */
export function slotNames(before: SlotRow[], after: SlotRow[]): Map<string, string> {
  return new Map([...after, ...before].map((row) => [row.id, nameOf(row)]));
}

/** Slot rows without what differs between twins (ids, stamps), by their names. */
export function normalizeRows(rows: SlotRow[], named: Map<string, string>) {
  return rows.map(
    ({ id, experienceId, wineryId, createdAt, updatedAt, parentSlotId, ...rest }) => ({
      ...rest,
      was: named.get(id),
      parent: parentSlotId ? (named.get(parentSlotId) ?? "gone") : null,
    }),
  );
}

/** A refusal (AppError) as both twins must give it: code, field errors, the slots it names. */
export function normalizeRefusal(error: unknown, named: Map<string, string>) {
  if (!(error instanceof AppError)) throw error;
  return {
    code: error.code,
    errors: error.options.errors,
    slots: ((error.options.extensions?.slots as Record<string, unknown>[] | undefined) ?? []).map(
      ({ slotId, experienceId, ...rest }) => ({ ...rest, slot: named.get(String(slotId)) }),
    ),
  };
}
