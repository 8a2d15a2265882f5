import { createRoute, z } from "@hono/zod-openapi";
import { jsonRequestBody, jsonResponse, replayableResponse } from "../../lib/openapi";
import { SafeString } from "../../schemas/common";
import { idempotencyKeyHeaders } from "../../schemas/idempotency";
import {
  ExternalOrderSchema,
  OrderIdParamsSchema,
  OrderPageSchema,
  OrderQueryBodySchema,
  OrderSchema,
  UpdateParamSchema,
} from "../../schemas/orders";
import { errorResponses, readErrorResponses, withReplayedProblems } from "../../schemas/problem";

const IdempotencyHeadersSchema = idempotencyKeyHeaders(
  "1 to 255 printable ASCII characters, or the quoted form of RFC 8941 (the key in double quotes, backslash-escaped, optionally followed by `;parameters`): the pattern states both. Scope: (winery, route, key), kept 24 hours. The same key and payload replays the first response with `Idempotent-Replayed: true`; a different payload is 422 IDEMPOTENCY_KEY_REUSED (the payload is the body together with the path's apiChannelKey: the same body sent to another channel is another payload, since the first answer is an import on the first channel); while the first is in flight, 409 IDEMPOTENCY_KEY_IN_USE with Retry-After. A first request that the import itself refused (409 DUPLICATE_ORDER, 404 for an unknown channel) is kept too: the same key and payload replay that problem (same status, code, detail and members; the requestId and X-Request-Id of the replaying request) with `Idempotent-Replayed: true`. A request refused before the import ran (400 for its body or headers, 401, 403, 413, 415, 429) or failing with 5xx keeps nothing: the key stays free for a corrected or later retry.",
);

export const importOrderRoute = createRoute({
  method: "post",
  path: "/order-import/{apiChannelKey}",
  tags: ["Orders"],
  operationId: "importOrder",
  summary: "E1. Create order from legacy payload shape",
  description:
    "Imports an order on the sales channel named by apiChannelKey (a channel of the API key's winery; otherwise 404). The order, its items and its fiscal receipt (receiptType ORDER, fiscalOperation RECEIPT, status CREATED, the winery's next progressiveNumber) are written in one transaction. `id` is the order's id in the source system and is unique per channel: importing it again without an Idempotency-Key is 409 DUPLICATE_ORDER with the existing `orderId`. Terminal context travels in sourceExternal.type. Amounts are integer cents, VAT included.",
  request: {
    params: z.object({
      apiChannelKey: SafeString.min(1)
        .max(200)
        .openapi({ param: { name: "apiChannelKey", in: "path" } }),
    }),
    headers: IdempotencyHeadersSchema,
    body: jsonRequestBody(ExternalOrderSchema, undefined, {
      id: "WEB-1001",
      date: "2026-05-01",
      status: "PAID",
      paymentMethod: "CARD",
      amountCents: 10800,
      amountVatPercentage: 22,
      buyerEmail: "giulia.rossi@example.com",
      buyerFirstname: "Giulia",
      buyerLastname: "Rossi",
      countryIso: "IT",
      sourceExternal: { id: "woo-1001", type: "WOOCOMMERCE" },
      items: [
        {
          externalId: "1",
          sku: "BRUNELLO-2019",
          name: "Brunello di Montalcino 2019",
          quantity: 2,
          unitPriceCents: 5400,
          amountCents: 10800,
          vatPercentage: 22,
        },
      ],
    }),
  },
  responses: {
    200: replayableResponse(
      OrderSchema,
      "The stored order (or, with Idempotent-Replayed: true, the first response again).",
    ),
    ...withReplayedProblems(
      errorResponses(
        "NOT_FOUND",
        "DUPLICATE_ORDER",
        "IDEMPOTENCY_KEY_IN_USE",
        "IDEMPOTENCY_KEY_REUSED",
      ),
      "NOT_FOUND",
      "DUPLICATE_ORDER",
    ),
  },
});

export const getOrderRoute = createRoute({
  method: "get",
  path: "/orders/{id}",
  tags: ["Orders"],
  operationId: "getOrder",
  summary: "Order details",
  description:
    "The order with its items, as E1 answers it. This is the read the E2 rule refers to: read, merge into userMetadata, send the whole object back with expectedUpdatedAt = updatedAt.",
  request: { params: OrderIdParamsSchema },
  responses: { 200: jsonResponse(OrderSchema, "The order."), ...readErrorResponses("NOT_FOUND") },
});

export const updateOrderRoute = createRoute({
  method: "put",
  path: "/orders/{id}",
  tags: ["Orders"],
  operationId: "updateOrder",
  summary: "E2. Modify order with optimistic concurrency",
  description:
    "Applies UpdateParam. With expectedUpdatedAt, the change applies only if the order's updatedAt still equals it at millisecond precision (checked inside the UPDATE); otherwise 409 STALE_UPDATE carrying `currentUpdatedAt`. Non-null userMetadata / extraMetadata replace the stored objects entirely; null or absent keeps them. Other fields: absent keeps, null clears (`expectedUpdatedAt` null: no lock). sourceExternalId and sourceExternalType are cleared one at a time: while the other is set, the answer's `sourceExternal` shows the cleared one as \"\" (its members are strings), and null once both are.",
  request: { params: OrderIdParamsSchema, body: jsonRequestBody(UpdateParamSchema) },
  responses: {
    200: jsonResponse(OrderSchema, "The updated order."),
    ...errorResponses("NOT_FOUND", "STALE_UPDATE"),
  },
});

export const queryOrdersRoute = createRoute({
  method: "post",
  path: "/orders/query",
  tags: ["Orders"],
  operationId: "queryOrders",
  summary: "E20. Retrieve orders by date (version 4)",
  description:
    "Orders whose order date (a calendar day) lies between the UTC days of dateFrom and dateTo, both inclusive, ordered by (date, id). limit 1..500 (default 50), offset >= 0. `total` counts all matches; `hasMore` is true exactly when rows exist past this page.",
  request: { body: jsonRequestBody(OrderQueryBodySchema) },
  responses: { 200: jsonResponse(OrderPageSchema, "A page of orders."), ...errorResponses() },
});
