import { type SQL, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { microsecondBound } from "../../lib/instant";
import { ordersPageJsonStatement } from "./order-json";

export interface OrderQuery {
  dateFrom: string;
  dateTo: string;
  limit?: number | null;
  offset?: number | null;
}

export const DEFAULT_ORDER_PAGE_SIZE = 50;

/**
 * The UTC calendar day of an ISO instant, as SQL. The instant goes down to its microsecond, on the
 * same day: Postgres would round 23:59:59.9999995 up to the next day.
 */
const utcDay = (instant: string): SQL =>
  sql`(${microsecondBound(instant, "down")}::timestamptz at time zone 'UTC')::date`;

/**
 * E20: orders whose order date (a calendar day) lies between the UTC days of dateFrom and dateTo,
 * both inclusive, ordered by (date, id), as the OrderPage JSON text built by Postgres (see
 * order-json.ts). The count and the page come from one statement: one round trip, one snapshot,
 * so `total` and `hasMore` agree with the page.
 */
export async function queryOrders(
  db: HttpDb,
  wineryId: string,
  query: OrderQuery,
): Promise<string> {
  const where = sql`o.winery_id = ${wineryId}
    and o.order_date >= ${utcDay(query.dateFrom)} and o.order_date <= ${utcDay(query.dateTo)}`;
  const result = await db.execute<{ body: string }>(
    ordersPageJsonStatement({
      where,
      limit: query.limit ?? DEFAULT_ORDER_PAGE_SIZE,
      offset: query.offset ?? 0,
    }),
  );
  const body = result.rows[0]?.body;
  if (!body) throw new Error("the orders page statement answered no row");
  return body;
}
