import { type SQL, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { RESERVATION_DOCUMENT, reservationRows } from "./reservation-json";

/** Reservations per keyset batch: one round trip each; an answer up to this size costs one. */
export const RESERVATION_BATCH_SIZE = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ReservationFilter {
  wineryId: string;
  startTime?: string | null;
  endTime?: string | null;
  ids?: string[] | null;
  states?: string[] | null;
  /** The language of the experience titles (already chosen between `Lang` and `lang`). */
  lang?: string | null;
}

type Cursor = { date: string; time: string; id: string };

const list = (values: string[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/** The filters, ANDed; an empty list filters nothing, ids that are not uuids match nothing. */
function conditions(filter: ReservationFilter, after: Cursor | undefined): SQL {
  const parts: SQL[] = [sql`r.winery_id = ${filter.wineryId}`];
  if (filter.startTime) parts.push(sql`r.date >= ${filter.startTime}::date`);
  if (filter.endTime) parts.push(sql`r.date <= ${filter.endTime}::date`);
  if (filter.ids && filter.ids.length > 0) {
    const ids = filter.ids.filter((id) => UUID.test(id)).map((id) => id.toLowerCase());
    parts.push(ids.length > 0 ? sql`r.id in (${list(ids)})` : sql`false`);
  }
  if (filter.states && filter.states.length > 0) {
    parts.push(sql`lower(r.state) in (${list(filter.states.map((s) => s.toLowerCase()))})`);
  }
  if (after) {
    parts.push(
      sql`(r.date, r.time, r.id) > (${after.date}::date, ${after.time}::time, ${after.id}::uuid)`,
    );
  }
  return sql.join(parts, sql` and `);
}

/**
 * E16: the winery's reservations matching the filter, ordered by (date, time, id), as JSON
 * documents built by Postgres in one statement per keyset batch (on the winery's (date, time, id)
 * index), each document built once (see reservationRows). Documents come back as text, one row
 * each, and are passed on unparsed, so memory holds one batch whatever the size of the answer.
 * (Not one text per batch: a batch's documents in one string over 128 KiB would be a V8 large
 * object, which costs the Worker more to allocate and collect than the rows' small strings.)
 */
export async function* queryReservations(
  db: HttpDb,
  filter: ReservationFilter,
  batchSize = RESERVATION_BATCH_SIZE,
): AsyncGenerator<string[]> {
  let after: Cursor | undefined;
  for (;;) {
    const result = await db.execute<Cursor & { doc: string }>(sql`
      select b.date::text as date, b.time::text as time, b.id::text as id,
        ${RESERVATION_DOCUMENT} as doc
      from ${reservationRows(
        filter.lang ?? null,
        conditions(filter, after),
        sql`order by r.date, r.time, r.id limit ${batchSize}`,
      )}
      order by b.date, b.time, b.id`);
    const rows = result.rows;
    yield rows.map((row) => row.doc);
    const last = rows.at(-1);
    if (!last || rows.length < batchSize) return;
    after = { date: last.date, time: last.time, id: last.id };
  }
}
