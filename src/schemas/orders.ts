import { z } from "@hono/zod-openapi";
import { compareDateTimes } from "../lib/instant";
import { multiplyCents, PRODUCT_OUT_OF_RANGE, sumCents } from "../lib/money";
import { explainedIssues } from "../lib/problem";
import {
  CalendarDate,
  DateTime,
  Int32,
  Int64,
  Int64Id,
  NonBlank,
  NullableFreeObject,
  RANGE_FROM_EXAMPLE,
  RANGE_TO_EXAMPLE,
} from "./common";

const text = (max = 500) => z.string().max(max).nullish();
const money64 = Int64.nullish();
const money32 = Int32.nullish();

export const ExternalOrderItemSchema = z
  .object({
    amountCents: money64.openapi({
      description:
        "The line's gross amount after its own discount; negative for a credit line. When absent: unitPriceCents × quantity − amountDiscountCents.",
    }),
    amountDiscountCents: Int64.min(0).nullish().openapi({
      description:
        "The line's own discount, not negative and not above unitPriceCents × quantity (else 400): subtracted from it when amountCents is absent (amountCents, when sent, already has it). The receipt's line shows it, and its discountTotalCents counts it.",
    }),
    attributesSnapshot: NullableFreeObject.optional(),
    commercialDiscounts: NullableFreeObject.optional(),
    discounts: NullableFreeObject.optional(),
    externalId: text(),
    extraMetadata: NullableFreeObject.optional(),
    name: text(),
    pricingBreakdown: NullableFreeObject.optional(),
    quantity: Int64.min(0).nullish(),
    sku: text(),
    type: text(),
    unitPriceCents: money32.openapi({
      description:
        "With quantity, their product must stay within ±(2^53-1) cents, even when amountCents is sent (else 400).",
    }),
    vatPercentage: Int32.min(0).max(100).nullish(),
  })
  .openapi("ExternalOrderItem");

export const TotalsSchema = z
  .object({
    discountCents: money32,
    discounts: NullableFreeObject.optional(),
    extraMetadata: NullableFreeObject.optional(),
    shipmentCents: money32,
    subtotalCents: money32,
    taxCents: money32,
    // decisions.md ("Hostile input"): no negative total. Refused here, so the document says
    // minimum 0 as the server does.
    totalCents: Int32.min(0, "must not be negative").nullish().openapi({
      description:
        "The order's total, not negative (else 400); the amount paid when amountCents is absent.",
    }),
  })
  .openapi("Totals");

export const SourceExternalSchema = z
  .object({ id: z.string().max(500), type: z.string().max(200) })
  .openapi("SourceExternal", {
    description: "The system the order comes from; `type` carries the terminal context.",
  });

export const ExternalOrderSchema = z
  .object({
    id: NonBlank(200).openapi({
      description: "The order's id in the source system; unique per channel.",
    }),
    address: text(),
    addressName: text(),
    city: text(),
    countryIso: text(2),
    province: text(),
    region: text(),
    zipcode: text(50),
    amountCents: Int64.min(0).nullish().openapi({
      description:
        "Gross amount paid. When absent: totals.totalCents, else the items' sum plus shipment minus discount. The receipt has a line per item (each at its own gross) and one payment of this amount, which is its totalCents: shipment and the order's discount are in its totals, not in its lines (decisions.md: a line per item), so its lines add up to its total only when the amount is the items' sum alone.",
    }),
    amountDiscountCents: Int64.min(0).nullish().openapi({
      description:
        "The order's discount, not negative (else 400): taken from the items' sum plus shipment when amountCents is absent; the receipt's discountTotalCents is it plus the items' own.",
    }),
    amountExciseDutyCents: money32,
    amountVatCents: Int32.min(0).nullish().openapi({
      description:
        "The VAT included in the amount; not negative and not above the amount (amountCents, or the amount derived when it is absent: the net total, and E1's receipt's, would be negative; else 400, on E19 too). When absent, the receipt's VAT is the items' VAT (each line's on its gross), scaled by the share of the items' gross that was paid when the order's discount (or an amount below the items' sum plus shipment) took some of it.",
    }),
    amountShipmentCents: money64,
    amountVatPercentage: z.number().min(0).max(100).nullish().openapi({
      format: "double",
      description:
        "The rate of the items without their own vatPercentage, and of an order without items, for the receipt's VAT when amountVatCents is absent.",
    }),
    buyerEmail: z.string().trim().max(320).nullish().openapi({
      description:
        "Stored without the white space around it (tabs, line breaks and no-break spaces included), as E13 stores a contact's email: the order counts toward the paid sum (`contactValue`) of the winery's contact with this email, compared case-insensitively.",
    }),
    buyerFirstname: text(),
    buyerLastname: text(),
    buyerPhone: text(50),
    date: CalendarDate.nullish().openapi({
      description: "The order date; defaults to the import day (UTC).",
    }),
    extraMetadata: NullableFreeObject.optional(),
    userMetadata: NullableFreeObject.optional().openapi({
      description:
        "Stored as sent, like every free-form object. Its `secondaryContacts` is checked by E2 (PUT /api/v4/orders/{id}), whose rules say what it may hold; an import keeps it unchecked, so an order whose metadata E2 would refuse is answered by E2 with a 400 naming the member when sent back.",
    }),
    items: z.array(ExternalOrderItemSchema).max(1000).nullish(),
    marketingManual: z.boolean().nullish(),
    notes: text(5000),
    paymentMethod: text(),
    schemaVersion: text(50),
    status: text(100),
    quantity: Int64.min(0).nullish(),
    sourceExternal: SourceExternalSchema.nullish(),
    sourceSyncedAt: DateTime.nullish(),
    totals: TotalsSchema.nullish(),
  })
  .superRefine((order, ctx) => {
    const amount = orderAmount(order);
    if (!amount.ok) ctx.addIssue({ code: "custom", path: amount.path, message: amount.message });
  })
  .openapi("ExternalOrder");

