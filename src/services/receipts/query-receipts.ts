import { and, eq, gte, ilike, inArray, lt, lte, type SQL, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { receipts } from "../../db/schema";
import { MAX_INSTANT_MS } from "../../schemas/common";
import {
  endInstantExclusive,
  type ReceiptPage,
  type ReceiptQuery,
  type ReceiptSort,
  startInstant,
} from "../../schemas/receipts";
import { toReceipt } from "./receipt-record";

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
  if (q.externalEntityId != null) conditions.push(uuidIn(r.externalEntityId, [q.externalEntityId]));
  if (q.wineryChannelId != null) conditions.push(uuidIn(r.wineryChannelId, [q.wineryChannelId]));
  if (q.wineryChannelIds?.length) conditions.push(uuidIn(r.wineryChannelId, q.wineryChannelIds));
  if (q.pointOfSaleSuiteIds?.length) {
    conditions.push(uuidIn(r.pointOfSaleSuiteId, q.pointOfSaleSuiteIds));
  }
  if (q.customerName != null) {
    conditions.push(ilike(r.customerName, `%${escapeLike(q.customerName)}%`));
  }
  if (q.startDate != null) conditions.push(gte(r.refDate, new Date(startInstant(q.startDate))));
  if (q.endDate != null) {
    const end = endInstantExclusive(q.endDate);
    // The end of 9999-12-31 is the year 10000, which bounds nothing (no stored instant lies past
    // 9999) and which Postgres cannot read as JavaScript writes it ("+010000-01-01T..."): a 500.
    if (end <= MAX_INSTANT_MS) conditions.push(lt(r.refDate, new Date(end)));
  }
  if (q.minTotalCents != null) conditions.push(gte(r.totalCents, q.minTotalCents));
  if (q.maxTotalCents != null) conditions.push(lte(r.totalCents, q.maxTotalCents));
  return and(...conditions) as SQL;
}

/**
 * The whole answer as ONE statement: the count and the page share it, so they come from one
 * snapshot in one round trip. The page is a LIMIT/OFFSET walk of a winery-led index in the sort's
 * order (ties by id in the same direction); each receipt's lines and payments are aggregated by
 * correlated subqueries on their receipt_id indexes, only for the rows of the page.
 */
export function receiptPageStatement(
  wineryId: string,
  q: ReceiptQuery,
  page: { size: number; number: number; sort: ReceiptSort },
): SQL {
  const where = receiptFilter(wineryId, q);
  const column = SORT_COLUMNS[page.sort.field];
  const order = sql.raw(`${column} ${page.sort.direction}, id ${page.sort.direction}`);
  return sql`
    select
      (select count(*) from ${receipts} where ${where})::int8 as total,
      coalesce((
        select json_agg(json_build_object(
          'r', to_json(p),
          'lines', (select coalesce(json_agg(to_json(l) order by l.line_number, l.id), '[]')
                    from receipt_lines l where l.receipt_id = p.id),
          'payments', (select coalesce(json_agg(to_json(m) order by m.payment_number, m.id), '[]')
                       from receipt_payments m where m.receipt_id = p.id)
        ) order by ${order})
        from (
          select * from ${receipts} where ${where}
          order by ${order}
          limit ${page.size} offset ${page.size * page.number}
        ) p
      ), '[]') as content`;
}

/** E4. One round trip per page. */
export async function queryReceipts(
  db: HttpDb,
  wineryId: string,
  q: ReceiptQuery,
): Promise<ReceiptPage> {
  const size = q.count ?? DEFAULT_PAGE_SIZE;
  const number = q.page ?? 0;
  const sort = q.sortBy ?? DEFAULT_SORT;
  const result = await db.execute<{
    total: string | number;
    content: Parameters<typeof toReceipt>[0][];
  }>(receiptPageStatement(wineryId, q, { size, number, sort }));
  const row = result.rows[0];
  const totalElements = Number(row?.total ?? 0);
  const content = (row?.content ?? []).map(toReceipt);
  const totalPages = Math.ceil(totalElements / size);
  const sortState = { empty: false, sorted: true, unsorted: false };
  return {
    content,
    empty: content.length === 0,
    first: number === 0,
    last: number >= totalPages - 1,
    number,
    numberOfElements: content.length,
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
}
