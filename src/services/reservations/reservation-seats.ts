import { and, eq, type SQL, sql } from "drizzle-orm";
import { slots } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import { AppError } from "../../lib/errors";

export interface SeatHolding {
  /** The slot whose reserved_count holds the seats; null holds nothing. */
  slotId: string | null;
  seats: number;
}

export interface SlotSwitch {
  close: boolean;
  open: boolean;
}

/**
 * 409 CONFLICT: the slot has no room for the reservation's guests. `reservationId` null: a
 * reservation E11 was creating under an id of its own (path `NEW` or `null`), which was never
 * stored, so naming it would send the caller looking for nothing.
 */
export class SlotFullError extends AppError {
  constructor(
    readonly slotId: string,
    reservationId: string | null,
    readonly seats: number,
  ) {
    super(
      "CONFLICT",
      `Slot ${slotId} has no room for the ${seats} guest(s) of ${reservationId === null ? "the new reservation" : `reservation ${reservationId}`} (or was deleted meanwhile); nothing was written.`,
      { extensions: { slotId, reservationId } },
    );
  }
}

/**
 * E11's first lock: the experiences whose slots it may touch (the input's, and that of the slot the
 * reservation holds now, read unlocked here), FOR KEY SHARE in id order. E9 and experience saves
 * lock the experience FOR UPDATE first, then its slots, then (E9 moving occupied slots) the
 * slots' reservations; an import that locked its reservation and slots first waited on them in
 * the opposite order, and Postgres broke the cycle by aborting one (500s under concurrent moves
 * and slot updates). Taken first, this lock makes an import and those calls on one experience
 * come in turn, while imports share it among themselves. importInOneRequest's batch takes the same
 * lock in its first statement (INSERT_SQL's `locked`).
 */
export function lockExperiencesStatement(
  wineryId: unknown,
  id: unknown,
  experienceId: unknown,
): SQL {
  return sql`select e.id from experiences e
    where e.winery_id = ${wineryId} and e.id in (${experienceId}::uuid, (
      select s.experience_id from reservations r
      join slots s on s.winery_id = r.winery_id and s.id = r.slot_id
      where r.winery_id = ${wineryId} and r.id = ${id}))
    order by e.id
    for key share`;
}

/**
 * Moves `delta` seats on one slot in ONE conditional UPDATE, the slots table's documented rule:
 * seats are taken only while occupied_count + delta <= max_parties, checked on the row as locked
 * by the UPDATE itself (never read-then-write), so concurrent reservations cannot overfill it.
 * Releasing (delta <= 0) always succeeds. Answers whether the row moved.
 */
async function moveSeats(
  tx: AnyDb,
  wineryId: string,
  slotId: string,
  delta: number,
  switches: SlotSwitch,
): Promise<boolean> {
  const rows = await tx
    .update(slots)
    .set({
      reservedCount: sql`greatest(${slots.reservedCount} + ${delta}::int, 0)`,
      ...(switches.close && { active: false, updatedAt: sql`now()` }),
      ...(switches.open && { active: true, updatedAt: sql`now()` }),
    })
    .where(
      and(
        eq(slots.wineryId, wineryId),
        eq(slots.id, slotId),
        // In bigint: occupants near the int4 limit plus the seats asked for overflowed (22003, an
        // unnamed 400) where a full slot is 409.
        sql`(${delta}::int <= 0 or ${slots.occupiedCount}::bigint + ${delta}::int <= ${slots.maxParties})`,
      ),
    )
    .returning({ id: slots.id });
  return rows.length > 0;
}

/**
 * Makes the slots' occupancy follow the reservation, inside the caller's transaction: the seats
 * the reservation held (`before`) are released and the new ones (`after`) taken; on the same slot,
 * only the difference moves. Two slots are updated in id order, so two reservations moving in
 * opposite directions lock them in the same order and cannot deadlock. closeSlots/openSlots act on
 * the new slot. A slot without room is 409 and the caller's transaction writes nothing.
 */
export async function followSeats(
  tx: AnyDb,
  wineryId: string,
  reservationId: string,
  before: SeatHolding,
  after: SeatHolding,
  switches: SlotSwitch,
): Promise<void> {
  const moves: { slotId: string; delta: number; switches: SlotSwitch }[] = [];
  const none = { close: false, open: false };
  if (before.slotId && before.slotId === after.slotId) {
    moves.push({ slotId: after.slotId, delta: after.seats - before.seats, switches });
  } else {
    if (before.slotId && before.seats > 0)
      moves.push({ slotId: before.slotId, delta: -before.seats, switches: none });
    if (after.slotId) moves.push({ slotId: after.slotId, delta: after.seats, switches });
  }
  moves.sort((a, b) => (a.slotId < b.slotId ? -1 : 1));
  for (const move of moves) {
    if (move.delta === 0 && !move.switches.close && !move.switches.open) continue;
    if (!(await moveSeats(tx, wineryId, move.slotId, move.delta, move.switches))) {
      throw new SlotFullError(move.slotId, reservationId, after.seats);
    }
  }
}
