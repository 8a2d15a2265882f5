import { getTableColumns, type SQL, sql } from "drizzle-orm";
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

/**
 * Slot row `s` (any alias) as the planners' SlotState, built by Postgres (json): dates and times
 * as Postgres' text, as drizzle reads them, with the reservations on it (toSlotState's reading of
 * a row of slotColumnsWithReservations): what the read-then-batch paths plan on (slot-versions.ts)
 * and E9's one-slot statement answers (act-on-one-slot.ts).
 */
export const slotStateObject = (s: string) => `json_build_object(
      'id', ${s}.id, 'experienceId', ${s}.experience_id,
      'date', ${s}.date::text, 'time', ${s}.time::text, 'maxParties', ${s}.max_parties,
      'minParties', ${s}.min_parties, 'enabledLanguages', ${s}.enabled_languages,
      'defaultLanguages', ${s}.default_languages, 'active', ${s}.active,
      'parentSlotId', ${s}.parent_slot_id, 'manuallyModified', ${s}.manually_modified,
      'reservedCount', ${s}.reserved_count, 'externalOccupants', ${s}.external_occupants,
      'extraData', ${s}.extra_data,
      'reservationIds', array(select r.id::text from reservations r
        where r.winery_id = ${s}.winery_id and r.slot_id = ${s}.id order by r.id))`;

/** slotStateObject of a slot row named `s`. */
export const SLOT_STATE_OBJECT = slotStateObject("s");

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

/**
 * The statements that write a planned diff, in a number that does not grow with the number of
 * slots: one DELETE, one UPDATE of every changed slot from a json recordset, one UPDATE of the
 * reservations of moved slots, one INSERT from a json recordset (each left out when it has nothing
 * to do). The caller runs them in order in one transaction (writeSlotDiff, or E9's one-request
 * batch) having locked the rows the diff touches (SELECT ... FOR UPDATE), so nothing changed them
 * since they were planned on; the DELETE and the UPDATE still check the rows they touched against
 * the plan, in the statement, and a mismatch fails it (and with it the transaction: nothing
 * written). Deletes go first and inserts last, so a slot planned where another was deleted or
 * moved away from does not trip the (date, time) key.
 */
export function slotDiffStatements(wineryId: string, diff: SlotDiff): SQL[] {
  const statements: SQL[] = [];
  if (diff.delete.length > 0) {
    const ids = JSON.stringify(diff.delete.map((slot) => slot.id));
    statements.push(
      touching(
        "delete",
        diff.delete.length,
        sql`delete from ${slots} where winery_id = ${wineryId}
          and id in (select jsonb_array_elements_text(${ids}::jsonb)::uuid) returning 1`,
      ),
    );
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
    statements.push(
      touching(
        "update",
        diff.update.length,
        sql`update ${slots} s set
          date = v.date, time = v.time, max_parties = v.max_parties, min_parties = v.min_parties,
          enabled_languages = array(select jsonb_array_elements_text(v.enabled_languages)),
          default_languages = array(select jsonb_array_elements_text(v.default_languages)),
          active = v.active, manually_modified = v.manually_modified,
          external_occupants = v.external_occupants, extra_data = v.extra_data, updated_at = now()
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
          id uuid, date date, time time, max_parties int, min_parties int, enabled_languages jsonb,
          default_languages jsonb, active boolean, manually_modified boolean,
          external_occupants int, extra_data jsonb)
        where s.id = v.id and s.winery_id = ${wineryId}
        returning 1`,
      ),
    );
    // A reservation is at its slot's date and time: a moved slot takes its reservations along,
    // seats and all (only E9 with ignoreOccupiedSlot moves an occupied slot; a save refuses to).
    // Their updatedAt moves too, in the server's UTC clock as when an import sends none, so that
    // a client syncing by updatedAt sees the move.
    const moved = diff.update
      .filter(({ before, after }) => before.date !== after.date || before.time !== after.time)
      .map(({ after }) => after.id);
    if (moved.length > 0) {
      statements.push(sql`
        update ${reservations} r set date = s.date, time = s.time,
          updated_at = (now() at time zone 'utc')
        from ${slots} s
        where s.winery_id = ${wineryId}
          and s.id in (select jsonb_array_elements_text(${JSON.stringify(moved)}::jsonb)::uuid)
          and r.winery_id = ${wineryId} and r.slot_id = s.id`);
    }
  }
  if (diff.create.length > 0) {
    const rows = diff.create.map((slot) => ({
      id: slot.id,
      experience_id: slot.experienceId,
      date: slot.date,
      time: slot.time,
      max_parties: slot.maxParties,
      min_parties: slot.minParties,
      enabled_languages: slot.enabledLanguages,
      default_languages: slot.defaultLanguages,
      active: slot.active,
      parent_slot_id: slot.parentSlotId,
      manually_modified: slot.manuallyModified,
      reserved_count: slot.reservedCount,
      external_occupants: slot.externalOccupants,
      extra_data: slot.extraData,
    }));
    statements.push(sql`
      insert into ${slots} (id, winery_id, experience_id, date, time, max_parties, min_parties,
        enabled_languages, default_languages, active, parent_slot_id, manually_modified,
        reserved_count, external_occupants, extra_data)
      select v.id, ${wineryId}, v.experience_id, v.date, v.time, v.max_parties, v.min_parties,
        array(select jsonb_array_elements_text(v.enabled_languages)),
        array(select jsonb_array_elements_text(v.default_languages)),
        v.active, v.parent_slot_id, v.manually_modified, v.reserved_count, v.external_occupants,
        v.extra_data
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
        id uuid, experience_id uuid, date date, time time, max_parties int, min_parties int,
        enabled_languages jsonb, default_languages jsonb, active boolean, parent_slot_id uuid,
        manually_modified boolean, reserved_count int, external_occupants int, extra_data jsonb)`);
  }
  return statements;
}

/**
 * `write` (a DELETE or UPDATE ... RETURNING 1) as a statement that fails, at run time, unless it
 * touched `planned` rows: the cast of the message to int raises only on the row `having` keeps.
 */
const touching = (what: string, planned: number, write: SQL) => sql`
  with w as (${write})
  select cast(${`slot ${what} touched `} || count(*) || ${` rows, planned ${planned}`} as int)
  from w having count(*) <> ${planned}::int`;

/** Writes a planned diff inside the caller's transaction: slotDiffStatements, one after the other. */
export async function writeSlotDiff(tx: AnyDb, wineryId: string, diff: SlotDiff): Promise<void> {
  for (const statement of slotDiffStatements(wineryId, diff)) await tx.execute(statement);
}
