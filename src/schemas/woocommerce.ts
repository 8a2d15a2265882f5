import { z } from "@hono/zod-openapi";
import {
  AMOUNT_FORMAT_MESSAGE,
  decimalToCents,
  multiplyCents,
  PRODUCT_OUT_OF_RANGE,
} from "../lib/money";

/**
 * The WooCommerce REST API order (wc/v3 `GET /orders/{id}`), reduced to the fields E19 uses (the
 * mapping onto ExternalOrder is src/services/orders/woocommerce.ts). Amounts arrive in major units, as decimal strings ("19.99") or,
 * for a line item's `price`, as a JSON number; they become exact integer cents (see money.ts).
 * Unknown fields are ignored, never stored.
 */

/** One field's cap: unit prices and VAT are int32 cents in the database. */
export const MAX_AMOUNT_CENTS = 2_147_483_647;

function amount({ negative = false } = {}) {
  return z
    .union([z.string(), z.number()], {
      error: (issue) => (issue.input === undefined ? "is required" : AMOUNT_FORMAT_MESSAGE),
    })
    .transform((value, ctx) => {
      const result = decimalToCents(value);
      let message: string | undefined;
      if (!result.ok) message = result.message;
      else if (result.cents < 0 && !negative) message = "must not be negative";
      else if (Math.abs(result.cents) > MAX_AMOUNT_CENTS)
        message = "is out of range (at most 21474836.47)";
      if (!result.ok || message) {
        ctx.addIssue({ code: "custom", message: message ?? AMOUNT_FORMAT_MESSAGE });
        return z.NEVER;
      }
      return result.cents;
    });
}

