import { createRoute, z } from "@hono/zod-openapi";
import { jsonRequestBody, replayableResponse, withLocation } from "../../lib/openapi";
import { ownWineryInJsonString } from "../../middleware/json-body";
import { idempotencyKeyHeaders } from "../../schemas/idempotency";
import { errorResponses } from "../../schemas/problem";
import { ShopOrderDocumentSchema, ShopPluginOrderQuerySchema } from "../../schemas/shop-plugin";

const EXAMPLE_DOCUMENT = {
  id: 4711,
  status: "processing",
  currency: "EUR",
  date_created_gmt: "2026-05-01T10:00:00",
  billing: {
    first_name: "Giulia",
    last_name: "Rossi",
    email: "giulia@example.com",
    address_1: "Via Roma 1",
    city: "Firenze",
    state: "FI",
    postcode: "50100",
    country: "IT",
  },
  line_items: [
    {
      id: 315,
      sku: "CHIANTI-2021",
      name: "Chianti Classico 2021",
      quantity: 3,
      price: 19.99,
      subtotal: "59.97",
      subtotal_tax: "13.19",
      total: "59.97",
      total_tax: "13.19",
    },
  ],
  shipping_total: "10.00",
  shipping_tax: "2.20",
  discount_total: "0.00",
  total_tax: "15.39",
  total: "85.36",
  payment_method: "stripe",
};

const ShopPluginIdempotencySchema = idempotencyKeyHeaders(
  "Optional, as on E1: 1 to 255 printable ASCII characters, or the quoted form of RFC 8941 (the key in double quotes, backslash-escaped, optionally followed by `;parameters`): the pattern states both. Scope: (winery, route, key), kept 24 hours. The same key with the same tagName and document (compared as content: canonical JSON of the parsed document, so whitespace and key order inside the string do not count) replays the first answer with `Idempotent-Replayed: true` and writes nothing; another document is 422 IDEMPOTENCY_KEY_REUSED; while the first is in flight, 409 IDEMPOTENCY_KEY_IN_USE with Retry-After. Without a key the upsert is still safe to repeat: the same order id comes back.",
);