export type ExternalOrder = z.infer<typeof ExternalOrderSchema>;

type AmountResult =
  | { ok: true; cents: number }
  | { ok: false; path: PropertyKey[]; message: string };
const OUT_OF_RANGE = "is out of range: amounts and their sums must stay within ±(2^53-1) cents";

/**
 * An item's gross amount after its own discount: amountCents as sent, else unitPriceCents ×
 * quantity less amountDiscountCents; undefined outside the safe range.
 */
export function itemGross(item: {
  amountCents?: number | null;
  amountDiscountCents?: number | null;
  unitPriceCents?: number | null;
  quantity?: number | null;
}): number | undefined {
  if (item.amountCents != null) return item.amountCents;
  const product = multiplyCents(item.unitPriceCents ?? 0, item.quantity ?? 1);
  return product === undefined ? undefined : sumCents([product, -(item.amountDiscountCents ?? 0)]);
}

/**
 * The amount an order was paid: amountCents as sent, else totals.totalCents, else the items
 * (amountCents, or unitPriceCents × quantity less the item's discount: itemGross) plus shipment
 * minus discount. Every product (an item's unitPriceCents × quantity, amountCents sent or not)
 * and sum on the way must stay within the safe range, no discount may exceed its line, and
 * neither the total nor the net total (the total less amountVatCents) may be negative
 * (decisions.md, "Hostile input"; a negative totals.totalCents is refused by TotalsSchema
 * itself): the schema refuses such an order, naming the field, so the services never derive an
 * amount they could not store. With
 * `lineDiscounts: "trusted"` a line's discount is not held to its unitPriceCents × quantity: for
 * an order the service built itself (E19's WooCommerce mapping, whose unit price is
 * WooCommerce's `price`, after the coupons) or has validated already; no amount depends on it.
 */
export function orderAmount(
  order: {
    amountCents?: number | null;
    amountShipmentCents?: number | null;
    amountDiscountCents?: number | null;
    amountVatCents?: number | null;
    totals?: { totalCents?: number | null } | null;
    items?:
      | {
          amountCents?: number | null;
          amountDiscountCents?: number | null;
          unitPriceCents?: number | null;
          quantity?: number | null;
        }[]
      | null;
  },
  options: { lineDiscounts?: "checked" | "trusted" } = {},
): AmountResult {
  const lines: number[] = [];
  for (const [index, item] of (order.items ?? []).entries()) {
    // Checked even when amountCents is sent: the stored line carries both, and whoever reads it
    // (the receipt's line, a report) may multiply them.
    const product = multiplyCents(item.unitPriceCents ?? 0, item.quantity ?? 1);
    if (product === undefined) {
      return { ok: false, path: ["items", index, "unitPriceCents"], message: PRODUCT_OUT_OF_RANGE };
    }
    // A discount is taken from unitPriceCents × quantity: never more than that (a credit line, of
    // negative amount or price, has no discount to take).
    const discount = item.amountDiscountCents ?? 0;
    const applies =
      options.lineDiscounts !== "trusted" &&
      (item.unitPriceCents != null || item.amountCents == null);
    if (discount > 0 && applies && discount > product) {
      return {
        ok: false,
        path: ["items", index, "amountDiscountCents"],
        message: `exceeds the line's ${product} cents (unitPriceCents × quantity)`,
      };
    }
    const line = itemGross(item);
    if (line === undefined) {
      return { ok: false, path: ["items", index, "amountDiscountCents"], message: OUT_OF_RANGE };
    }
    lines.push(line);
  }
  const itemsTotal = sumCents(lines);
  if (itemsTotal === undefined) return { ok: false, path: ["items"], message: OUT_OF_RANGE };
  // The receipt's discountTotalCents: the order's discount and its lines' own.
  const discounts = sumCents([
    order.amountDiscountCents ?? 0,
    ...(order.items ?? []).map((item) => item.amountDiscountCents ?? 0),
  ]);
  if (discounts === undefined) {
    return { ok: false, path: ["amountDiscountCents"], message: OUT_OF_RANGE };
  }
  const amount = paidCents(order, itemsTotal);
  if (!amount.ok) return amount;
  // decisions.md: no negative total, derived ones included. The VAT is included in the amount, so
  // the amount less its VAT is the order's net total (E1's receipt writes it as totalNoVatCents):
  // a VAT above the amount would make it negative. Compared with the amount the order is stored
  // with (derived when amountCents is absent), here, where E1 and E19 validate an ExternalOrder
  // alike, so neither stores such an order (E19's WooCommerce documents: total_tax above total,
  // src/schemas/woocommerce.ts). A VAT the receipt derives itself never exceeds the amount
  // (orderReceiptFigures clamps it).
  if (order.amountVatCents != null && order.amountVatCents > amount.cents) {
    return {
      ok: false,
      path: ["amountVatCents"],
      message: `exceeds the amount (${amount.cents} cents): the receipt's net total would be negative`,
    };
  }
  return amount;
}

