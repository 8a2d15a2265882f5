import { and, eq, gte, ilike, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { receipts } from "../../db/schema";
import {
  endBound,
  type ReceiptPage,
  type ReceiptQuery,
  type ReceiptSort,
  startBound,
} from "../../schemas/receipts";

export const DEFAULT_PAGE_SIZE = 20;
export const DEFAULT_SORT: ReceiptSort = { field: "createdAt", direction: "desc" };

const SORT_COLUMNS: Record<ReceiptSort["field"], string> = {
  createdAt: "created_at",
  refDate: "ref_date",
  totalCents: "total_cents",
  progressiveNumber: "progressive_number",
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Filters on uuid columns arrive as free strings: a value that is not a uuid can match no receipt,
 * so it becomes FALSE instead of a Postgres cast error.
 */
function uuidIn(column: Parameters<typeof inArray>[0], values: string[]): SQL {
  const ids = values.filter((v) => UUID.test(v));
  return ids.length > 0 ? inArray(column, ids) : sql`false`;
}

/**
 * externalEntityId: the receipt's own (a uuid: the order's internal one, which no order route
 * answers), or the id of the order as E1, the order read and E20 answer it (its digits), the one
 * an integrator holds.
 */
function entityIs(value: string): SQL {
  const orderId = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(orderId)
    ? eq(receipts.orderId, orderId)
    : uuidIn(receipts.externalEntityId, [value]);
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Every filter of "Filters for Receipts", ANDed, always within the key's winery. */
export function receiptFilter(wineryId: string, q: ReceiptQuery): SQL {
  const r = receipts;
  const conditions: (SQL | undefined)[] = [eq(r.wineryId, wineryId)];
  const exact = <T extends string | number>(
    column: Parameters<typeof eq>[0],
    value: T | null | undefined,
  ) => {
    if (value != null) conditions.push(eq(column, value));
  };
  const anyOf = (column: Parameters<typeof inArray>[0], values: string[] | null | undefined) => {
    if (values) conditions.push(values.length > 0 ? inArray(column, values) : undefined);
  };
  exact(r.authorityCommunicationState, q.authorityCommunicationState);
  anyOf(r.authorityCommunicationState, q.authorityCommunicationStates);
  exact(r.status, q.documentStatus);
  exact(r.status, q.status);
  exact(r.externalReceiptId, q.externalReceiptId);
  exact(r.terminalId, q.terminalId);
  exact(r.terminalName, q.terminalName);
  exact(r.fiscalOperation, q.fiscalOperation);
  anyOf(r.fiscalOperation, q.fiscalOperations);
  exact(r.receiptType, q.receiptType);
  exact(r.saleDocumentState, q.saleDocumentState);
  anyOf(r.saleDocumentState, q.saleDocumentStates);
  exact(r.progressiveNumber, q.progressiveNumber);
  exact(r.integrationId, q.integrationId);
  exact(r.pointOfSaleSuiteId, q.pointOfSaleSuiteId);
  if (q.externalEntityId != null) conditions.push(entityIs(q.externalEntityId));
  if (q.wineryChannelId != null) conditions.push(uuidIn(r.wineryChannelId, [q.wineryChannelId]));
  if (q.wineryChannelIds?.length) conditions.push(uuidIn(r.wineryChannelId, q.wineryChannelIds));
  if (q.pointOfSaleSuiteIds?.length) {
    conditions.push(uuidIn(r.pointOfSaleSuiteId, q.pointOfSaleSuiteIds));
  }
  if (q.customerName) {
    conditions.push(ilike(r.customerName, `%${escapeLike(q.customerName)}%`));
  }
  // The bounds travel as text that Postgres reads exactly (microseconds), never as a Date.
  if (q.startDate != null) {
    conditions.push(sql`${r.refDate} >= ${startBound(q.startDate)}::timestamptz`);
  }
  const end = q.endDate == null ? null : endBound(q.endDate);
  if (end) conditions.push(sql`${r.refDate} ${sql.raw(end.op)} ${end.at}::timestamptz`);
  if (q.minTotalCents != null) conditions.push(gte(r.totalCents, q.minTotalCents));
  if (q.maxTotalCents != null) conditions.push(lte(r.totalCents, q.maxTotalCents));
  return and(...conditions) as SQL;
}

/** An instant as JavaScript's toISOString writes it (UTC, milliseconds, Z). */
const iso = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Whether a receipt line's quantity (numeric) is an integer JavaScript holds exactly. */
const SAFE_QUANTITY = "(l.quantity = trunc(l.quantity) and abs(l.quantity) <= 9007199254740991)";

/**
 * The receipt line's quantity as JavaScript writes the number it reads (JSON.stringify(Number(x))):
 * an integer within the safe range (every quantity the API stores: order items' quantities are
 * Int64) is its own digits (trim_scale drops a stored scale). Any other value (only ever stored by
 * hand) is written as its numeric text, and the page says so (`odd`): the Worker then parses and
 * re-serialises that page, so JavaScript writes those numbers itself. Postgres' float8 text is not
 * JavaScript's (other exponent bounds, it depends on extra_float_digits, past 2^54 it is not always
 * the shortest), and writing JavaScript's text in SQL would add ~0.4 ms of planning to every
 * request.
 */
const QUANTITY = `case when ${SAFE_QUANTITY} then to_json(trim_scale(l.quantity)) else to_json(l.quantity) end`;

// The select lists whose row_to_json is an object's compact JSON text (keys are the aliases, in the
// order of the ReceiptV2 schema, what toReceipt used to build). Each is a LATERAL subquery without
// FROM over its row, which the planner folds into the scan of that row: no subplan per object.
const LINE = `select
  l.additional_text as "additionalText",
  ${iso("l.created_at")} as "createdAt",
  l.description as "description",
  l.discount_amount_cents as "discountAmountCents",
  l.discount_percent as "discountPercent",
  l.entity_id as "entityId",
  l.entity_type as "entityType",
  l.fiscal_nature_id as "fiscalNatureId",
  l.id as "id",
  l.inline_discount_amount_cents as "inlineDiscountAmountCents",
  l.inline_discount_name as "inlineDiscountName",
  l.line_number as "lineNumber",
  l.line_type as "lineType",
  l.net_total_cents as "netTotalCents",
  ${QUANTITY} as "quantity",
  l.receipt_id as "receiptId",
  l.sale_row_id as "saleRowId",
  l.storno_receipt_id as "stornoReceiptId",
  l.unit as "unit",
  l.unit_price_cents as "unitPriceCents",
  ${iso("l.updated_at")} as "updatedAt",
  l.vat_amount_cents as "vatAmountCents",
  l.vat_percent as "vatPercent"`;

const PAYMENT = `select
  ${iso("m.created_at")} as "createdAt",
  m.currency as "currency",
  m.external_id as "externalId",
  m.gross_total_cents as "grossTotalCents",
  m.id as "id",
  m.method as "method",
  m.payment_id as "paymentId",
  m.payment_number as "paymentNumber",
  m.provider as "provider",
  m.receipt_id as "receiptId",
  m.status as "status",
  ${iso("m.updated_at")} as "updatedAt"`;

/** The receipt's own fields; its lines and payments (the last two keys) are appended as text. */
const RECEIPT = `select
  p.id as "id",
  p.external_entity_id as "externalEntityId",
  p.integration_id as "integrationId",
  p.point_of_sale_suite_id as "pointOfSaleSuiteId",
  p.referenced_receipt_id as "referencedReceiptId",
  p.winery_id as "wineryId",
  p.ade_document_number as "adeDocumentNumber",
  p.authority_communication_state as "authorityCommunicationState",
  p.cancellation_reason as "cancellationReason",
  p.external_receipt_id as "externalReceiptId",
  p.extra_data as "extraData",
  p.fiscal_operation as "fiscalOperation",
  p.internal_document_number as "internalDocumentNumber",
  p.pdf_link as "pdfLink",
  p.public_link as "publicLink",
  p.qr_code_data as "qrCodeData",
  p.receipt_data as "receiptData",
  p.receipt_type as "receiptType",
  p.referenced_internal_document_number as "referencedInternalDocumentNumber",
  p.sale_document_state as "saleDocumentState",
  p.status as "status",
  ${iso("p.created_at")} as "createdAt",
  ${iso("p.updated_at")} as "updatedAt",
  ${iso("p.ref_date")} as "refDate",
  p.discount_total_cents as "discountTotalCents",
  p.total_cents as "totalCents",
  p.total_no_vat_cents as "totalNoVatCents",
  p.vat_amount_cents as "vatAmountCents",
  p.progressive_number as "progressiveNumber"`;

/**
 * A receipt's JSON text: its fields' object with `receiptLines` and `receiptPayments` appended
 * as the arrays' texts (compact, as JSON.stringify writes them; json_agg puts ", " between
 * elements), never parsed back into json.
 */
const RECEIPT_TEXT = `left(row_to_json(x)::text, -1)
  || ',"receiptLines":' || coalesce(ll.items, '[]')
  || ',"receiptPayments":' || coalesce(mm.items, '[]') || '}'`;

/**
 * The whole answer as ONE statement: the count and the page share it, so they come from one
 * snapshot in one round trip. The page is a LIMIT/OFFSET walk of a winery-led index in the sort's
 * order (ties by id in the same direction). Each receipt of the page joins (LATERAL) one aggregate
 * of its lines and one of its payments, on their receipt_id indexes; Postgres writes the page's
 * receipts as the JSON text of `content` (ReceiptV2 documents, as JSON.stringify would), with
 * their number `n`.
 */
export function receiptPageStatement(
  wineryId: string,
  q: ReceiptQuery,
  page: { size: number; number: number; sort: ReceiptSort },
): SQL {
  const where = receiptFilter(wineryId, q);
  const column = SORT_COLUMNS[page.sort.field];
  const dir = page.sort.direction;
  const order = sql.raw(`${column} ${dir}, id ${dir}`);
  return sql`
    select
      (select count(*) from ${receipts} where ${where})::int8 as total,
      c.n, c.odd, c.content
    from (
      select count(*)::int as n, coalesce(bool_or(ll.odd), false) as odd,
        coalesce('[' || string_agg(${sql.raw(RECEIPT_TEXT)}, ','
          order by ${sql.raw(`p.${column} ${dir}, p.id ${dir}`)}) || ']', '[]') as content
      from (
        select * from ${receipts} where ${where}
        order by ${order}
        limit ${page.size} offset ${page.size * page.number}
      ) p
      cross join lateral (
        select '[' || string_agg(row_to_json(lx)::text, ',' order by l.line_number, l.id) || ']' as items,
          bool_or(not ${sql.raw(SAFE_QUANTITY)}) as odd
        from receipt_lines l cross join lateral (${sql.raw(LINE)}) lx
        where l.receipt_id = p.id
      ) ll
      cross join lateral (
        select '[' || string_agg(row_to_json(mx)::text, ',' order by m.payment_number, m.id) || ']' as items
        from receipt_payments m cross join lateral (${sql.raw(PAYMENT)}) mx
        where m.receipt_id = p.id
      ) mm
      cross join lateral (${sql.raw(RECEIPT)}) x
    ) c`;
}

/**
 * E4: the ReceiptPage as JSON text, in one round trip. The receipts come as Postgres wrote them
 * (passed on unparsed); the page fields around them are the Worker's.
 */
export async function queryReceipts(
  db: HttpDb,
  wineryId: string,
  q: ReceiptQuery,
): Promise<string> {
  const size = q.count ?? DEFAULT_PAGE_SIZE;
  const number = q.page ?? 0;
  const sort = q.sortBy ?? DEFAULT_SORT;
  const result = await db.execute<{
    total: string | number;
    n: number;
    odd: boolean;
    content: string;
  }>(receiptPageStatement(wineryId, q, { size, number, sort }));
  const row = result.rows[0];
  const totalElements = Number(row?.total ?? 0);
  const numberOfElements = row?.n ?? 0;
  const totalPages = Math.ceil(totalElements / size);
  const sortState = { empty: false, sorted: true, unsorted: false };
  const rest: Omit<ReceiptPage, "content"> = {
    empty: numberOfElements === 0,
    first: number === 0,
    last: number >= totalPages - 1,
    number,
    numberOfElements,
    size,
    totalElements,
    totalPages,
    pageable: {
      offset: size * number,
      pageNumber: number,
      pageSize: size,
      paged: true,
      unpaged: false,
      sort: sortState,
    },
    sort: sortState,
  };
  // ReceiptPage's keys in its order: content first, then the rest as JSON.stringify writes them.
  // A page with an odd quantity (see QUANTITY) goes through JavaScript, which writes its numbers.
  const content = row?.odd ? JSON.stringify(JSON.parse(row.content)) : (row?.content ?? "[]");
  return `{"content":${content},${JSON.stringify(rest).slice(1)}`;
}
