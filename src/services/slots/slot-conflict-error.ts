import { postgresError } from "../../db/errors";
import { AppError } from "../../lib/errors";
import type { SlotConflict } from "./slot-set";

const listed = (ids: string[]) => `${ids.slice(0, 20).join(", ")}${ids.length > 20 ? ", ..." : ""}`;

/**
 * 409 CONFLICT naming the occupied slots a change would delete, move or shrink (`slots`) and the
 * reservations on them (`reservationIds`).
 */
export class SlotConflictError extends AppError {
  constructor(conflicts: SlotConflict[]) {
    const ids = conflicts.map((c) => c.slotId);
    const reservationIds = [...new Set(conflicts.flatMap((c) => c.reservationIds))];
    const touched =
      reservationIds.length > 0
        ? ` It would touch ${reservationIds.length} reservation(s): ${listed(reservationIds)}.`
        : "";
    super(
      "CONFLICT",
      `The change would delete, move or shrink below its occupants ${ids.length} occupied slot(s): ${listed(ids)}.${touched} Set ignoreOccupiedSlot to apply it anyway.`,
      { extensions: { slots: conflicts, reservationIds } },
    );
  }
}

/**
 * A write that still met the (experience, date, time) key, e.g. two slots of one call swapping
 * their times (the key is checked row by row), or a concurrent writer outside the locks: 409.
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
