import { and, asc, eq } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { orderItems, orders } from "../../db/schema";
import { NotFoundError } from "../../lib/errors";
import type { Order } from "../../schemas/orders";
import { toOrder } from "./order-record";

/** The relational read of one order with its items and channel: one SQL statement. */
export function findOrderQuery(db: HttpDb, wineryId: string, orderId: number) {
  return db.query.orders.findFirst({
    where: and(eq(orders.id, orderId), eq(orders.wineryId, wineryId)),
    with: {
      items: { orderBy: [asc(orderItems.lineIndex)] },
      channel: { columns: { apiChannelKey: true } },
    },
  });
}

/** GET /v4/orders/{id}: one round trip; another winery's order is NOT_FOUND, like a missing one. */
export async function getOrder(db: HttpDb, wineryId: string, orderId: number): Promise<Order> {
  const row = await findOrderQuery(db, wineryId, orderId);
  if (!row) throw new NotFoundError("Order", orderId);
  return toOrder(row);
}
