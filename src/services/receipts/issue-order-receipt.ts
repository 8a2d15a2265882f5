import { type SQL, sql } from "drizzle-orm";
import type { orders } from "../../db/schema";
import { divideCents, roundHalfAwayFromZero, scaleCents, sumCents } from "../../lib/money";
import { itemGross } from "../../schemas/orders";
import type { ItemValues } from "../orders/order-record";

export const DEFAULT_CURRENCY = "EUR";

type OrderInsert = typeof orders.$inferInsert;

/**
 * VAT contained in a gross amount at `percent`, rounded half away from zero to the cent (the one
 * money rounding; a credit line's VAT is negative). Exact for a whole rate (BigInt), whatever the
 * amount; a fractional order rate (5.5) goes through a double.
 */
export function vatOfGross(grossCents: number, percent: number): number {
  if (percent <= 0) return 0;
  if (Number.isInteger(percent)) return scaleCents(grossCents, percent, 100 + percent);
  return roundHalfAwayFromZero((grossCents * percent) / (100 + percent));
}

/**
 * The receipt's figures, from the order as it is written: a line per item, amounts gross (each
 * line's after its own discount: itemGross), with its VAT.
 *
 * The receipt's VAT is the order's amountVatCents when sent. Else it is the lines' VAT (each at its
 * item's rate, else the order's amountVatPercentage), scaled by the share of the lines' gross that
 * was paid: what the amount leaves after shipment, when that is less than the lines' sum (the
 * order's discount, or an amount below the items'). A discount lowers the taxable base of every
 * line in proportion, so the VAT falls with it; a receipt never states more VAT than its total
 * (clamped to 0..amount). Without items, the order's rate on what was paid for goods.
 */
export function orderReceiptFigures(order: OrderInsert, items: ItemValues[]) {
  // The order's rate, for the lines without their own; a line's vatPercent is an int32, so a
  // fractional order rate (5.5) figures the VAT but is not written on the line.
  const orderRate = order.amountVatPercentage ?? null;
  const orderPercent = orderRate !== null && Number.isInteger(orderRate) ? orderRate : null;
  const lines = items.map((item, index) => {
    const quantity = item.quantity ?? 1;
    const gross = itemGross(item) ?? 0; // within range: the schema refused any other
    const percent = item.vatPercentage ?? orderPercent;
    const vat = vatOfGross(gross, percent ?? order.amountVatPercentage ?? 0);
    return {
      line_index: item.lineIndex,
      description: item.name ?? null,
      discount_amount_cents: item.amountDiscountCents ?? 0,
      entity_id: item.sku ?? item.externalId ?? null,
      entity_type: item.type ?? "PRODUCT",
      line_number: index + 1,
      line_type: "SALE",
      net_total_cents: gross - vat,
      quantity,
      unit_price_cents: item.unitPriceCents ?? (quantity ? divideCents(gross, quantity) : gross),
      vat_amount_cents: vat,
      vat_percent: percent ?? null,
      gross,
    };
  });
  const customerName =
    [order.buyerFirstname, order.buyerLastname].filter(Boolean).join(" ") || null;
  return {
    lines: lines.map(({ gross: _, ...line }) => line),
    vatAmountCents: order.amountVatCents ?? paidVat(order, lines),
    customerName,
  };
}

/**
 * The lines' VAT on the part of their gross that the amount paid (see orderReceiptFigures); an
 * order without items, the order's rate on that part. Shipment is left out of the paid goods (it
 * has no line); a negative one is taken as a discount, so it leaves the goods as they are.
 */
function paidVat(order: OrderInsert, lines: { gross: number; vat_amount_cents: number }[]): number {
  const goods = Math.max(order.amountCents - Math.max(order.amountShipmentCents ?? 0, 0), 0);
  let vat: number;
  if (lines.length === 0) {
    vat = vatOfGross(goods, order.amountVatPercentage ?? 0);
  } else {
    const linesVat = sumCents(lines.map((line) => line.vat_amount_cents)) ?? 0;
    const linesGross = sumCents(lines.map((line) => line.gross)) ?? 0;
    vat = linesGross > 0 && goods < linesGross ? scaleCents(linesVat, goods, linesGross) : linesVat;
  }
  return Math.min(Math.max(vat, 0), order.amountCents);
}

export interface OrderReference {
  /**
   * The name of an earlier CTE of the same statement (E1's inserts) that holds the order's `id`
   * and `uuid`: one row; none issues nothing and takes no number (a duplicate import).
   */
  order: string;
  /**
   * The name of an earlier CTE holding the order's items as inserted (`id`, `line_index`): the
   * receipt lines take their sale_row_id from it, since a statement does not see the rows that
   * its own CTEs write.
   */
  items: string;
  /** SQL for the order's channel id. */
  channelId: SQL;
}

