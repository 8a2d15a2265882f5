import { getTableColumns, sql, type Table } from "drizzle-orm";
import { CasingCache } from "drizzle-orm/casing";
import type { HttpDb } from "../../db/client";
import { isDatabaseUnavailable, postgresError } from "../../db/errors";
import { type RawStatement, rawBatch, renderedOnce } from "../../db/raw-batch";
import { reservationPriceItems, reservations } from "../../db/schema";
import { NotFoundError } from "../../lib/errors";
import type { Reservation } from "../../schemas/reservation-views";
import type { ReservationInput } from "../../schemas/reservations";
import { CONTACT_UPSERT_SQL, contactUpsertParameters } from "../contacts/upsert-contact";
import { reservationDocumentStatement } from "./reservation-json";
import { SlotFullError } from "./reservation-seats";
import { priceItemRows, reservationValues } from "./reservation-values";

/** Each stored field with its column, as drizzle names it (snake_case), in the schema's order. */
const casing = new CasingCache("snake_case");
function columnsOf<F extends string>(table: Table, skip: readonly string[]) {
  return Object.entries(getTableColumns(table))
    .filter(([field]) => !skip.includes(field))
    .map(([field, column]) => [field as F, casing.getColumnCasing(column)] as const);
}
/** The row's fields from the input (reservationValues): all but its keys, slot and times. */
const ROW_COLUMNS = columnsOf<keyof ReturnType<typeof reservationValues>>(reservations, [
  "id",
  "wineryId",
  "slotId",
  "createdAt",
  "updatedAt",
]);
/** A price item's fields from the input (priceItemRows): all but its keys. */
const ITEM_COLUMNS = columnsOf<keyof ReturnType<typeof priceItemRows>[number]>(
  reservationPriceItems,
  ["id", "wineryId", "reservationId"],
);

/**
 * A guard: each row of `problems` (a MATERIALIZED CTE with a text column `problem`) makes the
 * statement fail, and with it the batch's transaction, so nothing the batch wrote stays. The
 * failure is a cast of the row's text to int, evaluated per row at run time (a cast of a constant
 * would be folded, and raise, when the statement is planned).
 */
const RAISE_PROBLEMS = "select cast('E11 batch: ' || problem as int) from problems";

/** The failure of a batch whose seats found a slot without room (MOVE_SQL): the slot's id. */
const NO_ROOM = /E11 batch: no room in slot ([0-9a-f-]{36})/;
/** The failure of a batch whose experience is not the winery's (INSERT_SQL). */
const NO_EXPERIENCE = /E11 batch: no experience/;

/**
 * The seats to move, as followSeats plans them, from the reservation row as it is stored (`cur`,
 * locked by the batch's earlier statement) and the input: the slot at the input's (experience,
 * date, time) (`tgt`, none when there is none) and its seats ($6) and switches ($7 close, $8 open).
 * On one slot only the difference moves (and the switches act on it); otherwise the old slot's
 * seats are released and the new one's taken (the switches acting on the new one). A move that
 * changes nothing is left out.
 */
const MOVES = `
cur as (
  select r.slot_id, coalesce(r.guest_count_total, 0) as seats from reservations r
  where r.winery_id = $1 and r.id = $2
),
tgt as (
  select s.id from slots s
  where s.winery_id = $1 and s.experience_id = $3::uuid and s.date = $4::date and s.time = $5::time
),
want as (select coalesce($6::int, 0) as seats, $7::boolean or $8::boolean as switching),
moves as materialized (
  select m.slot_id, m.delta, m.switched from want w, (
    select c.slot_id, w.seats - c.seats as delta, true as switched
    from cur c, tgt t, want w where c.slot_id = t.id
    union all
    select c.slot_id, -c.seats, false from cur c
    where c.slot_id is not null and c.seats > 0
      and c.slot_id is distinct from (select id from tgt)
    union all
    select t.id, w.seats, true from tgt t, want w, cur c where c.slot_id is distinct from t.id
  ) m
  where m.delta <> 0 or (m.switched and w.switching)
)`;

/**
 * 1. First the experiences whose slots the batch may touch are locked (`locked`: the input's, and
 * that of the slot the reservation holds now, FOR KEY SHARE in id order), the lock the interactive
 * path takes first too (lockExperiencesStatement, same rows, same order), before the reservation
 * and its slots: the order E9 and experience saves lock in. In this statement rather than one of
 * its own: a statement more cost E11 about 1 ms of CPU across the dev stack (A/B, bench --dev).
 * Then the experience is the winery's (else the batch fails, answered 404 as the interactive path
 * answers it) and
 * the reservation row is inserted if absent, with the columns it cannot be without; statement 4
 * writes its values, as the interactive path's UPDATE does.
 */
