import { postgresError } from "../../db/errors";
import { AppError } from "../../lib/errors";
import type { SlotConflict } from "./slot-set";

/** 409 CONFLICT naming the occupied slots a change would delete, move or shrink (`slots`). */
export class SlotConflictError extends AppError {
  constructor(conflicts: SlotConflict[]) {
    const ids = conflicts.map((c) => c.slotId);
    const shown = ids.slice(0, 20).join(", ");
    super(
      "CONFLICT",
      `The change would delete, move or shrink below its occupants ${ids.length} occupied slot(s): ${shown}${ids.length > 20 ? ", ..." : ""}. Set ignoreOccupiedSlot to apply it anyway.`,
      { extensions: { slots: conflicts } },
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
