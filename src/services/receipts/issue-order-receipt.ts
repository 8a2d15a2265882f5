import { sql } from "drizzle-orm";
import { receiptLines, receiptPayments, receipts, wineryCounters } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import type { OrderWithItems } from "../orders/order-record";

export const DEFAULT_CURRENCY = "EUR";

/** VAT contained in a gross amount at `percent`, rounded half up to the cent. */
export function vatOfGross(grossCents: number, percent: number): number {
  if (percent <= 0) return 0;
  return Math.round((grossCents * percent) / (100 + percent));
}

/**
 * Issues the fiscal receipt of an imported order, inside the import's transaction: the winery's
 * next progressive number (an atomic counter upsert, so concurrent imports never share one), a line
 * per item and one payment for the paid amount. Amounts are gross (VAT included).
 */
export async function issueOrderReceipt(tx: AnyDb, order: OrderWithItems): Promise<string> {
  const [counter] = await tx
    .insert(wineryCounters)
    .values({ wineryId: order.wineryId, name: "receipt", value: 1 })
    .onConflictDoUpdate({
      target: [wineryCounters.wineryId, wineryCounters.name],
      set: { value: sql`${wineryCounters.value} + 1`, updatedAt: sql`now()` },
    })
    .returning({ value: wineryCounters.value });
  if (!counter) throw new Error("receipt counter upsert returned no row");

  const lines = order.items.map((item, index) => {
    const quantity = item.quantity ?? 1;
    const gross = item.amountCents ?? (item.unitPriceCents ?? 0) * quantity;
    const vat = vatOfGross(gross, item.vatPercentage ?? order.amountVatPercentage ?? 0);
    return {
      description: item.name,
      discountAmountCents: item.amountDiscountCents ?? 0,
      entityId: item.sku ?? item.externalId,
      entityType: item.type ?? "PRODUCT",
      lineNumber: index + 1,
      lineType: "SALE",
      netTotalCents: gross - vat,
      quantity,
      saleRowId: item.id,
      unitPriceCents: item.unitPriceCents ?? (quantity ? Math.round(gross / quantity) : gross),
      vatAmountCents: vat,
      vatPercent: item.vatPercentage,
    };
  });
  const vatAmountCents =
    order.amountVatCents ?? lines.reduce((sum, line) => sum + line.vatAmountCents, 0);
  const customerName =
    [order.buyerFirstname, order.buyerLastname].filter(Boolean).join(" ") || null;

  const [receipt] = await tx
    .insert(receipts)
    .values({
      wineryId: order.wineryId,
      orderId: order.id,
      externalEntityId: order.uuid,
      wineryChannelId: order.channelId,
      terminalName: order.sourceExternalType,
      customerName,
      receiptType: "ORDER",
      fiscalOperation: "RECEIPT",
      status: "CREATED",
      authorityCommunicationState: "TODO",
      saleDocumentState: "NONE",
      refDate: new Date(`${order.orderDate}T00:00:00.000Z`),
      discountTotalCents: order.amountDiscountCents ?? 0,
      totalCents: order.amountCents,
      totalNoVatCents: order.amountCents - vatAmountCents,
      vatAmountCents,
      progressiveNumber: counter.value,
    })
    .returning({ id: receipts.id });
  if (!receipt) throw new Error("receipt insert returned no row");

  if (lines.length > 0) {
    await tx.insert(receiptLines).values(lines.map((line) => ({ ...line, receiptId: receipt.id })));
  }
  await tx.insert(receiptPayments).values({
    receiptId: receipt.id,
    currency: DEFAULT_CURRENCY,
    grossTotalCents: order.amountCents,
    method: order.paymentMethod,
    paymentNumber: 1,
    status: "PAID",
    externalId: order.externalId,
  });
  return receipt.id;
}
