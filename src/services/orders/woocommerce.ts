import type { ExternalOrder, ExternalOrderItem } from "../../schemas/orders";
import {
  dayOf,
  grossDiscount,
  grossShipment,
  grossSubtotal,
  type WooCommerceOrder,
} from "../../schemas/woocommerce";

/** The WooCommerce REST API order mapped onto ExternalOrder (E19); its schema: src/schemas/woocommerce.ts. */

/**
 * The VAT rate of a line, when its cents pin down one whole percentage: the rate must reproduce
 * the tax to within half a cent, and its neighbours must not (tiny amounts cannot tell 10% from
 * 20%). WooCommerce does not send the rate on a line; fractional rates (5.5%) come out null.
 */
export function deriveVatPercentage(netCents: number, taxCents: number): number | null {
  if (netCents <= 0 || taxCents < 0) return null;
  const rate = Math.round((taxCents * 100) / netCents);
  const fits = (r: number) => Math.abs((netCents * r) / 100 - taxCents) <= 0.5;
  if (rate > 100 || !fits(rate)) return null;
  if ((rate > 0 && fits(rate - 1)) || fits(rate + 1)) return null;
  return rate;
}

/** Blank strings (WooCommerce sends "" for every empty field) become null. */
const blank = (value: string | null | undefined) => value?.trim() || null;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const defined = <T extends object>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null));

type LineItem = WooCommerceOrder["line_items"][number];

function productItem(line: LineItem): ExternalOrderItem {
  const tax = line.total_tax ?? 0;
  const subtotal = line.subtotal ?? line.total;
  const subtotalTax = line.subtotal_tax ?? tax;
  return {
    externalId: line.id != null ? String(line.id) : null,
    type: "product",
    sku: blank(line.sku),
    name: blank(line.name),
    quantity: line.quantity,
    unitPriceCents: line.price ?? null,
    amountCents: line.total + tax,
    amountDiscountCents: grossSubtotal(line) - (line.total + tax),
    vatPercentage: deriveVatPercentage(line.total, tax),
    pricingBreakdown: {
      subtotalCents: subtotal,
      subtotalTaxCents: subtotalTax,
      totalCents: line.total,
      totalTaxCents: tax,
    },
    extraMetadata: {
      woocommerce: defined({
        product_id: line.product_id,
        variation_id: line.variation_id,
        meta_data: line.meta_data,
      }),
    },
  };
}

function feeItem(fee: NonNullable<WooCommerceOrder["fee_lines"]>[number]): ExternalOrderItem {
  const tax = fee.total_tax ?? 0;
  return {
    externalId: fee.id != null ? String(fee.id) : null,
    type: "fee",
    name: blank(fee.name),
    quantity: 1,
    unitPriceCents: fee.total,
    amountCents: fee.total + tax,
    vatPercentage: deriveVatPercentage(fee.total, tax),
    pricingBreakdown: { totalCents: fee.total, totalTaxCents: tax },
  };
}

/** One whole rate shared by every product line, else null. */
function orderVatPercentage(items: ExternalOrderItem[]): number | null {
  const rates = new Set(items.filter((i) => i.type === "product").map((i) => i.vatPercentage));
  const [only] = rates;
  return rates.size === 1 && only != null ? only : null;
}

/**
 * WooCommerce order -> ExternalOrder. Order-level amounts are gross (tax included) like
 * `amountCents`: shipment = shipping_total + shipping_tax, discount = discount_total + discount_tax.
 */
export function wooCommerceToExternalOrder(
  order: WooCommerceOrder,
  tagName: string,
): ExternalOrder {
  const id = String(order.id);
  const billing = order.billing ?? {};
  const products = order.line_items.map(productItem);
  const items = [...products, ...(order.fee_lines ?? []).map(feeItem)];
  const shipmentCents = grossShipment(order);
  const discountCents = grossDiscount(order);
  const date =
    (order.date_created_gmt && dayOf(order.date_created_gmt)) ||
    order.date_created?.slice(0, 10) ||
    null;

  return {
    id,
    sourceExternal: { id, type: tagName },
    status: blank(order.status),
    date,
    buyerFirstname: blank(billing.first_name),
    buyerLastname: blank(billing.last_name),
    buyerEmail: blank(billing.email),
    buyerPhone: blank(billing.phone),
    addressName: blank(billing.company),
    address:
      [blank(billing.address_1), blank(billing.address_2)].filter(Boolean).join(", ") || null,
    city: blank(billing.city),
    province: blank(billing.state),
    zipcode: blank(billing.postcode),
    countryIso: blank(billing.country)?.toUpperCase() ?? null,
    amountCents: order.total,
    amountVatCents: order.total_tax ?? null,
    amountShipmentCents: shipmentCents,
    amountDiscountCents: discountCents,
    amountVatPercentage: orderVatPercentage(items),
    quantity: sum(products.map((item) => item.quantity ?? 0)),
    paymentMethod: blank(order.payment_method),
    notes: blank(order.customer_note),
    items,
    totals: {
      subtotalCents: sum(order.line_items.map(grossSubtotal)),
      discountCents,
      shipmentCents,
      taxCents: order.total_tax ?? 0,
      totalCents: order.total,
    },
    extraMetadata: {
      woocommerce: defined({
        number: order.number,
        order_key: order.order_key,
        currency: order.currency,
        prices_include_tax: order.prices_include_tax,
        customer_id: order.customer_id,
        payment_method_title: order.payment_method_title,
        transaction_id: order.transaction_id,
        date_created: order.date_created,
        date_created_gmt: order.date_created_gmt,
        date_paid_gmt: order.date_paid_gmt,
        date_completed_gmt: order.date_completed_gmt,
        shipping: order.shipping,
        shipping_lines: order.shipping_lines,
        coupon_lines: order.coupon_lines,
        meta_data: order.meta_data,
      }),
    },
  };
}
