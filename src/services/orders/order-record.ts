import type { orderItems, orders } from "../../db/schema";
import { type ExternalOrder, type OrderTotals, orderAmount } from "../../schemas/orders";

type OrderInsert = typeof orders.$inferInsert;
type ItemInsert = typeof orderItems.$inferInsert;

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
