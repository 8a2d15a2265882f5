import { postgresError } from "../../db/errors";
import { AppError } from "../../lib/errors";
import { localTime } from "../../schemas/slots";
import type { SlotConflict } from "./slot-set";

const listed = (ids: string[]) => `${ids.slice(0, 20).join(", ")}${ids.length > 20 ? ", ..." : ""}`;

/**
 * A 409's `slots` and `reservationIds`: each conflict as E8 answers it (the SlotConflict schema,
 * `time` a LocalTime object), and the reservations on them.
 */
export function slotConflictMembers(conflicts: SlotConflict[]) {
  return {
    slots: conflicts.map((c) => ({ ...c, time: localTime(c.time) })),
    reservationIds: [...new Set(conflicts.flatMap((c) => c.reservationIds))],
  };
}

/**
 * 409 CONFLICT naming the occupied slots a change would delete, move or shrink (`slots`) and the
 * reservations on them (`reservationIds`). `remedy` ends that part of the detail: what the caller
 * can do, which depends on the route (E9 has ignoreOccupiedSlot, an experience save has no such
 * field). A slot that a move would land on (reason SLOT_EXISTS) is named in `slots` too.
 */
export class SlotConflictError extends AppError {
  constructor(conflicts: SlotConflict[], remedy: string) {
    const members = slotConflictMembers(conflicts);
    const occupied = conflicts.filter((c) => c.reason !== "SLOT_EXISTS").map((c) => c.slotId);
    const there = conflicts.filter((c) => c.reason === "SLOT_EXISTS").map((c) => c.slotId);
    const { reservationIds } = members;
    const touched =
      reservationIds.length > 0
        ? ` It would touch ${reservationIds.length} reservation(s): ${listed(reservationIds)}.`
        : "";
    const parts = [
      occupied.length > 0 &&
        `The change would delete, move or shrink below its occupants ${occupied.length} occupied slot(s): ${listed(occupied)}.${touched} ${remedy}`,
      there.length > 0 &&
        `The change would move a slot onto the date and time another slot of the experience holds: ${listed(there)}. Move it elsewhere, or move or delete the slot that is there first.`,
    ];
    super("CONFLICT", parts.filter(Boolean).join(" "), { extensions: members });
  }
}

/**
 * A write that still met the (experience, date, time) key (checked at each statement's end, so
 * slots of one call may trade times), e.g. a concurrent writer outside the locks: 409.
 */
export function rethrowSlotKeyViolation(error: unknown): never {
  const pg = postgresError(error);
  if (pg?.code === "23505" && pg.constraint === "slots_experience_date_time_key") {
    throw new AppError(
      "CONFLICT",
      "Two slots of one experience would share a date and time; nothing was written.",
    );
  }
  throw error;
}
