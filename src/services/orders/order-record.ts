import type { orderItems, orders, salesChannels } from "../../db/schema";
import {
  type ExternalOrder,
  type Order,
  type OrderTotals,
  orderAmount,
} from "../../schemas/orders";

type OrderRow = typeof orders.$inferSelect;
type OrderInsert = typeof orders.$inferInsert;
type ItemRow = typeof orderItems.$inferSelect;
type ItemInsert = typeof orderItems.$inferInsert;

export type OrderWithItems = OrderRow & {
  items: ItemRow[];
  channel: Pick<typeof salesChannels.$inferSelect, "apiChannelKey"> | null;
};

/**
 * The amount paid (see orderAmount). A client's order was validated by the route's schema; a
 * WooCommerce order was mapped from a validated one, whose line discounts (a coupon of more than
 * the discounted `price` × quantity) orderAmount's client rule would refuse: they are trusted.
 */
export function orderAmountCents(input: ExternalOrder): number {
  const amount = orderAmount(input, { lineDiscounts: "trusted" });
  if (!amount.ok) throw new Error(`unvalidated order amount at ${amount.path.join(".")}`);
  return amount.cents;
}

/**
 * The totals an order is stored with: the seven members of the interface's Totals, each present,
 * null where the order did not give it; an order without totals keeps null. Every answer (E1, GET,
 * E2, E20) gives the column as stored, built by Postgres in one statement, so the shape is made
 * here, once, where E1 and E19 write (rows written before: migration 0013). The free-form
 * discounts and extraMetadata are kept as sent.
 */
export function storedTotals(totals: ExternalOrder["totals"]): OrderTotals | null {
  if (totals == null) return null;
  return {
    discountCents: totals.discountCents ?? null,
    discounts: totals.discounts ?? null,
    extraMetadata: totals.extraMetadata ?? null,
    shipmentCents: totals.shipmentCents ?? null,
    subtotalCents: totals.subtotalCents ?? null,
    taxCents: totals.taxCents ?? null,
    totalCents: totals.totalCents ?? null,
  };
}

const todayUtc = () => new Date().toISOString().slice(0, 10);

/** Column values of an imported order; `undefined` leaves a column to its default. */
export function orderValues(
  input: ExternalOrder,
  owner: { wineryId: string; channelId?: string; pluginTag?: string },
): OrderInsert {
  return {
    wineryId: owner.wineryId,
    channelId: owner.channelId ?? null,
    pluginTag: owner.pluginTag ?? null,
    externalId: input.id,
    sourceExternalId: input.sourceExternal?.id ?? null,
    sourceExternalType: input.sourceExternal?.type ?? null,
    address: input.address ?? null,
    addressName: input.addressName ?? null,
    city: input.city ?? null,
    countryIso: input.countryIso?.toUpperCase() ?? null,
    province: input.province ?? null,
    region: input.region ?? null,
    zipcode: input.zipcode ?? null,
    amountCents: orderAmountCents(input),
    amountDiscountCents: input.amountDiscountCents ?? null,
    amountExciseDutyCents: input.amountExciseDutyCents ?? null,
    amountVatCents: input.amountVatCents ?? null,
    amountShipmentCents: input.amountShipmentCents ?? null,
    amountVatPercentage: input.amountVatPercentage ?? null,
    buyerEmail: input.buyerEmail ?? null,
    buyerFirstname: input.buyerFirstname ?? null,
    buyerLastname: input.buyerLastname ?? null,
    buyerPhone: input.buyerPhone ?? null,
    orderDate: input.date ?? todayUtc(),
    extraMetadata: input.extraMetadata ?? null,
    userMetadata: input.userMetadata ?? null,
    marketingManual: input.marketingManual ?? null,
    notes: input.notes ?? null,
    paymentMethod: input.paymentMethod ?? null,
    schemaVersion: input.schemaVersion ?? null,
    status: input.status ?? null,
    quantity: input.quantity ?? null,
    sourceSyncedAt: input.sourceSyncedAt ? new Date(input.sourceSyncedAt) : null,
    totals: storedTotals(input.totals),
  };
}

/** Column values of an order's items, without their order id: callers reference the order. */
export type ItemValues = Omit<ItemInsert, "orderId">;

export function itemValues(input: ExternalOrder, wineryId: string): ItemValues[] {
  return (input.items ?? []).map((item, lineIndex) => ({
    wineryId,
    lineIndex,
    amountCents: item.amountCents ?? null,
    amountDiscountCents: item.amountDiscountCents ?? null,
    attributesSnapshot: item.attributesSnapshot ?? null,
    commercialDiscounts: item.commercialDiscounts ?? null,
    discounts: item.discounts ?? null,
    externalId: item.externalId ?? null,
    extraMetadata: item.extraMetadata ?? null,
    name: item.name ?? null,
    pricingBreakdown: item.pricingBreakdown ?? null,
    quantity: item.quantity ?? null,
    sku: item.sku ?? null,
    type: item.type ?? null,
    unitPriceCents: item.unitPriceCents ?? null,
    vatPercentage: item.vatPercentage ?? null,
  }));
}

/** The one wire shape of an order: E1, GET, E2 and E20 all answer it. */
export function toOrder(row: OrderWithItems): Order {
  const items = [...row.items].sort((a, b) => a.lineIndex - b.lineIndex);
  return {
    id: row.id,
    externalId: row.externalId,
    channel: row.channel?.apiChannelKey ?? null,
    tagName: row.pluginTag,
    sourceExternal:
      row.sourceExternalId !== null || row.sourceExternalType !== null
        ? { id: row.sourceExternalId ?? "", type: row.sourceExternalType ?? "" }
        : null,
    address: row.address,
    addressName: row.addressName,
    city: row.city,
    countryIso: row.countryIso,
    province: row.province,
    region: row.region,
    zipcode: row.zipcode,
    amountCents: row.amountCents,
    amountDiscountCents: row.amountDiscountCents,
    amountExciseDutyCents: row.amountExciseDutyCents,
    amountVatCents: row.amountVatCents,
    amountShipmentCents: row.amountShipmentCents,
    amountVatPercentage: row.amountVatPercentage,
    buyerEmail: row.buyerEmail,
    buyerFirstname: row.buyerFirstname,
    buyerLastname: row.buyerLastname,
    buyerPhone: row.buyerPhone,
    date: row.orderDate,
    extraMetadata: row.extraMetadata,
    userMetadata: row.userMetadata,
    marketingManual: row.marketingManual,
    notes: row.notes,
    paymentMethod: row.paymentMethod,
    schemaVersion: row.schemaVersion,
    status: row.status,
    quantity: row.quantity,
    sourceSyncedAt: row.sourceSyncedAt?.toISOString() ?? null,
    totals: row.totals as OrderTotals | null, // written by storedTotals
    items: items.map(({ orderId: _o, wineryId: _w, lineIndex: _l, ...item }) => item),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
