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
