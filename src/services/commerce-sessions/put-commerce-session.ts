import { and, eq, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { commerceSessionItems, commerceSessions } from "../../db/schema";
import { StaleUpdateError, ValidationError } from "../../lib/errors";
import type { CommerceSession, CommerceSessionInput } from "../../schemas/commerce-sessions";
import { findSessionQuery, toCommerceSession } from "./session-record";

type SessionInsert = typeof commerceSessions.$inferInsert;

function sessionValues(wineryId: string, sessionId: string, input: CommerceSessionInput) {
  return {
    wineryId,
    id: sessionId,
    cartMode: input.cartMode ?? null,
    channel: input.channel ?? null,
    customName: input.customName ?? null,
    status: input.status ?? null,
    contacts: input.contacts ?? null,
    discounts: input.discounts ?? null,
    metadata: input.metadata ?? null,
    guests: input.guests ?? null,
    pointOfSaleId: input.pointOfSaleId ?? null,
    roomId: input.roomId ?? null,
    tableId: input.tableId ?? null,
    sourceExperienceId: input.sourceExperienceId ?? null,
    sourceReservationId: input.sourceReservationId ?? null,
  } satisfies Omit<SessionInsert, "writeId">;
}

const excluded = (column: string) => sql.raw(`excluded."${column}"`);

/** Every stored column a replace overwrites, from the row the INSERT proposed. */
const REPLACED_COLUMNS = [
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

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * E3. One round trip, one transaction (a Neon HTTP batch):
 * 1. INSERT ... ON CONFLICT (winery, id) DO UPDATE ... WHERE version = $sent: a new id is created
 *    at version 1, a known one replaced at version + 1 (createdAt kept). Two concurrent creates of
 *    one id cannot both create: the loser's INSERT becomes a replace (or, with a version, fails it).
 *    The row lock taken here serialises every concurrent write of the session until commit.
 * 2. and 3. delete the stored items and insert the sent ones, only if the session now carries this
 *    write's id (so a lost version check leaves the items untouched);
 * 4. read the session back: the answer, or the current version for STALE_UPDATE.
 */
export async function putCommerceSession(
  db: HttpDb,
  wineryId: string,
  sessionId: string,
  input: CommerceSessionInput,
): Promise<CommerceSession> {
  if (input.id != null && input.id.toLowerCase() !== sessionId.toLowerCase()) {
    throw new ValidationError([{ path: "id", message: "must equal the path's sessionId" }]);
  }
  const writeId = crypto.randomUUID();
  const key = and(eq(commerceSessions.wineryId, wineryId), eq(commerceSessions.id, sessionId));
  const set: Record<string, unknown> = {
    version: sql`${commerceSessions.version} + 1`,
    updatedAt: sql`now()`,
  };
  for (const column of REPLACED_COLUMNS) set[camel(column)] = excluded(column);

  const upsert = db
    .insert(commerceSessions)
    .values({ ...sessionValues(wineryId, sessionId, input), writeId })
    .onConflictDoUpdate({
      target: [commerceSessions.wineryId, commerceSessions.id],
      set,
      ...(input.version != null && { setWhere: eq(commerceSessions.version, input.version) }),
    })
    .returning({ version: commerceSessions.version });

  const thisWriteWon = sql`exists (select 1 from ${commerceSessions} where ${key} and ${commerceSessions.writeId} = ${writeId})`;
  const deleteItems = db
    .delete(commerceSessionItems)
    .where(
      and(
        eq(commerceSessionItems.wineryId, wineryId),
        eq(commerceSessionItems.sessionId, sessionId),
        thisWriteWon,
      ),
    );
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
  // The items travel as one jsonb parameter, so a session of 1,000 items is still one statement.
  const insertItems = db.execute(sql`
    insert into ${commerceSessionItems} (winery_id, session_id, id, position, attributes,
      booking_comp_id, component, editable, experience_id, item_type, line_index, locked, name,
      product_id, qty, reservation_id, unit_price_cents, vat_percent)
    select ${wineryId}, ${sessionId}, i.id, i.position, i.attributes, i.booking_comp_id,
      i.component, i.editable, i.experience_id, i.item_type, i.line_index, i.locked, i.name,
      i.product_id, i.qty, i.reservation_id, i.unit_price_cents, i.vat_percent
    from jsonb_to_recordset(${JSON.stringify(items)}::jsonb) as i(id uuid, position int,
      attributes jsonb, booking_comp_id text, component text, editable boolean,
      experience_id uuid, item_type text, line_index int, locked boolean, name text,
      product_id text, qty int, reservation_id uuid, unit_price_cents bigint, vat_percent int)
    where ${thisWriteWon}`);

  const [written, , , current] = await db.batch([
    upsert,
    deleteItems,
    insertItems,
    findSessionQuery(db, wineryId, sessionId),
  ]);
  if (!current) throw new Error("session upsert left no row");
  if (written.length === 0 || current.writeId !== writeId) {
    throw new StaleUpdateError({ currentVersion: current.version });
  }
  return toCommerceSession(current);
}