const INSERT_SQL = `
with locked as materialized (
  select x.id from experiences x
  where x.winery_id = $1 and x.id in ($3::uuid, (
    select s.experience_id from reservations r
    join slots s on s.winery_id = r.winery_id and s.id = r.slot_id
    where r.winery_id = $1 and r.id = $2))
  order by x.id
  for key share
),
e as materialized (select id from locked where id = $3::uuid),
inserted as (
  insert into reservations (id, winery_id, experience_id, date, time)
  select $2, $1, e.id, $4::date, $5::time from e
  on conflict do nothing
),
problems as materialized (
  select 'no experience' as problem from (select count(*) as n from e) k where k.n = 0
)
${RAISE_PROBLEMS}`;

/** 2. The reservation row locked, a statement of its own: the next one reads it as committed. */
const LOCK_SQL = "select 1 from reservations where winery_id = $1 and id = $2 for update";

/**
 * 3. The slots whose seats move, locked in id order (as the interactive path's UPDATEs lock them,
 * one by one in id order, so that two reservations moving in opposite directions cannot deadlock)
 * and with the UPDATE's lock strength (a reservation's FK check on the slot is not blocked). A
 * slot locked here cannot go away before the batch ends; one that E9 creates at the input's key
 * just after this statement is found by the next one, which then takes its seats there, as the
 * interactive path would had it looked a moment later.
 */
const LOCK_SLOTS_SQL = `
with ${MOVES}
select s.id from slots s
where s.winery_id = $1 and s.id in (select slot_id from moves)
order by s.id
for no key update`;

/**
 * 4. The seats moved, each by the slots table's conditional UPDATE (taken only while
 * occupied_count + delta <= max_parties, checked on the row locked above), closeSlots/openSlots
 * on the new slot; the row replaced by the input ($9, JSON keyed by column; a field left out is
 * null), on the slot found, createdAt kept unless given, updatedAt the input's or now in UTC.
 * A move that did not happen (no room, or the slot is gone) fails the batch.
 */
const MOVE_SQL = `
with ${MOVES},
moved as (
  update slots s set reserved_count = greatest(s.reserved_count + m.delta, 0),
    active = case when not m.switched then s.active
      when $7::boolean then false when $8::boolean then true else s.active end,
    updated_at = case when m.switched and ($7::boolean or $8::boolean) then now()
      else s.updated_at end
  from moves m
  where s.winery_id = $1 and s.id = m.slot_id
    and (m.delta <= 0 or s.occupied_count::bigint + m.delta <= s.max_parties)
  returning s.id
),
v as (select * from jsonb_populate_record(null::reservations, $9::jsonb)),
saved as (
  update reservations r set
    ${ROW_COLUMNS.map(([, column]) => `${column} = v.${column}`).join(",\n    ")},
    slot_id = (select id from tgt),
    created_at = coalesce(v.created_at, r.created_at),
    updated_at = coalesce(v.updated_at, (now() at time zone 'utc'))
  from v
  where r.winery_id = $1 and r.id = $2
  returning r.id
),
problems as materialized (
  select 'no room in slot ' || m.slot_id as problem from moves m
  where m.slot_id not in (select id from moved)
  union all
  select 'the reservation row vanished' from (select count(*) as n from saved) k where k.n = 0
)
${RAISE_PROBLEMS}`;

/**
 * 6. After the contacts' upserts (5, one statement each, so that the same person twice updates
 * the row twice, as in the interactive path): the contact links replaced, in the input's order
 * (each contact found by its identity, lower(trim(email)), which the upserts just wrote); the price
 * items replaced ($4, JSON keyed by column); the in-house payment following paidTotalCents ($5):
 * upserted while it stays at or above what was refunded, or deleted when nothing was refunded.
 * A payment that would fall below its refunds (the upsert's conditional update did nothing, or a
 * payment the delete left stands) fails the batch.
 */
const REST_SQL = `
with gone_links as (
  delete from reservation_contacts where winery_id = $1 and reservation_id = $2
),
linked as (
  insert into reservation_contacts (winery_id, reservation_id, contact_id, contact_type, position)
  select $1, $2, c.id, l.contact_type, l.position
  from jsonb_to_recordset($3::jsonb) as l(email text, contact_type text, position int)
  join contacts c on c.winery_id = $1 and c.email_key = lower(trim(l.email))
  order by l.position
  returning 1
),
gone_items as (
  delete from reservation_price_items where winery_id = $1 and reservation_id = $2
),
items as (
  insert into reservation_price_items (winery_id, reservation_id,
    ${ITEM_COLUMNS.map(([, column]) => column).join(", ")})
  select $1, $2, ${ITEM_COLUMNS.map(([, column]) => `p.${column}`).join(", ")}
  from jsonb_populate_recordset(null::reservation_price_items, $4::jsonb) p
  order by p.sort_order
),
paid as (
  insert into reservation_payments as p (winery_id, reservation_id, provider, in_house, amount_cents)
  select $1, $2, 'IN_HOUSE', true, $5::bigint where $5::bigint > 0
  on conflict (winery_id, reservation_id) where in_house
  do update set amount_cents = excluded.amount_cents
  where p.refunded_cents <= excluded.amount_cents
  returning p.id
),
unpaid as (
  delete from reservation_payments p
  where p.winery_id = $1 and p.reservation_id = $2 and p.in_house and p.refunded_cents = 0
    and $5::bigint <= 0
  returning p.id
),
problems as materialized (
  select 'contacts not linked' as problem from (select count(*) as n from linked) k
  where k.n <> jsonb_array_length($3::jsonb)
  union all
  select 'payment below refunds' from (select count(*) as n from paid) k
  where $5::bigint > 0 and k.n = 0
  union all
  select 'payment below refunds' from reservation_payments p
  where p.winery_id = $1 and p.reservation_id = $2 and p.in_house and $5::bigint <= 0
    and p.id not in (select id from unpaid)
)
${RAISE_PROBLEMS}`;

