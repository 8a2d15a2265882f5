import { and, asc, count, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { orderItems, orders } from "../../db/schema";
import type { Order } from "../../schemas/orders";
import { toOrder } from "./order-record";

export interface OrderQuery {
  dateFrom: string;
  dateTo: string;
  limit: number;
  offset: number;
}

export interface OrderPage {
  orders: Order[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

/** The UTC calendar day of an ISO instant, as SQL. */
const utcDay = (instant: string): SQL => sql`(${instant}::timestamptz at time zone 'UTC')::date`;

/**
 * E20: orders whose order date (a calendar day) lies between the UTC days of dateFrom and dateTo,
 * both inclusive, ordered by (date, id). The count and the page come from one atomic batch: one
 * round trip, one snapshot, so `total` and `hasMore` agree with the page.
 */
export async function queryOrders(
  db: HttpDb,
  wineryId: string,
  query: OrderQuery,
): Promise<OrderPage> {
  const inRange = and(
    eq(orders.wineryId, wineryId),
    gte(orders.orderDate, utcDay(query.dateFrom)),
    lte(orders.orderDate, utcDay(query.dateTo)),
  );
  const [[counted], rows] = await db.batch([
    db.select({ total: count() }).from(orders).where(inRange),
    db.query.orders.findMany({
      where: inRange,
      orderBy: [asc(orders.orderDate), asc(orders.id)],
      limit: query.limit,
      offset: query.offset,
      with: {
        items: { orderBy: [asc(orderItems.lineIndex)] },
        channel: { columns: { apiChannelKey: true } },
      },
    }),
  ]);
  const total = counted?.total ?? 0;
  return {
    orders: rows.map(toOrder),
    total,
    limit: query.limit,
    offset: query.offset,
    hasMore: query.offset + rows.length < total,
  };
}
