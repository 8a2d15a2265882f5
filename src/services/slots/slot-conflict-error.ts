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
 * reservations on them (`reservationIds`). `remedy` ends the detail: what the caller can do, which
 * depends on the route (E9 has ignoreOccupiedSlot, an experience save has no such field).
 */
export class SlotConflictError extends AppError {
  constructor(conflicts: SlotConflict[], remedy: string) {
    const ids = conflicts.map((c) => c.slotId);
    const members = slotConflictMembers(conflicts);
    const { reservationIds } = members;
    const touched =
      reservationIds.length > 0
        ? ` It would touch ${reservationIds.length} reservation(s): ${listed(reservationIds)}.`
        : "";
    super(
      "CONFLICT",
      `The change would delete, move or shrink below its occupants ${ids.length} occupied slot(s): ${listed(ids)}.${touched} ${remedy}`,
      { extensions: members },
    );
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
