import { z } from "@hono/zod-openapi";
import { compareDateTimes, instantMs, microsecondBound } from "../lib/instant";
import { CalendarDate, Cents, DateTime, Int32, Int64, MAX_INSTANT_MS, Uuid } from "./common";

export const RECEIPT_SORT_FIELDS = [
  "createdAt",
  "refDate",
  "totalCents",
  "progressiveNumber",
] as const;
export type ReceiptSortField = (typeof RECEIPT_SORT_FIELDS)[number];
export interface ReceiptSort {
  field: ReceiptSortField;
  direction: "asc" | "desc";
}

const SORT = /^\s*([A-Za-z]+)\s*(?:,\s*(asc|desc)\s*)?$/i;

/** `field` or `field,asc|desc`; a field alone sorts ascending (Spring's default direction). */
const SortBy = z
  .string()
  .max(100)
  .transform((value, ctx): ReceiptSort => {
    const match = SORT.exec(value);
    const field = RECEIPT_SORT_FIELDS.find((f) => f === match?.[1]);
    if (!match || !field) {
      ctx.addIssue({
        code: "custom",
        message: `must be "field" or "field,asc|desc" with field one of ${RECEIPT_SORT_FIELDS.join(", ")}`,
      });
      return z.NEVER;
    }
    return { field, direction: match[2]?.toLowerCase() === "asc" || !match[2] ? "asc" : "desc" };
  })
  .openapi({
    example: "createdAt,desc",
    // What the transform accepts, so the document does not admit a sortBy that is refused.
    pattern:
      "^\\s*(createdAt|refDate|totalCents|progressiveNumber)\\s*(,\\s*([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])\\s*)?$",
  });

const text = () => z.string().max(500).nullish();

/**
 * A comma-separated list ("a,b,c"): any of the values matches; blanks are ignored. Its length
 * leaves room for 1,000 values of up to 99 characters (1,000 uuids take 36,999).
 */
const List = z
  .string()
  .max(100_000)
  .transform((value) =>
    value
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v.length > 0),
  )
  .refine((values) => values.length <= 1000, "lists at most 1000 values")
  .openapi({
    example: "A,B",
    description:
      "Comma-separated values, any of which matches: at most 1,000 (blanks ignored), and 100,000 characters in all.",
  })
  .nullish();

/** A calendar date (the whole UTC day) or a date-time instant. */
const DateOrDateTime = z
  .union([CalendarDate, DateTime], {
    error: "must be a date (2026-05-01) or a date-time with an offset (2026-05-01T10:00:00Z)",
  })
  .openapi({ example: "2026-05-01" })
  .nullish();

const DAY_MS = 86_400_000;
const isDate = (value: string) => value.length === 10;
/** The day after a calendar date, at its UTC midnight, in ms. */
const nextMidnight = (date: string) => Date.parse(`${date}T00:00:00Z`) + DAY_MS;

/**
 * The SQL condition text of startDate for `refDate >= bound::timestamptz`: a date from its UTC
 * midnight; a date-time from the first microsecond at or after it (never loosened by rounding).
 */
export const startBound = (value: string): string =>
  isDate(value) ? `${value}T00:00:00Z` : microsecondBound(value, "up");

/**
 * endDate as SQL: a date covers its whole UTC day (`refDate < next midnight`; none past
 * 9999-12-31, which bounds nothing); a date-time up to the last microsecond at or before it.
 */
export const endBound = (value: string): { op: "<" | "<="; at: string } | null => {
  if (!isDate(value)) return { op: "<=", at: microsecondBound(value, "down") };
  const end = nextMidnight(value);
  return end <= MAX_INSTANT_MS ? { op: "<", at: new Date(end).toISOString() } : null;
};

/** Whether startDate lies after endDate (every digit counted; a date end is its whole day). */
const startsAfterEnd = (start: string, end: string): boolean => {
  const from = isDate(start) ? `${start}T00:00:00Z` : start;
  return isDate(end) ? instantMs(from) >= nextMidnight(end) : compareDateTimes(from, end) > 0;
};

