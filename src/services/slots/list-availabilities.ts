import { and, asc, between, eq } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { experiences, slots } from "../../db/schema";
import { NotFoundError } from "../../lib/errors";
import type { AvailabilityQuery, Slot } from "../../schemas/slots";
import { rowToSlot } from "./slot-rows";

/**
 * GET /availabilities: the winery's slots dated from..to (inclusive), ordered by date, time, id,
 * with their occupancy. One statement: with experienceId, the experience LEFT JOIN its slots, so an
 * experience the winery does not have (404) and one without slots in the range ([]) are told
 * apart in the same round trip.
 */
export async function listAvailabilities(
  db: HttpDb,
  wineryId: string,
  query: AvailabilityQuery,
): Promise<Slot[]> {
  const inRange = between(slots.date, query.from, query.to);
  if (!query.experienceId) {
    const rows = await db
      .select()
      .from(slots)
      .where(and(eq(slots.wineryId, wineryId), inRange))
      .orderBy(asc(slots.date), asc(slots.time), asc(slots.id));
    return rows.map(rowToSlot);
  }
  const rows = await db
    .select({ experienceId: experiences.id, slot: slots })
    .from(experiences)
    .leftJoin(
      slots,
      and(
        eq(slots.wineryId, experiences.wineryId),
        eq(slots.experienceId, experiences.id),
        inRange,
      ),
    )
    .where(and(eq(experiences.wineryId, wineryId), eq(experiences.id, query.experienceId)))
    .orderBy(asc(slots.date), asc(slots.time), asc(slots.id));
  if (rows.length === 0) throw new NotFoundError("Experience", query.experienceId);
  return rows.flatMap((row) => (row.slot ? [rowToSlot(row.slot)] : []));
}
