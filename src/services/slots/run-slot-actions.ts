import { and, asc, eq, inArray, or } from "drizzle-orm";
import { retryOnDeadlock } from "../../db/atomic";
import type { Database } from "../../db/client";
import { isTransactionConflict } from "../../db/errors";
import { experiences, slots } from "../../db/schema";
import type { BusinessLocation } from "../../schemas/business-location";
import type { SlotActionsCommand } from "../../schemas/slot-actions";
import { openBusinessLocation, readBusinessLocationRow } from "../wineries/read-business-location";
import { actOnOneSlot, oneSlotAction } from "./act-on-one-slot";
import { createSlotsInOneRequest, onlyPlainCreates } from "./create-slots-in-one-request";
import { planSlotActions, skippedAnswer } from "./plan-slot-actions";
import { slotActionsInOneRequest } from "./slot-actions-in-one-request";
import { rethrowSlotKeyViolation } from "./slot-conflict-error";
import {
  type SlotRow,
  slotColumnsWithReservations,
  toSlot,
  toSlotState,
  writeSlotDiff,
} from "./slot-rows";
import { targetsOf } from "./slot-versions";

/**
 * E9. A call of CREATE requests only is one HTTP batch (createSlotsInOneRequest); a call of one
 * UPDATE (not a move) or DELETE of one slot by itself, one statement (actOnOneSlot), planned as
 * any other when that statement changed nothing; any other, a read and a batch
 * (slotActionsInOneRequest); a call these leave to it (a deadlock, rows that kept changing under
 * it, more slots than an HTTP answer holds), runSlotActionsInTransaction.
 */
export async function runSlotActions(
  db: Database,
  wineryId: string,
  command: SlotActionsCommand,
  options: { integrationsKey: string },
): Promise<BusinessLocation[]> {
  try {
    const one = oneSlotAction(command);
    const answer = onlyPlainCreates(command)
      ? await createSlotsInOneRequest(db.http, wineryId, command, options)
      : ((one && (await actOnOneSlot(db.http, wineryId, one, options))) ??
        (await slotActionsInOneRequest(db.http, wineryId, command, options)));
    if (answer) return answer;
  } catch (error) {
    // A deadlock wrote nothing: the transaction path does it again, as it does its own.
    if (!isTransactionConflict(error)) return rethrowSlotKeyViolation(error);
  }
  return retryOnDeadlock(() => runSlotActionsInTransaction(db, wineryId, command, options));
}

/**
 * E9 in one interactive transaction, a fixed number of statements whatever the number of slots:
 * lock the experiences acted on (named, or owning a named slot or series; in id order, so
 * concurrent calls cannot deadlock), lock all their slots, plan every request in memory, write the
 * net change (inserts in chunks of 2,000, one UPDATE, one DELETE), read back the written slots and
 * the business-location record. Locked rows cannot change between the plan and the write: a
 * second call on the same slots waits and then plans on what the first wrote, and a reservation
 * taking seats waits for the commit and re-checks capacity on the new row. With dryRun nothing is
 * written and the transaction ends having only read.
 */
export async function runSlotActionsInTransaction(
  db: Database,
  wineryId: string,
  command: SlotActionsCommand,
  options: { integrationsKey: string },
): Promise<BusinessLocation[]> {
  const { requests } = command;
  const { experienceIds, slotIds, parentIds } = targetsOf(requests);
  try {
    return await db.transaction(async (tx) => {
      const owners = tx
        .select({ id: slots.experienceId })
        .from(slots)
        .where(
          and(
            eq(slots.wineryId, wineryId),
            or(inArray(slots.id, slotIds), inArray(slots.parentSlotId, parentIds)),
          ),
        );
      const experienceRows = await tx
        .select({
          id: experiences.id,
          maxParties: experiences.maxParties,
          minPartiesToEnable: experiences.minPartiesToEnable,
          languagesIsoCode: experiences.languagesIsoCode,
        })
        .from(experiences)
        .where(
          and(
            eq(experiences.wineryId, wineryId),
            or(inArray(experiences.id, experienceIds), inArray(experiences.id, owners)),
          ),
        )
        .orderBy(asc(experiences.id))
        .for("update");
      const lockedIds = experienceRows.map((e) => e.id);
      const slotRows =
        lockedIds.length === 0
          ? []
          : await tx
              .select(slotColumnsWithReservations)
              .from(slots)
              .where(and(eq(slots.wineryId, wineryId), inArray(slots.experienceId, lockedIds)))
              .orderBy(asc(slots.date), asc(slots.time), asc(slots.id))
              .for("update");

      const plan = planSlotActions(
        requests,
        new Map(experienceRows.map((e) => [e.id, e])),
        slotRows.map(toSlotState),
      );
      const { diff } = plan;
      const original = new Map<string, SlotRow>(slotRows.map((row) => [row.id, row]));
      let written = new Map<string, SlotRow>();
      if (!plan.dryRun) {
        await writeSlotDiff(tx, wineryId, diff);
        const changed = [...diff.create, ...diff.update.map((u) => u.after)].map((s) => s.id);
        if (changed.length > 0) {
          const rows = await tx
            .select()
            .from(slots)
            .where(and(eq(slots.wineryId, wineryId), inArray(slots.id, changed)));
          written = new Map(rows.map((row) => [row.id, row]));
        }
      }
      const stamped = (id: string) => {
        const row = written.get(id) ?? original.get(id);
        return row ? { createdAt: row.createdAt, updatedAt: row.updatedAt } : undefined;
      };
      const record = await readBusinessLocationRow(tx, wineryId);
      return [
        await openBusinessLocation(record, options.integrationsKey, {
          dryRun: plan.dryRun,
          created: diff.create.map((s) => toSlot(s, stamped(s.id))),
          updated: diff.update.map(({ after }) => toSlot(after, stamped(after.id))),
          deleted: diff.delete.map((s) => toSlot(s, stamped(s.id))),
          skipped: skippedAnswer(plan.skipped),
        }),
      ];
    });
  } catch (error) {
    return rethrowSlotKeyViolation(error);
  }
}
