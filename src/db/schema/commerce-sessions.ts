import { relations } from "drizzle-orm";
import {
  bigint,
  boolean,
  foreignKey,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uuid,
} from "drizzle-orm/pg-core";
import { timestamps } from "./columns";
import { wineries } from "./wineries";

type Json = Record<string, unknown>;

/**
 * Commerce sessions (E3): a basket kept open by a point of sale or a storefront. The id is chosen
 * by the client, so the key is (winery, id): two wineries picking the same uuid never collide, and
 * one winery can neither see nor block another's session. Referenced ids (point of sale, room,
 * table, experience, reservation) are stored as given, without foreign keys.
 */
export const commerceSessions = pgTable(
  "commerce_sessions",
  {
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    id: uuid().notNull(),
    cartMode: text(),
    channel: text(),
    customName: text(),
    status: text(),
    contacts: jsonb().$type<Json[]>(),
    discounts: jsonb().$type<Json>(),
    metadata: jsonb().$type<Json>(),
    guests: integer(),
    pointOfSaleId: uuid(),
    roomId: uuid(),
    tableId: uuid(),
    sourceExperienceId: uuid(),
    sourceReservationId: uuid(),
    /** The server's counter: 1 on create, +1 on every replace. */
    version: integer().notNull().default(1),
    /**
     * A fresh uuid per write. The statements that replace the items run in the same transaction
     * as the session's upsert and act only when the session carries this write's id, so a write
     * that lost its version check changes nothing without reading first.
     */
    writeId: uuid().notNull(),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.wineryId, t.id] })],
);

export const commerceSessionItems = pgTable(
  "commerce_session_items",
  {
    wineryId: uuid().notNull(),
    sessionId: uuid().notNull(),
    id: uuid().notNull(),
    /** The item's place in the array as sent; items are answered in this order. */
    position: integer().notNull(),
    attributes: jsonb().$type<Json>(),
    bookingCompId: text(),
    component: text(),
    editable: boolean(),
    experienceId: uuid(),
    itemType: text(),
    lineIndex: integer(),
    locked: boolean(),
    name: text(),
    productId: text(),
    qty: integer(),
    reservationId: uuid(),
    unitPriceCents: bigint({ mode: "number" }),
    vatPercent: integer(),
  },
  (t) => [
    primaryKey({ columns: [t.wineryId, t.sessionId, t.id] }),
    foreignKey({
      columns: [t.wineryId, t.sessionId],
      foreignColumns: [commerceSessions.wineryId, commerceSessions.id],
      name: "commerce_session_items_session_fk",
    }).onDelete("cascade"),
  ],
);

export const commerceSessionsRelations = relations(commerceSessions, ({ many }) => ({
  items: many(commerceSessionItems),
}));

export const commerceSessionItemsRelations = relations(commerceSessionItems, ({ one }) => ({
  session: one(commerceSessions, {
    fields: [commerceSessionItems.wineryId, commerceSessionItems.sessionId],
    references: [commerceSessions.wineryId, commerceSessions.id],
  }),
}));
