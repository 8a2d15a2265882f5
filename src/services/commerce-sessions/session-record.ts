import { and, asc, eq } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { commerceSessionItems, commerceSessions } from "../../db/schema";
import type { CommerceSession } from "../../schemas/commerce-sessions";

/** The relational read of one session with its items, in the order sent: one SQL statement. */
export function findSessionQuery(db: HttpDb, wineryId: string, sessionId: string) {
  return db.query.commerceSessions.findFirst({
    where: and(eq(commerceSessions.wineryId, wineryId), eq(commerceSessions.id, sessionId)),
    with: { items: { orderBy: [asc(commerceSessionItems.position)] } },
  });
}

type SessionWithItems = NonNullable<Awaited<ReturnType<typeof findSessionQuery>>>;

export function toCommerceSession(row: SessionWithItems): CommerceSession {
  return {
    id: row.id,
    cartMode: row.cartMode,
    channel: row.channel,
    customName: row.customName,
    status: row.status,
    contacts: row.contacts,
    discounts: row.discounts,
    metadata: row.metadata,
    guests: row.guests,
    items: row.items.map((item) => ({
      id: item.id,
      attributes: item.attributes,
      bookingCompId: item.bookingCompId,
      component: item.component,
      editable: item.editable,
      experienceId: item.experienceId,
      itemType: item.itemType,
      lineIndex: item.lineIndex,
      locked: item.locked,
      name: item.name,
      productId: item.productId,
      qty: item.qty,
      reservationId: item.reservationId,
      unitPriceCents: item.unitPriceCents,
      vatPercent: item.vatPercent,
    })),
    pointOfSaleId: row.pointOfSaleId,
    roomId: row.roomId,
    tableId: row.tableId,
    wineryId: row.wineryId,
    sourceExperienceId: row.sourceExperienceId,
    sourceReservationId: row.sourceReservationId,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const utc = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * toCommerceSession's document of the session `s`, built by Postgres as json (keys in its order,
 * items in the order sent), for the statements that answer a session without drizzle's relational
 * query: the driver parses it into the same values the mapping makes (bigint and int as numbers,
 * jsonb members as parsed JSON, timestamps of millisecond precision as ISO instants in UTC), so the
 * answer serialises to the same bytes.
 */
export const SESSION_DOCUMENT = `json_build_object(
  'id', s.id, 'cartMode', s.cart_mode, 'channel', s.channel, 'customName', s.custom_name,
  'status', s.status, 'contacts', s.contacts, 'discounts', s.discounts, 'metadata', s.metadata,
  'guests', s.guests,
  'items', coalesce((
    select json_agg(json_build_object(
      'id', i.id, 'attributes', i.attributes, 'bookingCompId', i.booking_comp_id,
      'component', i.component, 'editable', i.editable, 'experienceId', i.experience_id,
      'itemType', i.item_type, 'lineIndex', i.line_index, 'locked', i.locked, 'name', i.name,
      'productId', i.product_id, 'qty', i.qty, 'reservationId', i.reservation_id,
      'unitPriceCents', i.unit_price_cents, 'vatPercent', i.vat_percent
    ) order by i.position)
    from commerce_session_items i where i.winery_id = s.winery_id and i.session_id = s.id
  ), '[]'::json),
  'pointOfSaleId', s.point_of_sale_id, 'roomId', s.room_id, 'tableId', s.table_id,
  'wineryId', s.winery_id, 'sourceExperienceId', s.source_experience_id,
  'sourceReservationId', s.source_reservation_id, 'version', s.version,
  'createdAt', ${utc("s.created_at")}, 'updatedAt', ${utc("s.updated_at")})`;
