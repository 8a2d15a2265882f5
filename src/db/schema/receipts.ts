import { relations } from "drizzle-orm";
import {
  bigint,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { idColumn, timestampMs, timestamps } from "./columns";
import { orders } from "./orders";
import { wineries } from "./wineries";

/** Fiscal receipts (ReceiptV2DTO). An imported order issues one in the same transaction. */
export const receipts = pgTable(
  "receipts",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    orderId: bigint({ mode: "number" }).references(() => orders.id),
    externalEntityId: uuid(),
    integrationId: uuid(),
    pointOfSaleSuiteId: uuid(),
    referencedReceiptId: uuid(),
    wineryChannelId: uuid(),
    terminalId: text(),
    terminalName: text(),
    customerName: text(),
    adeDocumentNumber: text(),
    authorityCommunicationState: text().notNull(),
    cancellationReason: text(),
    externalReceiptId: text(),
    extraData: text(),
    fiscalOperation: text().notNull(),
    internalDocumentNumber: text(),
    pdfLink: text(),
    publicLink: text(),
    qrCodeData: text(),
    receiptData: text(),
    receiptType: text().notNull(),
    referencedInternalDocumentNumber: text(),
    saleDocumentState: text().notNull(),
    status: text().notNull(),
    refDate: timestampMs().notNull(),
    discountTotalCents: bigint({ mode: "number" }).notNull().default(0),
    totalCents: bigint({ mode: "number" }).notNull(),
    totalNoVatCents: bigint({ mode: "number" }).notNull(),
    vatAmountCents: bigint({ mode: "number" }).notNull(),
    progressiveNumber: integer().notNull(),
    ...timestamps,
  },
  (t) => [
    unique("receipts_winery_progressive_number").on(t.wineryId, t.progressiveNumber),
    // E4 pages at a million receipts: every index leads with the winery, then a sort key and the
    // id tie-breaker, so a page is an index range walk (either direction) that stops at LIMIT.
    // progressiveNumber sorts through the unique key above.
    index("receipts_winery_created_at_idx").on(t.wineryId, t.createdAt, t.id),
    index("receipts_winery_ref_date_idx").on(t.wineryId, t.refDate, t.id),
    index("receipts_winery_total_cents_idx").on(t.wineryId, t.totalCents, t.id),
    // The channel filter is the common narrow one (a shop, a terminal's channel).
    index("receipts_winery_channel_created_at_idx").on(
      t.wineryId,
      t.wineryChannelId,
      t.createdAt,
      t.id,
    ),
    index("receipts_order_idx").on(t.orderId),
  ],
);

export const receiptLines = pgTable(
  "receipt_lines",
  {
    id: idColumn(),
    receiptId: uuid()
      .notNull()
      .references(() => receipts.id, { onDelete: "cascade" }),
    additionalText: text(),
    description: text(),
    discountAmountCents: bigint({ mode: "number" }).notNull().default(0),
    discountPercent: integer(),
    entityId: text(),
    entityType: text(),
    fiscalNatureId: uuid(),
    inlineDiscountAmountCents: bigint({ mode: "number" }),
    inlineDiscountName: text(),
    lineNumber: integer().notNull(),
    lineType: text().notNull(),
    netTotalCents: bigint({ mode: "number" }).notNull(),
    quantity: numeric({ mode: "number" }).notNull(),
    saleRowId: bigint({ mode: "number" }),
    stornoReceiptId: uuid(),
    unit: text(),
    unitPriceCents: bigint({ mode: "number" }).notNull(),
    vatAmountCents: bigint({ mode: "number" }).notNull(),
    vatPercent: integer(),
    ...timestamps,
  },
  (t) => [index().on(t.receiptId)],
);

export const receiptPayments = pgTable(
  "receipt_payments",
  {
    id: idColumn(),
    receiptId: uuid()
      .notNull()
      .references(() => receipts.id, { onDelete: "cascade" }),
    currency: text().notNull(),
    externalId: text(),
    grossTotalCents: bigint({ mode: "number" }).notNull(),
    method: text(),
    paymentId: uuid(),
    paymentNumber: integer().notNull(),
    provider: text(),
    status: text().notNull(),
    ...timestamps,
  },
  (t) => [index().on(t.receiptId)],
);

/** Per-winery sequences (receipt progressive numbers), advanced atomically with an upsert. */
export const wineryCounters = pgTable(
  "winery_counters",
  {
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    name: text().notNull(),
    value: bigint({ mode: "number" }).notNull(),
    updatedAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.wineryId, t.name] })],
);

export const receiptsRelations = relations(receipts, ({ many }) => ({
  receiptLines: many(receiptLines),
  receiptPayments: many(receiptPayments),
}));

export const receiptLinesRelations = relations(receiptLines, ({ one }) => ({
  receipt: one(receipts, { fields: [receiptLines.receiptId], references: [receipts.id] }),
}));

export const receiptPaymentsRelations = relations(receiptPayments, ({ one }) => ({
  receipt: one(receipts, { fields: [receiptPayments.receiptId], references: [receipts.id] }),
}));
