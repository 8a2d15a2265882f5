import { relations, type SQL, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { timestampMs, timestamps } from "./columns";
import { salesChannels, wineries } from "./wineries";

type Json = Record<string, unknown>;

/**
 * Orders imported from legacy systems (E1, per channel) and storefront plugins (E19, per plugin
 * tag). The external id is unique per channel and per plugin, which is what makes retries safe.
 */
export const orders = pgTable(
  "orders",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** Public uuid of the order, the receipt's externalEntityId. */
    uuid: uuid().notNull().defaultRandom(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    channelId: uuid().references(() => salesChannels.id),
    /** The storefront plugin (E19 tagName) an order came from. */
    pluginTag: text(),
    externalId: text().notNull(),
    sourceExternalId: text(),
    sourceExternalType: text(),
    address: text(),
    addressName: text(),
    city: text(),
    countryIso: text(),
    province: text(),
    region: text(),
    zipcode: text(),
    amountCents: bigint({ mode: "number" }).notNull(),
    amountDiscountCents: bigint({ mode: "number" }),
    amountExciseDutyCents: integer(),
    amountVatCents: integer(),
    amountShipmentCents: bigint({ mode: "number" }),
    amountVatPercentage: doublePrecision(),
    buyerEmail: text(),
    /** lower(trim(buyerEmail)): the key of the winery's contact who bought (see contacts.emailKey). */
    buyerEmailKey: text().generatedAlwaysAs((): SQL => sql`lower(trim(${orders.buyerEmail}))`),
    buyerFirstname: text(),
    buyerLastname: text(),
    buyerPhone: text(),
    orderDate: date({ mode: "string" }).notNull(),
    extraMetadata: jsonb().$type<Json>(),
    userMetadata: jsonb().$type<Json>(),
    marketingManual: boolean(),
    notes: text(),
    paymentMethod: text(),
    schemaVersion: text(),
    status: text(),
    quantity: bigint({ mode: "number" }),
    sourceSyncedAt: timestampMs(),
    totals: jsonb().$type<Json>(),
    ...timestamps,
  },
  (t) => [
    // Every order comes from a sales channel (E1) or a storefront plugin (E19).
    check("orders_source", sql`${t.channelId} is not null or ${t.pluginTag} is not null`),
    unique("orders_channel_external_id").on(t.wineryId, t.channelId, t.externalId),
    unique("orders_plugin_external_id").on(t.wineryId, t.pluginTag, t.externalId),
    index("orders_winery_date_idx").on(t.wineryId, t.orderDate, t.id),
    index("orders_winery_buyer_email_key_idx").on(t.wineryId, t.buyerEmailKey),
  ],
);

export const orderItems = pgTable(
  "order_items",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    orderId: bigint({ mode: "number" })
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    lineIndex: integer().notNull(),
    amountCents: bigint({ mode: "number" }),
    amountDiscountCents: bigint({ mode: "number" }),
    attributesSnapshot: jsonb().$type<Json>(),
    commercialDiscounts: jsonb().$type<Json>(),
    discounts: jsonb().$type<Json>(),
    externalId: text(),
    extraMetadata: jsonb().$type<Json>(),
    name: text(),
    pricingBreakdown: jsonb().$type<Json>(),
    quantity: bigint({ mode: "number" }),
    sku: text(),
    type: text(),
    unitPriceCents: integer(),
    vatPercentage: integer(),
  },
  (t) => [index().on(t.orderId)],
);

export const ordersRelations = relations(orders, ({ many, one }) => ({
  items: many(orderItems),
  channel: one(salesChannels, { fields: [orders.channelId], references: [salesChannels.id] }),
}));

export const orderItemsRelations = relations(orderItems, ({ one }) => ({
  order: one(orders, { fields: [orderItems.orderId], references: [orders.id] }),
}));

/**
 * Idempotency keys of order import (and the other routes that accept them). The row is claimed in
 * the same transaction as the write it protects, so two requests with one key can never both
 * execute; the completed response is kept for replay until `expiresAt`.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    route: text().notNull(),
    key: text().notNull(),
    requestHash: text().notNull(),
    /** A finished request's answer: the operation's result as JSON text ... */
    responseBody: text(),
    /**
     * ... or the problem it ended with (an AppError of 4xx thrown while executing, as JSON text of
     * its code, message and options): replayed as that problem. One of the two once finished.
     */
    responseError: text(),
    createdAt: timestampMs().notNull().defaultNow(),
    expiresAt: timestampMs().notNull(),
  },
  (t) => [
    unique("idempotency_keys_scope").on(t.wineryId, t.route, t.key),
    index("idempotency_keys_expires_at_idx").on(t.expiresAt),
  ],
);
