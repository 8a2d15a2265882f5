import type { HttpDb } from "../../db/client";
import { rawQuery } from "../../db/raw-batch";
import { NotFoundError } from "../../lib/errors";
import type { Order } from "../../schemas/orders";
import { ORDER_BY_ID_SQL } from "./order-json";

/**
 * GET /v4/orders/{id}: one round trip, one statement of fixed text: the order as Postgres builds
 * it (ORDER_BY_ID_SQL, the document E2 and E20 answer), so drizzle neither renders a relational
 * query nor maps its rows on every call. Another winery's order is NOT_FOUND, like a missing one.
 */
export async function getOrder(db: HttpDb, wineryId: string, orderId: number): Promise<Order> {
  const [row] = await rawQuery(db, ORDER_BY_ID_SQL, [orderId, wineryId]);
  if (!row) throw new NotFoundError("Order", orderId);
  return row.order as Order;
}