const DESCRIPTION = `Creates or updates an order sent by a storefront plugin.

**Body.** A single JSON string whose content is the order document: a WooCommerce REST API order (wc/v3) or an ExternalOrder (the E1 payload). A document with \`line_items\`, \`order_key\`, \`date_created_gmt\` or \`shipping_lines\` is read as WooCommerce; anything else must be a valid ExternalOrder. A body that is not a JSON string, a string that is not JSON, or a document that is not an order is 400 VALIDATION_ERROR; \`errors[].path\` are paths inside the document (\`line_items[0].total\`). The wineryId is checked before anything else of the request is validated (the query's tagName, the Idempotency-Key, the document): another winery's id is 403 FORBIDDEN whatever the document. A \`wineryId\` member inside the document, at any depth, is checked the same way (as E1 checks its body's): another winery's is 403, before the document is validated.

**Upsert.** The order is identified by (winery, tagName, storefront order id: WooCommerce \`id\`, ExternalOrder \`id\`). Posting it again updates every imported field and replaces its items (never a duplicate; the new items get new ids), and bumps updatedAt (so an E2 optimistic lock sees the change); id, createdAt and the order's public uuid stay. userMetadata and marketingManual, which the back office edits through E2 and storefronts do not send, are kept when the document leaves them out. Concurrent posts of one order converge on one row. The write is one atomic database round trip. No fiscal receipt is issued (that is E1's rule).

**WooCommerce mapping.** Amounts are decimal strings in major units (\`"19.99"\`) or numbers (\`price\`); they become integer cents by decimal arithmetic (no floating point), rounding half away from zero past the second decimal (\`"1.005"\` is 101). The separator must be \`.\` (\`"19,99"\` and a string with an exponent, \`"1e3"\`, are 400; a JSON number is the number it denotes, so \`1e2\` is 100.00); amounts must not be negative (fee lines may) and one field may carry at most 21474836.47.
- \`id\` → \`id\` (as a string) and \`sourceExternal\` = { id, type: tagName }; \`status\` → \`status\`.
- \`date_created_gmt\` (UTC) → \`date\` (its UTC day); without it, the day of \`date_created\`; without either, the day of the upsert.
- \`billing\`: first_name, last_name, email, phone → buyerFirstname, buyerLastname, buyerEmail, buyerPhone; address_1 + ", " + address_2 → address; company → addressName; city → city; state → province; postcode → zipcode; country → countryIso. Empty strings are null.
- \`total\` → amountCents; \`total_tax\` → amountVatCents (tax included in total, so not above it: else 400 naming total_tax, as E1 refuses an amountVatCents above the amount); shipping_total + shipping_tax → amountShipmentCents; discount_total + discount_tax → amountDiscountCents (order-level amounts are tax included, like amountCents). \`totals\` = { subtotalCents (line subtotals before coupons, tax included), discountCents, shipmentCents, taxCents, totalCents, and discounts and extraMetadata null }.
- \`line_items[]\` → items of type "product": id → externalId, sku, name, quantity; price → unitPriceCents (WooCommerce's unit price, before tax and after coupons); total + total_tax → amountCents (the line as paid, tax included); (subtotal + subtotal_tax) − (total + total_tax) → amountDiscountCents (which a large coupon takes above price × quantity: allowed here, unlike in an ExternalOrder); vatPercentage = the whole percentage that reproduces total_tax from total to within half a cent, else null (WooCommerce does not send the rate per line); the four amounts also in pricingBreakdown; product_id, variation_id and meta_data in extraMetadata.woocommerce. \`fee_lines[]\` → items of type "fee" (quantity 1). amountVatPercentage is the product lines' rate when they all share one. quantity is the sum of the line quantities (at most 2^53-1, else 400 naming line_items). Totals are int32 (at most 21474836.47 each): shipping_total + shipping_tax, discount_total + discount_tax, and the lines' subtotals with their tax in all, past it 400 naming shipping_tax, discount_tax or line_items.
- \`payment_method\` → paymentMethod; \`customer_note\` → notes.
- extraMetadata.woocommerce keeps, under their WooCommerce names and as sent: currency, number, order_key, prices_include_tax, customer_id, payment_method_title, transaction_id, date_created, date_created_gmt, date_paid_gmt, date_completed_gmt, shipping (the shipping address), shipping_lines (id, method_id, method_title), coupon_lines (id, code) and meta_data. Other WooCommerce fields are ignored.

**ExternalOrder documents** are validated and stored as E1 would validate and store them (an amountVatCents above the amount is 400, say); without sourceExternal, it is { id, type: tagName }.

**Answer.** 201 with the order id as a JSON string (\`"42"\`), the same id for every post of the order; read the order with GET /v4/orders/{id}.`;

export const upsertShopPluginOrderRoute = createRoute({
  method: "post",
  path: "/shopplugin/orders",
  tags: ["Orders"],
  operationId: "upsertShopPluginOrder",
  summary: "E19. Upsert a shop-plugin order",
  description: DESCRIPTION,
  // Before the validators: a foreign wineryId inside the document is 403 whatever else it holds.
  middleware: [ownWineryInJsonString] as const,
  request: {
    query: ShopPluginOrderQuerySchema,
    headers: ShopPluginIdempotencySchema,
    body: jsonRequestBody(
      ShopOrderDocumentSchema.openapi({ example: JSON.stringify(EXAMPLE_DOCUMENT) }),
      "The order document's JSON text, as a JSON string.",
    ),
  },
  responses: {
    201: withLocation(
      replayableResponse(
        z.string().openapi({ example: "42", description: "The order id (int64), as a string." }),
        "The order was created or updated; the body is its id as a JSON string (with Idempotent-Replayed: true, the first answer again). Location: /api/v4/orders/{id}.",
      ),
    ),
    ...errorResponses("FORBIDDEN", "IDEMPOTENCY_KEY_IN_USE", "IDEMPOTENCY_KEY_REUSED"),
  },
});
