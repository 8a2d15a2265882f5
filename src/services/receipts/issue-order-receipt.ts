import { sql } from "drizzle-orm";
import type { AnyDb } from "../../db/types";
import type { OrderWithItems } from "../orders/order-record";

export const DEFAULT_CURRENCY = "EUR";

/** VAT contained in a gross amount at `percent`, rounded half up to the cent. */
export function vatOfGross(grossCents: number, percent: number): number {
  if (percent <= 0) return 0;
  return Math.round((grossCents * percent) / (100 + percent));
}

/** The receipt's figures, computed from the stored order: a line per item, amounts gross. */
export function orderReceiptFigures(order: OrderWithItems) {
  const lines = order.items.map((item, index) => {
    const quantity = item.quantity ?? 1;
    const gross = item.amountCents ?? (item.unitPriceCents ?? 0) * quantity;
    const vat = vatOfGross(gross, item.vatPercentage ?? order.amountVatPercentage ?? 0);
    return {
      description: item.name,
      discount_amount_cents: item.amountDiscountCents ?? 0,
      entity_id: item.sku ?? item.externalId,
      entity_type: item.type ?? "PRODUCT",
      line_number: index + 1,
      line_type: "SALE",
      net_total_cents: gross - vat,
      quantity,
      sale_row_id: item.id,
      unit_price_cents: item.unitPriceCents ?? (quantity ? Math.round(gross / quantity) : gross),
      vat_amount_cents: vat,
      vat_percent: item.vatPercentage,
    };
  });
  const vatAmountCents =
    order.amountVatCents ?? lines.reduce((sum, line) => sum + line.vat_amount_cents, 0);
  const customerName =
    [order.buyerFirstname, order.buyerLastname].filter(Boolean).join(" ") || null;
  return { lines, vatAmountCents, customerName };
}

/**
 * Issues the fiscal receipt of an imported order inside the import's transaction, in ONE statement
 * (each statement of an interactive transaction is a network round trip to the database): the
 * winery's next progressive number (an atomic counter upsert, so concurrent imports never share
 * one), the receipt, a line per item and one payment for the paid amount.
 */
export async function issueOrderReceipt(tx: AnyDb, order: OrderWithItems): Promise<void> {
  const { lines, vatAmountCents, customerName } = orderReceiptFigures(order);
  const refDate = `${order.orderDate}T00:00:00.000Z`;
  await tx.execute(sql`
    with counter as (
      insert into winery_counters (winery_id, name, value) values (${order.wineryId}, 'receipt', 1)
      on conflict (winery_id, name)
        do update set value = winery_counters.value + 1, updated_at = now()
      returning value
    ),
    receipt as (
      insert into receipts (
        winery_id, order_id, external_entity_id, winery_channel_id, terminal_name, customer_name,
        receipt_type, fiscal_operation, status, authority_communication_state, sale_document_state,
        ref_date, discount_total_cents, total_cents, total_no_vat_cents, vat_amount_cents,
        progressive_number)
      select ${order.wineryId}, ${order.id}, ${order.uuid}, ${order.channelId},
        ${order.sourceExternalType}, ${customerName}, 'ORDER', 'RECEIPT', 'CREATED', 'TODO', 'NONE',
        ${refDate}::timestamptz, ${order.amountDiscountCents ?? 0}, ${order.amountCents},
        ${order.amountCents - vatAmountCents}, ${vatAmountCents}, counter.value
      from counter
      returning id
    ),
    receipt_line_rows as (
      insert into receipt_lines (
        receipt_id, description, discount_amount_cents, entity_id, entity_type, line_number,
        line_type, net_total_cents, quantity, sale_row_id, unit_price_cents, vat_amount_cents,
        vat_percent)
      select receipt.id, l.description, l.discount_amount_cents, l.entity_id, l.entity_type,
        l.line_number, l.line_type, l.net_total_cents, l.quantity, l.sale_row_id,
        l.unit_price_cents, l.vat_amount_cents, l.vat_percent
      from receipt, jsonb_to_recordset(${JSON.stringify(lines)}::jsonb) as l(
        description text, discount_amount_cents bigint, entity_id text, entity_type text,
        line_number int, line_type text, net_total_cents bigint, quantity numeric,
        sale_row_id bigint, unit_price_cents bigint, vat_amount_cents bigint, vat_percent int)
    )
    insert into receipt_payments (
      receipt_id, currency, gross_total_cents, method, payment_number, status, external_id)
    select receipt.id, ${DEFAULT_CURRENCY}, ${order.amountCents}, ${order.paymentMethod}, 1, 'PAID',
      ${order.externalId}
    from receipt`);
}