/** Cents not negative as WooCommerce writes the amount: 100 -> "1.00". */
const majorUnits = (cents: number) =>
  `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;

const text = (max = 500) => z.string().max(max).nullish();
const wooId = z.int().positive();

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-](\d{2}):(\d{2}))?$/;

/**
 * The calendar day of a WooCommerce date-time. Without an offset the text is read as UTC (the
 * `_gmt` fields are UTC; `date_created` is the shop's local time, whose own day is wanted).
 */
export function dayOf(text: string): string | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // Date.UTC reads the years 0..99 as 1900..1999: the year is set on its own.
  const local = new Date(Date.UTC(2000, mo - 1, d, h, mi, s));
  local.setUTCFullYear(y);
  const real =
    local.getUTCFullYear() === y && local.getUTCMonth() === mo - 1 && local.getUTCDate() === d;
  if (!real || h > 23 || mi > 59 || s > 59) return undefined;
  const offsetMinutes = m[7] && m[7] !== "Z" ? Number(m[8]) * 60 + Number(m[9]) : 0;
  const sign = m[7]?.startsWith("-") ? -1 : 1;
  const utc = new Date(local.getTime() - sign * offsetMinutes * 60_000);
  // decisions.md: an instant in UTC outside the years 0001..9999 is refused (its ISO text would
  // be `+010000-01-01…`, which no date column takes).
  const year = utc.getUTCFullYear();
  if (year < 1 || year > 9999) return undefined;
  return utc.toISOString().slice(0, 10);
}

const dateTime = z
  .string()
  .refine(
    (s) => dayOf(s) !== undefined,
    "must be a date-time like 2026-05-01T10:00:00 (an offset optional), its instant in UTC in the years 0001..9999",
  )
  .nullish();

const AddressSchema = z.object({
  first_name: text(),
  last_name: text(),
  company: text(),
  address_1: text(),
  address_2: text(),
  city: text(),
  state: text(),
  postcode: text(50),
  country: z
    .string()
    .regex(/^\s*([A-Za-z]{2})?\s*$/, "must be an ISO 3166-1 alpha-2 country code")
    .nullish(),
  email: text(320),
  phone: text(50),
});

const MetaDataSchema = z
  .array(z.object({ id: z.int().nullish(), key: z.string().max(500), value: z.unknown() }))
  .max(1000);

const LineItemSchema = z
  .object({
    id: wooId.nullish(),
    name: text(),
    product_id: z.int().min(0).nullish(),
    variation_id: z.int().min(0).nullish(),
    sku: text(),
    quantity: z.int().min(0),
    price: amount().nullish(),
    subtotal: amount().nullish(),
    subtotal_tax: amount().nullish(),
    total: amount(),
    total_tax: amount().nullish(),
    meta_data: MetaDataSchema.nullish(),
  })
  .superRefine((line, ctx) => {
    // The mapped item carries price as unitPriceCents with the quantity (decisions.md, "Hostile input").
    if (line.price != null && multiplyCents(line.price, line.quantity) === undefined) {
      ctx.addIssue({ code: "custom", path: ["price"], message: PRODUCT_OUT_OF_RANGE });
    }
  });

/** A line before coupons, tax included (WooCommerce's `subtotal` is before discounts). */
export const grossSubtotal = (line: z.infer<typeof LineItemSchema>) =>
  (line.subtotal ?? line.total) + (line.subtotal_tax ?? line.total_tax ?? 0);

type OrderAmounts = Partial<
  Record<"shipping_total" | "shipping_tax" | "discount_total" | "discount_tax", number | null>
>;
/** The order's shipment and discount, tax included like `total` (the mapping's and Totals'). */
export const grossShipment = (order: OrderAmounts) =>
  (order.shipping_total ?? 0) + (order.shipping_tax ?? 0);
export const grossDiscount = (order: OrderAmounts) =>
  (order.discount_total ?? 0) + (order.discount_tax ?? 0);

/** Fees may be negative: WooCommerce shops use them as ad-hoc discounts. */
const FeeLineSchema = z.object({
  id: wooId.nullish(),
  name: text(),
  total: amount({ negative: true }),
  total_tax: amount({ negative: true }).nullish(),
});

export const WooCommerceOrderSchema = z
  .object({
    id: z.union([wooId, z.string().regex(/^[1-9]\d{0,15}$/)], {
      error: "must be the WooCommerce order id, a positive integer",
    }),
    number: text(100),
    order_key: text(200),
    status: text(100),
    currency: text(10),
    prices_include_tax: z.boolean().nullish(),
    customer_id: z.int().min(0).nullish(),
    // The shop's local time, whose own day the order takes when date_created_gmt is absent: that
    // day must be a date too (0000-12-31T23:00:00-02:00 is an instant of year 1, on a day of year 0).
    date_created: dateTime.refine(
      (s) => s == null || Number(s.slice(0, 4)) >= 1,
      "must be a date-time like 2026-05-01T10:00:00 in the years 0001..9999",
    ),
    date_created_gmt: dateTime,
    date_paid_gmt: dateTime,
    date_completed_gmt: dateTime,
    billing: AddressSchema.nullish(),
    shipping: AddressSchema.nullish(),
    payment_method: text(),
    payment_method_title: text(),
    transaction_id: text(),
    customer_note: text(5000),
    discount_total: amount().nullish(),
    discount_tax: amount().nullish(),
    shipping_total: amount().nullish(),
    shipping_tax: amount().nullish(),
    total: amount(),
    total_tax: amount().nullish(),
    line_items: z.array(LineItemSchema).max(1000).default([]),
    fee_lines: z.array(FeeLineSchema).max(1000).nullish(),
    shipping_lines: z
      .array(z.object({ id: wooId.nullish(), method_id: text(), method_title: text() }))
      .max(1000)
      .nullish(),
    coupon_lines: z
      .array(z.object({ id: wooId.nullish(), code: text() }))
      .max(1000)
      .nullish(),
    meta_data: MetaDataSchema.nullish(),
  })
  .superRefine((order, ctx) => {
    // The mapped order's Totals are int32 (service-interface.md): sums of amounts that each fit.
    const int32 = (cents: number, path: PropertyKey[], what: string) => {
      if (cents > MAX_AMOUNT_CENTS) {
        ctx.addIssue({
          code: "custom",
          path,
          message: `${what} must stay within 21474836.47 (Totals is int32)`,
        });
      }
    };
    // WooCommerce's total includes its total_tax, so the tax is never more than the total: the
    // mapped order's amountVatCents (total_tax) above its amountCents (total) would leave a
    // negative net total, which the ExternalOrder schema refuses E1 and E19 alike (orderAmount,
    // src/schemas/orders.ts). Said here in WooCommerce's terms, as a mapped order is never
    // validated as an ExternalOrder.
    if (order.total_tax != null && order.total_tax > order.total) {
      ctx.addIssue({
        code: "custom",
        path: ["total_tax"],
        message: `exceeds total (${majorUnits(order.total)}): the order's tax is part of its total`,
      });
    }
    int32(grossShipment(order), ["shipping_tax"], "with shipping_total");
    int32(grossDiscount(order), ["discount_tax"], "with discount_total");
    const subtotal = order.line_items.reduce((total, line) => total + grossSubtotal(line), 0);
    int32(subtotal, ["line_items"], "the lines' subtotals with their tax");
    // The mapped order's quantity is their sum: int64 within the safe-integer range (decisions.md).
    const quantity = order.line_items.reduce((total, line) => total + line.quantity, 0);
    if (!Number.isSafeInteger(quantity)) {
      ctx.addIssue({
        code: "custom",
        path: ["line_items"],
        message: `the lines' quantities must add up to at most ${Number.MAX_SAFE_INTEGER} (the order's quantity is their sum)`,
      });
    }
  });

export type WooCommerceOrder = z.infer<typeof WooCommerceOrderSchema>;

/** Keys no ExternalOrder has and every WooCommerce REST order does. */
const WOOCOMMERCE_KEYS = ["line_items", "order_key", "date_created_gmt", "shipping_lines"];

export function looksLikeWooCommerce(document: Record<string, unknown>): boolean {
  return WOOCOMMERCE_KEYS.some((key) => key in document);
}
