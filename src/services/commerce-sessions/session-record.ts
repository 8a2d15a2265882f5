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
