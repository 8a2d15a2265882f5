import { sql } from "drizzle-orm";
import type { Database, HttpDb, SessionQuery } from "../../db/client";
import { rawQuery, renderedOnce } from "../../db/raw-batch";
import { RESERVATION_DOCUMENT, reservationRows } from "./reservation-json";

/**
 * Reservations per keyset batch: an answer up to this size is one SQL-over-HTTP round trip; a
 * larger one is read in batches of this size from one snapshot (see queryReservations).
 */
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

const FILTER_PARAMS = ["wineryId", "lang", "startTime", "endTime", "ids", "states"] as const;
const BATCH_PARAMS = [...FILTER_PARAMS, "afterDate", "afterTime", "afterId", "batchSize"] as const;
const WHOLE_PARAMS = [...FILTER_PARAMS, "batchSize"] as const;

/**
 * The filter's condition on `reservations r`, of fixed text whatever the filter. A filter left out
 * is a null parameter, and its condition `$n is null or ...` folds away when Postgres plans the
 * statement for its values (Neon's unnamed statements, and the local endpoint's with
 * plan_cache_mode=force_custom_plan, are planned per call), so the winery's (date, time, id)
 * index still serves the ranges and the keyset.
 */
const filterCondition = (m: Record<(typeof FILTER_PARAMS)[number], string>) =>
  sql`r.winery_id = ${m.wineryId}
    and (${m.startTime}::date is null or r.date >= ${m.startTime}::date)
    and (${m.endTime}::date is null or r.date <= ${m.endTime}::date)
    and (${m.ids}::uuid[] is null or r.id = any(${m.ids}::uuid[]))
    and (${m.states}::text[] is null or lower(r.state) = any(${m.states}::text[]))`;

/**
 * One keyset batch of the filtered reservations (after the cursor, when there is one), rendered
 * once per isolate (renderedOnce: drizzle rendering this statement took about a fifth of E16's
 * Worker CPU).
 */
const renderedBatch = renderedOnce(BATCH_PARAMS, (m) => {
  const where = sql`${filterCondition(m)}
    and (${m.afterDate}::date is null
      or (r.date, r.time, r.id) > (${m.afterDate}::date, ${m.afterTime}::time, ${m.afterId}::uuid))`;
  return sql`
    select b.date::text as date, b.time::text as time, b.id::text as id,
      ${RESERVATION_DOCUMENT} as doc
    from ${reservationRows(m.lang, where, sql`order by r.date, r.time, r.id limit ${m.batchSize}`)}
    order by b.date, b.time, b.id`;
});

/**
 * The whole answer when it fits in one batch: how many rows match, counted up to `batchSize + 1`
 * (`matched`, the same on every row: an init plan, counted once on the winery's index before any
 * document), and their documents, built as a batch's are. When more match than a batch holds,
 * only the first row's document is built (a LIMIT of 1): the answer is read again from the
 * snapshot, and `matched` says so.
 */
const renderedWhole = renderedOnce(WHOLE_PARAMS, (m) => {
  const matched = sql.raw("(select n from c)");
  const limit = sql`limit case when ${matched} <= ${m.batchSize} then ${m.batchSize}::int else 1 end`;
  return sql`
    with c as (select count(*)::int as n from (select from reservations r
      where ${filterCondition(m)} limit ${m.batchSize}::int + 1) x)
    select ${matched} as matched, ${RESERVATION_DOCUMENT} as doc
    from ${reservationRows(m.lang, filterCondition(m), sql`order by r.date, r.time, r.id ${limit}`)}
    order by b.date, b.time, b.id`;
});

/** The filters as renderedBatch's values: an empty list filters nothing; ids that are no uuids match nothing. */
function filterValues(filter: ReservationFilter) {
  const ids = filter.ids?.length
    ? filter.ids.filter((id) => UUID.test(id)).map((id) => id.toLowerCase())
    : null;
  const states = filter.states?.length ? filter.states.map((s) => s.toLowerCase()) : null;
  return {
    wineryId: filter.wineryId,
    lang: filter.lang ?? null,
    startTime: filter.startTime || null,
    endTime: filter.endTime || null,
    ids,
    states,
  };
}

/**
 * E16: the winery's reservations matching the filter, ordered by (date, time, id), as JSON
 * documents built by Postgres in one statement per keyset batch (on the winery's (date, time, id)
 * index), each document built once (see reservationRows). Documents come back as text, one row
 * each, and are passed on unparsed, so memory holds one batch whatever the size of the answer.
 * (Not one text per batch: a batch's documents in one string over 128 KiB would be a V8 large
 * object, which costs the Worker more to allocate and collect than the rows' small strings.)
 *
 * Every answer is one state of the data. An answer of up to `batchSize` reservations is one
 * statement over HTTP (one round trip: most calls), a snapshot of its own. When more match, that
 * statement builds one document only, and the whole answer is read again, batch after batch, in
 * one `REPEATABLE READ READ ONLY` transaction (db.snapshot: one WebSocket session). Batches sent as
 * statements of their own each saw the data as it was then: a reservation that E11 moved to
 * another date between two of them was answered twice or not at all (an outside audit: 19 of 30
 * answers of 821 reservations, 10 of them moved back and forth meanwhile).
 */
export async function* queryReservations(
  db: Database,
  filter: ReservationFilter,
  batchSize = RESERVATION_BATCH_SIZE,
): AsyncGenerator<string[]> {
  const values = filterValues(filter);
  const whole = await wholeAnswer(db.http, values, batchSize);
  if (whole) {
    yield whole;
    return;
  }
  yield* db.snapshot((query) => keysetBatches(query, values, batchSize));
}

type FilterValues = ReturnType<typeof filterValues>;
type BatchRow = Cursor & { doc: string };

/** One keyset batch: up to `limit` rows after `after` (from the start without one). */
async function readBatch(
  query: SessionQuery,
  values: FilterValues,
  after: Cursor | undefined,
  limit: number,
): Promise<BatchRow[]> {
  return (await query(
    ...renderedBatch({
      ...values,
      afterDate: after?.date ?? null,
      afterTime: after?.time ?? null,
      afterId: after?.id ?? null,
      batchSize: limit,
    }),
  )) as BatchRow[];
}

/**
 * The documents of the whole answer when it fits in one batch (one statement over HTTP, which
 * counts up to one row more than a batch, so an answer of exactly `batchSize` is known whole too);
 * undefined when more match, after building one document (renderedWhole).
 */
async function wholeAnswer(
  db: HttpDb,
  values: FilterValues,
  batchSize: number,
): Promise<string[] | undefined> {
  const rows = (await rawQuery(db, ...renderedWhole({ ...values, batchSize }))) as {
    matched: number;
    doc: string;
  }[];
  if ((rows[0]?.matched ?? 0) > batchSize) return undefined;
  return rows.map((row) => row.doc);
}

/** Every batch of the answer, from the start, each read by `query` (one snapshot's session). */
async function* keysetBatches(
  query: SessionQuery,
  values: FilterValues,
  batchSize: number,
): AsyncGenerator<string[]> {
  let after: Cursor | undefined;
  for (;;) {
    const rows = await readBatch(query, values, after, batchSize);
    yield rows.map((row) => row.doc);
    const last = rows.at(-1);
    if (!last || rows.length < batchSize) return;
    after = { date: last.date, time: last.time, id: last.id };
  }
}