/** amountCents as sent, else totals.totalCents, else the items plus shipment minus discount. */
function paidCents(order: Parameters<typeof orderAmount>[0], itemsTotal: number): AmountResult {
  if (order.amountCents != null) return { ok: true, cents: order.amountCents };
  if (order.totals?.totalCents != null) return { ok: true, cents: order.totals.totalCents };
  const derived = sumCents([
    itemsTotal,
    order.amountShipmentCents ?? 0,
    -(order.amountDiscountCents ?? 0),
  ]);
  if (derived === undefined) return { ok: false, path: ["amountCents"], message: OUT_OF_RANGE };
  if (derived < 0) {
    return {
      ok: false,
      path: ["amountCents"],
      message: `the items plus shipment minus discount come to ${derived}, a negative total`,
    };
  }
  return { ok: true, cents: derived };
}
export type ExternalOrderItem = z.infer<typeof ExternalOrderItemSchema>;

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

export const OrderItemSchema = z
  .object({
    id: Int64,
    amountCents: nullable(Int64),
    amountDiscountCents: nullable(Int64),
    attributesSnapshot: NullableFreeObject,
    commercialDiscounts: NullableFreeObject,
    discounts: NullableFreeObject,
    externalId: nullable(z.string()),
    extraMetadata: NullableFreeObject,
    name: nullable(z.string()),
    pricingBreakdown: NullableFreeObject,
    quantity: nullable(Int64),
    sku: nullable(z.string()),
    type: nullable(z.string()),
    unitPriceCents: nullable(Int32),
    vatPercentage: nullable(Int32),
  })
  .openapi("OrderItem");

/**
 * An answer's totals: every member of the interface's Totals present, null where the order did not
 * give it (E1, E2 and E19 store them so: storedTotals in src/services/orders/order-record.ts).
 */
export const OrderTotalsSchema = z
  .object({
    discountCents: nullable(Int32),
    discounts: NullableFreeObject,
    extraMetadata: NullableFreeObject,
    shipmentCents: nullable(Int32),
    subtotalCents: nullable(Int32),
    taxCents: nullable(Int32),
    totalCents: nullable(Int32.min(0)),
  })
  .openapi("OrderTotals", {
    description:
      "The order's Totals as stored: all seven members, each present, null where the order did not give it (an ExternalOrder's totals keep the members it sent; a WooCommerce order's have no discounts or extraMetadata). An order imported without totals answers `totals: null`.",
  });

export type OrderTotals = z.infer<typeof OrderTotalsSchema>;

