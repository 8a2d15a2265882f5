import { sql } from "drizzle-orm";
import { retryOnDeadlock } from "../../db/atomic";
import type { Database, HttpDb } from "../../db/client";
import { isTransactionConflict } from "../../db/errors";
import { experiences } from "../../db/schema";
import { todayUtc } from "../../lib/calendar";
import { NotFoundError } from "../../lib/errors";
import type { Experience, ExperienceInput } from "../../schemas/experiences";
import { rethrowSlotKeyViolation, SlotConflictError } from "../slots/slot-conflict-error";
import { writeSlotDiff } from "../slots/slot-rows";
import { experienceKey, stateQueries, toExperience, toState } from "./experience-record";
import { planExperience } from "./plan-experience";
import { saveAfterReading } from "./save-after-reading";
import { SAVE_REMEDY, saveInOneRequest } from "./save-in-one-request";

/**
 * PUT /experiences/{id}: creates or replaces the experience and applies its plan (propagation and
 * slotsRequests). Without slotsRequests, one HTTP batch does it (saveInOneRequest, which also
 * answers the conflicts it meets); with them, a read and a batch (saveAfterReading); a new
 * experience with them, or a save either leaves (a deadlock, or rows that kept changing under it),
 * one interactive transaction. Either way the
 * experience row and its slots are locked first (FOR UPDATE), so the change is made on rows nobody
 * else can change before it is written: a concurrent save or E9 call waits, and a reservation
 * taking seats waits and then re-checks its capacity against the new values. A plan with conflicts
 * (an occupied slot deleted, moved or shrunk below its occupants) writes nothing: 409 CONFLICT
 * naming the slots.
 */
export async function saveExperience(
  db: Database,
  wineryId: string,
  id: string,
  input: ExperienceInput,
  today = todayUtc(),
): Promise<Experience> {
  try {
    const saved = input.slotsRequests?.length
      ? await saveAfterReading(db.http, wineryId, id, input, today)
      : await saveInOneRequest(db.http, wineryId, id, input, today);
    if (saved) return saved;
  } catch (error) {
    // A deadlock wrote nothing: the transaction below does it again.
    if (!isTransactionConflict(error)) return rethrowSlotKeyViolation(error);
  }
  return saveInTransaction(db, wineryId, id, input, today);
}

/** The save as one interactive transaction, its locks taken first (see saveExperience). */
export async function saveInTransaction(
  db: Database,
  wineryId: string,
  id: string,
  input: ExperienceInput,
  today: string,
): Promise<Experience> {
  try {
    return await retryOnDeadlock(() =>
      db.transaction(async (tx) => {
        // Insert-if-absent first, so that a new experience is locked like an existing one: two
        // saves of the same new id queue on this row instead of planning the same slots twice.
        await tx.insert(experiences).values({ id, wineryId }).onConflictDoNothing();
        const reads = stateQueries(tx, wineryId, id);
        const [current] = await reads.experience.for("update");
        const slotRows = await reads.slots.for("update");
        const plan = planExperience(id, toState(current, slotRows), input, today);
        if (plan.conflicts.length > 0) throw new SlotConflictError(plan.conflicts, SAVE_REMEDY);
        const [saved] = await tx
          .update(experiences)
          .set({
            ...plan.values,
            updatedAt: sql`greatest(now(), ${experiences.updatedAt} + interval '1 millisecond')`,
          })
          .where(experienceKey(wineryId, id))
          .returning();
        if (!saved) throw new Error("experience upsert returned no row");
        await writeSlotDiff(tx, wineryId, plan.slots);
        return toExperience(saved);
      }),
    );
  } catch (error) {
    return rethrowSlotKeyViolation(error);
  }
}

/** GET /experiences/{id}: one round trip. */
export async function getExperience(db: HttpDb, wineryId: string, id: string): Promise<Experience> {
  const [row] = await db.select().from(experiences).where(experienceKey(wineryId, id));
  if (!row) throw new NotFoundError("Experience", id);
  return toExperience(row);
}