/** The values the receipt statement binds, computed from the order as it is written. */
export const RECEIPT_PARAMS = [
  "wineryId",
  "externalId",
  "terminalName",
  "customerName",
  "refDate",
  "discountTotalCents",
  "totalCents",
  "totalNoVatCents",
  "vatAmountCents",
  // The lines as JSON text (a jsonb parameter): one statement for any number of lines.
  "lines",
  "paymentMethod",
] as const;
export type OrderReceiptParams = Record<(typeof RECEIPT_PARAMS)[number], unknown>;

export function orderReceiptParams(order: OrderInsert, items: ItemValues[]): OrderReceiptParams {
  // totalNoVatCents is never negative: the ExternalOrder schema refuses an amountVatCents above
  // the amount (orderAmount, src/schemas/orders.ts), and a VAT the receipt derives never exceeds
  // it (orderReceiptFigures).
  const { lines, vatAmountCents, customerName } = orderReceiptFigures(order, items);
  return {
    wineryId: order.wineryId,
    terminalName: order.sourceExternalType ?? null,
    customerName,
    refDate: `${order.orderDate}T00:00:00.000Z`,
    // The order's discount and its lines' own (decisions.md's range: the schema summed them).
    discountTotalCents: sumCents([
      order.amountDiscountCents ?? 0,
      ...items.map((item) => item.amountDiscountCents ?? 0),
    ]),
    totalCents: order.amountCents,
    totalNoVatCents: order.amountCents - vatAmountCents,
    vatAmountCents,
    lines: JSON.stringify(lines),
    paymentMethod: order.paymentMethod ?? null,
    externalId: order.externalId,
  };
}

/**
 * The fiscal receipt of an imported order as CTEs that follow the ones writing the order and its
 * items, in the same statement (a comma-led list to append to its WITH): the winery's next
 * progressive number (an atomic counter upsert, so concurrent imports never share one), the
 * receipt (ORDER, RECEIPT, CREATED, TODO, NONE), a line per item (joined to the inserted items by
 * line index) and one payment for the paid amount, whose CTE is `receipt_payment` (the statement's
 * final query may read it or nothing). Its text depends on nothing but `ref`'s: every value is a
 * parameter (see orderReceiptParams), so it can be rendered once (renderedOnce) with markers in
 * their places.
 */
export function orderReceiptCtes(p: OrderReceiptParams, ref: OrderReference): SQL {
  const ord = sql.raw(ref.order);
  return sql`,
    counter as (
      insert into winery_counters (winery_id, name, value)
      select ${p.wineryId}::uuid, 'receipt', 1 from ${ord}
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
      select ${p.wineryId}, o.id, o.uuid, ${ref.channelId},
        ${p.terminalName}, ${p.customerName}, 'ORDER', 'RECEIPT', 'CREATED', 'TODO',
        'NONE', ${p.refDate}::timestamptz, ${p.discountTotalCents}, ${p.totalCents},
        ${p.totalNoVatCents}, ${p.vatAmountCents}, counter.value
      from counter, ${ord} o
      returning id
    ),
    receipt_line_rows as (
      insert into receipt_lines (
        receipt_id, description, discount_amount_cents, entity_id, entity_type, line_number,
        line_type, net_total_cents, quantity, sale_row_id, unit_price_cents, vat_amount_cents,
        vat_percent)
      select receipt.id, l.description, l.discount_amount_cents, l.entity_id, l.entity_type,
        l.line_number, l.line_type, l.net_total_cents, l.quantity, item.id, l.unit_price_cents,
        l.vat_amount_cents, l.vat_percent
      from receipt
      cross join jsonb_to_recordset(${p.lines}::jsonb) as l(
        line_index int, description text, discount_amount_cents bigint, entity_id text,
        entity_type text, line_number int, line_type text, net_total_cents bigint,
        quantity numeric, unit_price_cents bigint, vat_amount_cents bigint, vat_percent int)
      left join ${sql.raw(ref.items)} item on item.line_index = l.line_index
    ),
    receipt_payment as (
      insert into receipt_payments (
        receipt_id, currency, gross_total_cents, method, payment_number, status, external_id)
      select receipt.id, ${DEFAULT_CURRENCY}, ${p.totalCents}, ${p.paymentMethod}, 1,
        'PAID', ${p.externalId}
      from receipt
    )`;
}
