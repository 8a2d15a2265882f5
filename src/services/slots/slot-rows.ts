import { and, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import { reservations, slots } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import { localTime, type Slot } from "../../schemas/slots";
import { occupantsOf, type SlotDiff, type SlotState } from "./slot-set";

export type SlotRow = typeof slots.$inferSelect;

/**
 * A slot row plus the ids of the reservations on it (a subquery in the same statement, so reads
 * that plan on slots, E8 and E9 and the experience save, still cost what they did), for conflicts
 * to name the reservations a change would touch.
 */
export const slotColumnsWithReservations = {
  ...getTableColumns(slots),
  // Qualified by hand: Drizzle renders a select field's columns unqualified, which inside the
  // subquery would name the reservation's own id.
  reservationIds: sql<string[]>`array(select r.id::text from reservations r
    where r.winery_id = "slots"."winery_id" and r.slot_id = "slots"."id" order by r.id)`,
};

export function toSlotState(row: SlotRow & { reservationIds?: string[] }): SlotState {
  return {
    id: row.id,
    experienceId: row.experienceId,
    date: row.date,
    time: row.time,
    maxParties: row.maxParties,
    minParties: row.minParties,
    enabledLanguages: row.enabledLanguages,
    defaultLanguages: row.defaultLanguages,
    active: row.active,
    parentSlotId: row.parentSlotId,
    manuallyModified: row.manuallyModified,
    reservedCount: row.reservedCount,
    externalOccupants: row.externalOccupants,
    extraData: row.extraData,
    ...(row.reservationIds && { reservationIds: row.reservationIds }),
  };
}

/** The wire Slot. Timestamps of a slot not yet written (a dry run) are `now`. */
export function toSlot(state: SlotState, stamps?: { createdAt: Date; updatedAt: Date }): Slot {
  const now = new Date().toISOString();
  const occupiedCount = occupantsOf(state);
  return {
    id: state.id,
    experienceId: state.experienceId,
    date: state.date,
    time: localTime(state.time),
    maxParties: state.maxParties,
    minParties: state.minParties,
    enabledLanguages: state.enabledLanguages,
    defaultLanguages: state.defaultLanguages,
    active: state.active,
    parentSlotId: state.parentSlotId,
    manuallyModified: state.manuallyModified,
    reservedCount: state.reservedCount,
    externalOccupants: state.externalOccupants,
    occupiedCount,
    availableSeats: Math.max(0, state.maxParties - occupiedCount),
    extraData: state.extraData,
    createdAt: stamps?.createdAt.toISOString() ?? now,
    updatedAt: stamps?.updatedAt.toISOString() ?? now,
  };
}

/** Rows per INSERT: 16 parameters a row stays well under Postgres' 65,535 per statement. */
const INSERT_CHUNK = 2000;

/**
 * Writes a planned diff inside the caller's transaction, in a number of statements that does not
 * grow with the number of slots: the inserts (one per 2,000 slots), one UPDATE of every changed slot
 * from a json recordset, one DELETE. The caller has locked the rows the diff touches (SELECT ...
 * FOR UPDATE), so nothing changed them since they were planned on; the affected-row counts are
 * still checked, and a mismatch aborts the transaction. Deletes go first and inserts last, so a
 * slot planned where another was deleted or moved away from does not trip the (date, time) key.
 */
export async function writeSlotDiff(tx: AnyDb, wineryId: string, diff: SlotDiff): Promise<void> {
  if (diff.delete.length > 0) {
    const deleted = await tx
      .delete(slots)
      .where(
        and(
          eq(slots.wineryId, wineryId),
          inArray(
            slots.id,
            diff.delete.map((s) => s.id),
          ),
        ),
      )
      .returning({ id: slots.id });
    assertCount("delete", { rowCount: deleted.length }, diff.delete.length);
  }
  if (diff.update.length > 0) {
    const rows = diff.update.map(({ after }) => ({
      id: after.id,
      date: after.date,
      time: after.time,
      max_parties: after.maxParties,
      min_parties: after.minParties,
      enabled_languages: after.enabledLanguages,
      default_languages: after.defaultLanguages,
      active: after.active,
      manually_modified: after.manuallyModified,
      external_occupants: after.externalOccupants,
      extra_data: after.extraData,
    }));
    const result = await tx.execute(sql`
      update ${slots} s set
        date = v.date, time = v.time, max_parties = v.max_parties, min_parties = v.min_parties,
        enabled_languages = array(select jsonb_array_elements_text(v.enabled_languages)),
        default_languages = array(select jsonb_array_elements_text(v.default_languages)),
        active = v.active, manually_modified = v.manually_modified,
        external_occupants = v.external_occupants, extra_data = v.extra_data, updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
        id uuid, date date, time time, max_parties int, min_parties int, enabled_languages jsonb,
        default_languages jsonb, active boolean, manually_modified boolean, external_occupants int,
        extra_data jsonb)
      where s.id = v.id and s.winery_id = ${wineryId}`);
    assertCount("update", result, diff.update.length);
    // A reservation is at its slot's date and time: a moved slot takes its reservations along,
    // seats and all (only E9 with ignoreOccupiedSlot moves an occupied slot; a save refuses to).
    // Their updatedAt moves too, in the server's UTC clock as when an import sends none, so that
    // a client syncing by updatedAt sees the move.
    const moved = diff.update
      .filter(({ before, after }) => before.date !== after.date || before.time !== after.time)
      .map(({ after }) => after.id);
    if (moved.length > 0) {
      await tx.execute(sql`
        update ${reservations} r set date = s.date, time = s.time,
          updated_at = (now() at time zone 'utc')
        from ${slots} s
        where s.winery_id = ${wineryId}
          and s.id in (select jsonb_array_elements_text(${JSON.stringify(moved)}::jsonb)::uuid)
          and r.winery_id = ${wineryId} and r.slot_id = s.id`);
    }
  }
  for (let i = 0; i < diff.create.length; i += INSERT_CHUNK) {
    const rows = diff.create.slice(i, i + INSERT_CHUNK).map((s) => ({ ...s, wineryId }));
    await tx.insert(slots).values(rows);
  }
}

function assertCount(what: string, result: unknown, expected: number) {
  const count = (result as { rowCount?: number | null }).rowCount;
  if (count !== expected) {
    throw new Error(`slot ${what} touched ${count} rows, planned ${expected}`);
  }
}
