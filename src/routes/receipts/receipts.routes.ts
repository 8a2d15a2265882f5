import { createRoute } from "@hono/zod-openapi";
import { jsonRequestBody, jsonResponse } from "../../lib/openapi";
import { errorResponses } from "../../schemas/problem";
import { ReceiptPageSchema, ReceiptQuerySchema } from "../../schemas/receipts";

export const queryReceiptsRoute = createRoute({
  method: "post",
  path: "/receipts/query",
  tags: ["Receipts"],
  operationId: "queryReceipts",
  summary: "E4. Query receipts with filtering and pagination",
  description: [
    "Fiscal receipts of the API key's winery, with their lines and payments: those E1 issues for every imported order (receiptType ORDER, externalEntityId the order's id), and those of other sources the winery holds (the demo data's point-of-sale receipts: receiptType POS). Every filter is optional; filters combine with AND.",
    "Scalar string filters match exactly (case-sensitive). The plural filters (authorityCommunicationStates, fiscalOperations, saleDocumentStates, wineryChannelIds, pointOfSaleSuiteIds) are comma-separated lists matching any of their values, at most 1,000 values and 100,000 characters each (as an array holds at most 1,000 elements; more is 400 naming the field: 1,000 uuids fit); blank entries are ignored. `documentStatus` matches the receipt's `status`. `customerName` is a case-insensitive substring. `externalEntityId` takes the receipt's own (a uuid) or the id of the order it was issued for, as the order routes answer it (`\"42\"`): an order's receipt is found by the id E1 gave. A value of a uuid field (externalEntityId when not an order id, wineryChannelId, the ids of the lists) that is not a uuid matches nothing.",
    "`startDate`/`endDate` bound refDate, both inclusive; each is a date (a whole UTC day) or a date-time. `minTotalCents`/`maxTotalCents` bound totalCents, inclusive. A start after the end, or a minimum over the maximum, is 400.",
    "`page` is 0-based (default 0), `count` 1..200 (default 20). `sortBy` is `field` or `field,asc|desc` over createdAt, refDate, totalCents, progressiveNumber (default `createdAt,desc`; a field alone sorts ascending); ties are broken by id in the same direction. Another field is 400 naming sortBy.",
    "The answer is Spring's page: `totalElements` counts every match, `totalPages` = ceil(totalElements / size), `first` = page 0, `last` = no page after this one (also true for an empty result and a page past the end). The count and the page come from one SQL statement (one round trip).",
  ].join("\n\n"),
  request: { body: jsonRequestBody(ReceiptQuerySchema) },
  responses: {
    200: jsonResponse(ReceiptPageSchema, "A page of receipts."),
    ...errorResponses("FORBIDDEN"),
  },
});
