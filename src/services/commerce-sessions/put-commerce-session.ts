import type { HttpDb } from "../../db/client";
import { rawBatch } from "../../db/raw-batch";
import { StaleUpdateError } from "../../lib/errors";
import { assertBodyIdIsPathId } from "../../lib/path-id";
import type { CommerceSession, CommerceSessionInput } from "../../schemas/commerce-sessions";
import { SESSION_DOCUMENT } from "./session-record";

/** Every stored column a write sets ($3 ... $16, after winery_id and id), write_id last. */
const WRITTEN_COLUMNS = [
  "cart_mode",
  "channel",
  "custom_name",
  "status",
  "contacts",
  "discounts",
  "metadata",
  "guests",
  "point_of_sale_id",
  "room_id",
  "table_id",
  "source_experience_id",
  "source_reservation_id",
  "write_id",
] as const;

/**
 * 1. The session: created at version 1 (version, createdAt and updatedAt are the columns'
 *    defaults), or replaced at version + 1 when the key exists and $17 (the version sent) is null
 *    or equal to the stored one. Answers a row only when it wrote.
 */
const UPSERT_SQL = `insert into commerce_sessions (winery_id, id, ${WRITTEN_COLUMNS.join(", ")})
values (${Array.from({ length: WRITTEN_COLUMNS.length + 2 }, (_, i) => `$${i + 1}`).join(", ")})
on conflict (winery_id, id) do update set version = commerce_sessions.version + 1,
  updated_at = now(), ${WRITTEN_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", ")}
where $17::int is null or commerce_sessions.version = $17::int
returning version`;

/** Whether the session ($1, $2) now carries this write's id ($3). */
const THIS_WRITE_WON = `exists (select 1 from commerce_sessions
  where winery_id = $1 and id = $2 and write_id = $3)`;

/** 2. The stored items, deleted only by the write that won. */
const DELETE_ITEMS_SQL = `delete from commerce_session_items
where winery_id = $1 and session_id = $2 and ${THIS_WRITE_WON}`;

/**
 * 3. The sent items ($4, one jsonb array, so a session of 1,000 items is still one statement),
 *    inserted only by the write that won.
 */
const INSERT_ITEMS_SQL = `insert into commerce_session_items (winery_id, session_id, id, position,
  attributes, booking_comp_id, component, editable, experience_id, item_type, line_index, locked,
  name, product_id, qty, reservation_id, unit_price_cents, vat_percent)
select $1, $2, i.id, i.position, i.attributes, i.booking_comp_id, i.component, i.editable,
  i.experience_id, i.item_type, i.line_index, i.locked, i.name, i.product_id, i.qty,
  i.reservation_id, i.unit_price_cents, i.vat_percent
from jsonb_to_recordset($4::jsonb) as i(id uuid, position int, attributes jsonb,
  booking_comp_id text, component text, editable boolean, experience_id uuid, item_type text,
  line_index int, locked boolean, name text, product_id text, qty int, reservation_id uuid,
  unit_price_cents bigint, vat_percent int)
where ${THIS_WRITE_WON}`;

/** 4. The session as it now is: its version, whether this write ($3) won, and the answer. */
const READ_SQL = `select s.version, s.write_id = $3 as won, ${SESSION_DOCUMENT} as session
from commerce_sessions s where s.winery_id = $1 and s.id = $2`;

const json = (value: unknown) => (value == null ? null : JSON.stringify(value));

/**
 * E3. One round trip, one transaction (a Neon HTTP batch of fixed SQL text, see rawBatch):
 * 1. INSERT ... ON CONFLICT (winery, id) DO UPDATE ... WHERE version = $sent: a new id is created
 *    at version 1, a known one replaced at version + 1 (createdAt kept). Two concurrent creates of
 *    one id cannot both create: the loser's INSERT becomes a replace (or, with a version, fails it).
 *    The row lock taken here serialises every concurrent write of the session until commit.
 * 2. and 3. delete the stored items and insert the sent ones, only if the session now carries this
 *    write's id (so a lost version check leaves the items untouched);
 * 4. read the session back: the answer (as Postgres builds it, SESSION_DOCUMENT), or the current
 *    version for STALE_UPDATE.
 */
export async function putCommerceSession(
  db: HttpDb,
  wineryId: string,
  sessionId: string,
  input: CommerceSessionInput,
): Promise<CommerceSession> {
  assertBodyIdIsPathId(input.id, sessionId, "must equal the path's sessionId");
  const writeId = crypto.randomUUID();
  const items = (input.items ?? []).map((item, position) => ({
    id: item.id ?? crypto.randomUUID(),
    position,
    attributes: item.attributes ?? null,
    booking_comp_id: item.bookingCompId ?? null,
    component: item.component ?? null,
    editable: item.editable ?? null,
    experience_id: item.experienceId ?? null,
    item_type: item.itemType ?? null,
    line_index: item.lineIndex ?? null,
    locked: item.locked ?? null,
    name: item.name ?? null,
    product_id: item.productId ?? null,
    qty: item.qty ?? null,
    reservation_id: item.reservationId ?? null,
    unit_price_cents: item.unitPriceCents ?? null,
    vat_percent: item.vatPercent ?? null,
  }));
  const key = [wineryId, sessionId, writeId];
  const [written, , , read] = await rawBatch(db, [
    [
      UPSERT_SQL,
      [
        wineryId,
        sessionId,
        input.cartMode ?? null,
        input.channel ?? null,
        input.customName ?? null,
        input.status ?? null,
        json(input.contacts),
        json(input.discounts),
        json(input.metadata),
        input.guests ?? null,
        input.pointOfSaleId ?? null,
        input.roomId ?? null,
        input.tableId ?? null,
        input.sourceExperienceId ?? null,
        input.sourceReservationId ?? null,
        writeId,
        input.version ?? null,
      ],
    ],
    [DELETE_ITEMS_SQL, key],
    [INSERT_ITEMS_SQL, [...key, JSON.stringify(items)]],
    [READ_SQL, key],
  ]);
  const current = read?.[0] as
    | { version: number; won: boolean; session: CommerceSession }
    | undefined;
  if (!current) throw new Error("session upsert left no row");
  if (!written?.length || !current.won) {
    throw new StaleUpdateError({ currentVersion: current.version });
  }
  return current.session;
}