export const OrderSchema = z
  .object({
    id: Int64.openapi({
      description: "The order id (int64), used by GET and PUT /v4/orders/{id}.",
    }),
    externalId: z.string(),
    channel: z.string().nullable().openapi({
      description: "The apiChannelKey of the import channel (null for shop-plugin orders).",
    }),
    tagName: z
      .string()
      .nullable()
      .openapi({ description: "The storefront plugin of a shop-plugin order (E19)." }),
    sourceExternal: SourceExternalSchema.nullable(),
    address: nullable(z.string()),
    addressName: nullable(z.string()),
    city: nullable(z.string()),
    countryIso: nullable(z.string()),
    province: nullable(z.string()),
    region: nullable(z.string()),
    zipcode: nullable(z.string()),
    amountCents: Int64,
    amountDiscountCents: nullable(Int64),
    amountExciseDutyCents: nullable(Int32),
    amountVatCents: nullable(Int32),
    amountShipmentCents: nullable(Int64),
    amountVatPercentage: nullable(z.number()),
    buyerEmail: nullable(z.string()),
    buyerFirstname: nullable(z.string()),
    buyerLastname: nullable(z.string()),
    buyerPhone: nullable(z.string()),
    date: CalendarDate,
    extraMetadata: NullableFreeObject,
    userMetadata: NullableFreeObject,
    marketingManual: nullable(z.boolean()),
    notes: nullable(z.string()),
    paymentMethod: nullable(z.string()),
    schemaVersion: nullable(z.string()),
    status: nullable(z.string()),
    quantity: nullable(Int64),
    sourceSyncedAt: nullable(DateTime),
    totals: OrderTotalsSchema.nullable(),
    items: z.array(OrderItemSchema),
    createdAt: DateTime,
    updatedAt: DateTime.openapi({
      description: "Millisecond precision; send it back as expectedUpdatedAt (E2).",
    }),
  })
  .openapi("Order");

export type Order = z.infer<typeof OrderSchema>;

export const OrderIdParamsSchema = z.object({
  id: Int64Id.openapi({ param: { name: "id", in: "path" } }),
});

const SecondaryContactSchema = z.object({
  contactId: z
    .union([
      Int64.positive(),
      z
        .string()
        .regex(/^[1-9]\d{0,15}$/, "must be a numeric contact id")
        .transform(Number),
    ])
    .refine(Number.isSafeInteger, "is out of range"),
  amountCents: Int64.min(0),
});

export const SecondaryContactsSchema = z
  .array(SecondaryContactSchema)
  .max(1000)
  .superRefine((contacts, ctx) => {
    const seen = new Set<number>();
    contacts.forEach((contact, index) => {
      if (seen.has(contact.contactId)) {
        ctx.addIssue({
          code: "custom",
          path: [index, "contactId"],
          message: "appears more than once",
        });
      }
      seen.add(contact.contactId);
    });
  });

export type SecondaryContact = z.infer<typeof SecondaryContactSchema>;

export const UpdateParamSchema = z
  .object({
    expectedUpdatedAt: DateTime.nullish().openapi({
      description:
        "When set, enables the optimistic lock: the order's updatedAt (millisecond precision) must still equal it. Null or absent: no lock.",
    }),
    extraMetadata: NullableFreeObject.optional().openapi({
      description: "When non-null, replaces the stored extra metadata entirely.",
    }),
    userMetadata: NullableFreeObject.optional().openapi({
      description:
        "When non-null, replaces the stored user metadata entirely (no deep merge). `secondaryContacts`, when present and not null, is an array of { contactId, amountCents }: contactId an int64 (number or numeric string) of a contact of the winery, amountCents an integer >= 0, no contactId twice, their sum at most the order's amountCents. The object is stored and answered exactly as sent (string ids stay strings, other members are kept).",
    }),
    marketingManual: z.boolean().nullish(),
    notes: z.string().max(5000).nullish(),
    paymentMethod: z.string().max(500).nullish(),
    sourceExternalId: z.string().max(500).nullish(),
    sourceExternalType: z.string().max(200).nullish(),
    sourceSyncedAt: DateTime.nullish(),
    status: z.string().max(100).nullish(),
  })
  .superRefine((param, ctx) => {
    const contacts = param.userMetadata?.secondaryContacts;
    if (contacts == null) return; // null, like absent: no secondary contacts to check
    const result = SecondaryContactsSchema.safeParse(contacts);
    if (result.success) return;
    for (const issue of explainedIssues(result.error)) {
      ctx.addIssue({
        code: "custom",
        path: ["userMetadata", "secondaryContacts", ...issue.path],
        message: issue.message,
      });
    }
  })
  .openapi("UpdateParam");

export type UpdateParam = z.infer<typeof UpdateParamSchema>;

export const OrderQueryBodySchema = z
  .object({
    dateFrom: DateTime.openapi({ example: RANGE_FROM_EXAMPLE }),
    dateTo: DateTime.openapi({ example: RANGE_TO_EXAMPLE }),
    limit: Int32.min(1)
      .max(500)
      .nullish()
      .openapi({ description: "Page size, 1..500; absent or null: 50." }),
    offset: Int32.min(0).nullish().openapi({ description: "Orders to skip; absent or null: 0." }),
  })
  .refine((q) => compareDateTimes(q.dateFrom, q.dateTo) <= 0, {
    path: ["dateTo"],
    message: "dateTo must not be before dateFrom",
  })
  .openapi("OrderQuery");

export const OrderPageSchema = z
  .object({
    orders: z.array(OrderSchema),
    total: Int64,
    limit: Int32,
    offset: Int32,
    hasMore: z.boolean().openapi({ description: "True exactly when rows exist past this page." }),
  })
  .openapi("OrderPage");