/**
 * 7. The read-back: reservationDocumentStatement's text, rendered once, its parameters (the
 * language, the winery, the id) put in place on each call.
 */
const DOCUMENT = renderedOnce(["lang", "wineryId", "id"], (p) =>
  reservationDocumentStatement(p.lang, sql`r.winery_id = ${p.wineryId} and r.id = ${p.id}`),
);

/**
 * E11 as ONE Neon HTTP batch (one round trip, one transaction) instead of an interactive session,
 * whose WebSocket costs the Worker several ms of CPU before its first query: the statements above,
 * of fixed text, in the interactive path's order (writeReservation's), each finding what an
 * earlier one wrote in the database (the batch's results come back only at the end).
 *
 * Whenever the batch meets a condition the interactive path answers with an error (no such
 * experience, a slot without room or gone, a payment below its refunds) or any other error of
 * Postgres (an FK race, a deadlock), its transaction fails and nothing is written; the answer is
 * then `undefined` and the caller runs the interactive path, which answers as it always has. A
 * slot without room is answered here, with the SlotFullError the interactive path throws at that
 * point of the same order of writes: running it would take the same locks again to find the same
 * full slot, a second turn in the line on the experience for every 409 (a third of E11's answers
 * under an outside audit's load at 50 clients, one experience shared). So is an experience that is
 * not the winery's, the 404 the interactive path answers when its first statement finds none. A database
 * that cannot be reached or did not answer is not retried (the batch may have committed).
 */
export async function importInOneRequest(
  db: HttpDb,
  wineryId: string,
  id: string,
  input: ReservationInput,
): Promise<Reservation | undefined> {
  const values = reservationValues(input);
  const row: Record<string, unknown> = {};
  for (const [field, column] of ROW_COLUMNS) row[column] = values[field];
  row.created_at = input.createdAt ?? null;
  row.updated_at = input.updatedAt ?? null;
  const items = priceItemRows(wineryId, id, input).map((item) => {
    const columns: Record<string, unknown> = {};
    for (const [field, column] of ITEM_COLUMNS) columns[column] = item[field];
    return columns;
  });
  const links = input.reservationContacts.map((contact, position) => ({
    email: contact.email,
    contact_type: contact.contactType,
    position,
  }));
  const key = [wineryId, id, input.experienceId, input.date, input.time];
  const seats = [input.guestCountTotal ?? 0, input.closeSlots === true, input.openSlots === true];
  const statements: RawStatement[] = [
    [INSERT_SQL, key],
    [LOCK_SQL, [wineryId, id]],
    [LOCK_SLOTS_SQL, [...key, ...seats]],
    [MOVE_SQL, [...key, ...seats, JSON.stringify(row)]],
    ...input.reservationContacts.map(
      (contact): RawStatement => [CONTACT_UPSERT_SQL, contactUpsertParameters(wineryId, contact)],
    ),
    [
      REST_SQL,
      [wineryId, id, JSON.stringify(links), JSON.stringify(items), input.paidTotalCents ?? 0],
    ],
    DOCUMENT({ lang: input.languageIso ?? null, wineryId, id }),
  ];
  let results: Record<string, unknown>[][];
  try {
    results = await rawBatch(db, statements);
  } catch (error) {
    const failed = postgresError(error);
    if (!failed || isDatabaseUnavailable(error)) throw error;
    const full = NO_ROOM.exec(failed.message ?? "")?.[1];
    if (full) throw new SlotFullError(full, id, input.guestCountTotal ?? 0);
    if (NO_EXPERIENCE.test(failed.message ?? "")) {
      throw new NotFoundError("Experience", input.experienceId);
    }
    return undefined;
  }
  const doc = results.at(-1)?.[0]?.doc;
  if (typeof doc !== "string") throw new Error("reservation read-back returned no row");
  return JSON.parse(doc) as Reservation;
}
