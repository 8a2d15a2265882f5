import { type SQL, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { NotFoundError } from "../../lib/errors";
import type { AvailabilityQuery } from "../../schemas/slots";

const iso = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The wire Slot of `s` as JSON text, as toSlot (slot-rows.ts) builds it and JSON.stringify writes
 * it: compact, keys in its order. Its extraData is not written by Postgres, whose jsonb text has
 * other whitespace and key order than JavaScript's: a slot with extraData has EXTRA_MARK in its
 * place, which JSON text from Postgres cannot otherwise contain (it escapes control characters).
 *
 * The objects are the row_to_json of FROM-less LATERAL select lists over the slot (`t` its time,
 * `x` the fields before extraData), which the planner folds into the scan of slots: no subplan per
 * slot. The keys after extraData are appended as text.
 */
const EXTRA_MARK = "\u0001";
const SLOT_LATERALS = `
  cross join lateral (select extract(hour from s.time)::int as "hour",
    extract(minute from s.time)::int as "minute", extract(second from s.time)::int as "second",
    0 as "nano") t
  cross join lateral (select
    s.id as "id",
    s.experience_id as "experienceId",
    to_char(s.date, 'YYYY-MM-DD') as "date",
    row_to_json(t) as "time",
    s.max_parties as "maxParties",
    s.min_parties as "minParties",
    s.enabled_languages as "enabledLanguages",
    s.default_languages as "defaultLanguages",
    s.active as "active",
    s.parent_slot_id as "parentSlotId",
    s.manually_modified as "manuallyModified",
    s.reserved_count as "reservedCount",
    s.external_occupants as "externalOccupants",
    s.reserved_count + s.external_occupants as "occupiedCount",
    greatest(0, s.max_parties - s.reserved_count - s.external_occupants) as "availableSeats") x`;
const SLOT = `left(row_to_json(x)::text, -1)
  || ',"extraData":' || case when s.extra_data is null then 'null' else chr(1) end
  || ',"createdAt":"' || ${iso("s.created_at")} || '","updatedAt":"' || ${iso("s.updated_at")} || '"}'`;
const ORDER = "s.date, s.time, s.id";

/**
 * The statement of GET /availabilities: whether the winery has the experience asked for (`found`),
 * the answer's JSON text (`body`) and the extraData of the slots that carry one (`extras`).
 */
export function availabilityStatement(wineryId: string, query: AvailabilityQuery): SQL {
  const where: SQL[] = [
    sql`s.winery_id = ${wineryId}`,
    sql`s.date between ${query.from}::date and ${query.to}::date`,
  ];
  if (query.experienceId) where.push(sql`s.experience_id = ${query.experienceId}`);
  const found = query.experienceId
    ? sql`exists (select 1 from experiences e where e.winery_id = ${wineryId} and e.id = ${query.experienceId})`
    : sql`true`;
  return sql`
    select ${found} as found,
      '[' || string_agg(${sql.raw(SLOT)}, ',' order by ${sql.raw(ORDER)}) || ']' as body,
      json_agg(s.extra_data::text order by ${sql.raw(ORDER)}) filter (where s.extra_data is not null) as extras
    from slots s ${sql.raw(SLOT_LATERALS)}
    where ${sql.join(where, sql` and `)}`;
}

/**
 * GET /availabilities: the winery's slots dated from..to (inclusive), ordered by date, time, id,
 * with their occupancy, as the JSON text of the answer. One statement: with experienceId it also
 * tells whether the winery has the experience, so an experience it does not have (404) and one
 * without slots in the range ([]) are told apart in the same round trip.
 *
 * Postgres writes the answer (`body`), passed on unparsed. The extraData of the few slots that
 * carry one comes beside it as jsonb text (`extras`, in order), written as JavaScript writes it
 * (JSON.stringify of the parsed value) in place of its mark.
 */
export async function listAvailabilities(
  db: HttpDb,
  wineryId: string,
  query: AvailabilityQuery,
): Promise<string> {
  const result = await db.execute<{ found: boolean; body: string | null; extras: string[] | null }>(
    availabilityStatement(wineryId, query),
  );
  const row = result.rows[0];
  if (query.experienceId && !row?.found) throw new NotFoundError("Experience", query.experienceId);
  const body = row?.body ?? "[]";
  if (!row?.extras) return body;
  const pieces = body.split(EXTRA_MARK);
  return pieces
    .map((piece, i) => {
      const extra = row.extras?.[i];
      return extra === undefined ? piece : piece + JSON.stringify(JSON.parse(extra));
    })
    .join("");
}