export const ReceiptQuerySchema = z
  .object({
    authorityCommunicationState: text(),
    authorityCommunicationStates: List,
    count: Int32.min(1)
      .max(200)
      .nullish()
      .openapi({ description: "Page size, 1..200 (default 20)." }),
    page: Int32.min(0).nullish().openapi({ description: "0-based page number (default 0)." }),
    sortBy: SortBy.nullish().openapi({
      description:
        "`field` or `field,asc|desc`, field one of createdAt, refDate, totalCents, progressiveNumber; default `createdAt,desc`; a field alone sorts ascending. Ties are broken by id in the same direction.",
    }),
    customerName: text().openapi({
      description:
        "Case-insensitive substring of the customer name (the buyer's first and last name on E1's receipts). Empty: no filter.",
    }),
    documentStatus: text().openapi({ description: "Matches the receipt's `status` exactly." }),
    externalEntityId: text().openapi({
      description:
        'The receipt\'s externalEntityId (a uuid), or the id of the order a receipt was issued for, as E1, GET /api/v4/orders/{id} and E20 answer it (e.g. "42"): the receipts of that order.',
    }),
    externalReceiptId: text(),
    terminalId: text().openapi({
      description:
        "Matches the receipt's terminal id exactly: set by the point-of-sale suite that issued it (not a field of ReceiptV2). Receipts issued by E1 have none: an order's terminal context is its sourceExternal.type (see terminalName).",
    }),
    terminalName: text().openapi({
      description:
        "Matches the receipt's terminal name exactly: for receipts issued by E1, the order's sourceExternal.type (the interface's terminal context).",
    }),
    wineryChannelId: text(),
    wineryChannelIds: List,
    startDate: DateOrDateTime.openapi({
      description:
        "Lower bound of refDate, inclusive: a date (from its UTC midnight) or a date-time.",
    }),
    endDate: DateOrDateTime.openapi({
      description: "Upper bound of refDate, inclusive: a date (its whole UTC day) or a date-time.",
    }),
    fiscalOperation: text(),
    fiscalOperations: List,
    integrationId: Uuid.nullish(),
    maxTotalCents: Cents.nullish(),
    minTotalCents: Cents.nullish(),
    pointOfSaleSuiteId: Uuid.nullish(),
    pointOfSaleSuiteIds: List,
    progressiveNumber: Int32.nullish(),
    receiptType: text(),
    saleDocumentState: text(),
    saleDocumentStates: List,
    status: text(),
    wineryId: Uuid.nullish().openapi({
      description: "When present, must be the API key's winery (403).",
    }),
  })
  .superRefine((q, ctx) => {
    if (q.startDate && q.endDate && startsAfterEnd(q.startDate, q.endDate)) {
      ctx.addIssue({ code: "custom", path: ["endDate"], message: "must not be before startDate" });
    }
    if (q.minTotalCents != null && q.maxTotalCents != null && q.minTotalCents > q.maxTotalCents) {
      ctx.addIssue({
        code: "custom",
        path: ["maxTotalCents"],
        message: "must not be below minTotalCents",
      });
    }
  })
  .openapi("ReceiptQuery");

export type ReceiptQuery = z.infer<typeof ReceiptQuerySchema>;

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();
const str = () => z.string().nullable();

export const ReceiptLineSchema = z
  .object({
    additionalText: str(),
    createdAt: DateTime,
    description: str(),
    discountAmountCents: Int64,
    discountPercent: nullable(Int32),
    entityId: str(),
    entityType: str(),
    fiscalNatureId: nullable(Uuid),
    id: Uuid,
    inlineDiscountAmountCents: nullable(Int64),
    inlineDiscountName: str(),
    lineNumber: Int32,
    lineType: z.string(),
    netTotalCents: Int64,
    quantity: z.number(),
    receiptId: Uuid,
    saleRowId: nullable(Int64),
    stornoReceiptId: nullable(Uuid),
    unit: str(),
    unitPriceCents: Int64,
    updatedAt: DateTime,
    vatAmountCents: Int64,
    vatPercent: nullable(Int32),
  })
  .openapi("ReceiptLine");

export const ReceiptPaymentSchema = z
  .object({
    createdAt: DateTime,
    currency: z.string(),
    externalId: str(),
    grossTotalCents: Int64,
    id: Uuid,
    method: str(),
    paymentId: nullable(Uuid),
    paymentNumber: Int32,
    provider: str(),
    receiptId: Uuid,
    status: z.string(),
    updatedAt: DateTime,
  })
  .openapi("ReceiptPayment");

export const ReceiptSchema = z
  .object({
    id: Uuid,
    externalEntityId: nullable(Uuid).openapi({
      description:
        "The entity the receipt was issued for: for an order's receipt, the order's own uuid (the receipt query also finds it by the order's id, see the externalEntityId filter).",
    }),
    integrationId: nullable(Uuid),
    pointOfSaleSuiteId: nullable(Uuid),
    referencedReceiptId: nullable(Uuid),
    wineryId: Uuid,
    adeDocumentNumber: str(),
    authorityCommunicationState: z.string(),
    cancellationReason: str(),
    externalReceiptId: str(),
    extraData: str(),
    fiscalOperation: z.string(),
    internalDocumentNumber: str(),
    pdfLink: str(),
    publicLink: str(),
    qrCodeData: str(),
    receiptData: str(),
    receiptType: z.string(),
    referencedInternalDocumentNumber: str(),
    saleDocumentState: z.string(),
    status: z.string(),
    createdAt: DateTime,
    updatedAt: DateTime,
    refDate: DateTime,
    discountTotalCents: Int64,
    totalCents: Int64,
    totalNoVatCents: Int64,
    vatAmountCents: Int64,
    progressiveNumber: Int32,
    receiptLines: z.array(ReceiptLineSchema),
    receiptPayments: z.array(ReceiptPaymentSchema),
  })
  .openapi("ReceiptV2");

export type Receipt = z.infer<typeof ReceiptSchema>;

const SortStateSchema = z
  .object({ empty: z.boolean(), sorted: z.boolean(), unsorted: z.boolean() })
  .openapi("SortState");

export const ReceiptPageSchema = z
  .object({
    content: z.array(ReceiptSchema),
    empty: z.boolean(),
    first: z.boolean(),
    last: z.boolean(),
    number: Int32,
    numberOfElements: Int32,
    size: Int32,
    totalElements: Int64,
    totalPages: Int32,
    pageable: z.object({
      offset: Int64,
      pageNumber: Int32,
      pageSize: Int32,
      paged: z.boolean(),
      unpaged: z.boolean(),
      sort: SortStateSchema,
    }),
    sort: SortStateSchema,
  })
  .openapi("ReceiptPage");

export type ReceiptPage = z.infer<typeof ReceiptPageSchema>;
