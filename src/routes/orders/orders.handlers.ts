import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { rawResponseHandler } from "../../lib/raw-handler";
import { storedResponse } from "../../lib/stored-response";
import { parseIdempotencyKey } from "../../services/idempotency/idempotency";
import { getOrder } from "../../services/orders/get-order";
import { importOrder } from "../../services/orders/import-order";
import { queryOrders } from "../../services/orders/query-orders";
import { updateOrder } from "../../services/orders/update-order";
import type {
  getOrderRoute,
  importOrderRoute,
  queryOrdersRoute,
  updateOrderRoute,
} from "./orders.routes";

/** Answers the stored response bytes, so a replay is byte-for-byte the first answer. */
export const importOrderHandler = rawResponseHandler<typeof importOrderRoute>(async (c) => {
  const idempotencyKey = parseIdempotencyKey(c.req.header("Idempotency-Key"));
  const result = await importOrder(
    { db: c.get("db"), kv: c.env.IDEMPOTENCY, waitUntil: (p) => c.executionCtx.waitUntil(p) },
    {
      wineryId: c.get("principal").wineryId,
      apiChannelKey: c.req.valid("param").apiChannelKey,
      order: c.req.valid("json"),
      rawBody: await c.req.json(),
      ...(idempotencyKey !== undefined && { idempotencyKey }),
    },
  );
  return storedResponse(result);
});

export const getOrderHandler: RouteHandler<typeof getOrderRoute, AppEnv> = async (c) =>
  c.json(
    await getOrder(c.get("db").http, c.get("principal").wineryId, c.req.valid("param").id),
    200,
  );

export const updateOrderHandler: RouteHandler<typeof updateOrderRoute, AppEnv> = async (c) => {
  const order = await updateOrder(
    c.get("db").http,
    c.get("principal").wineryId,
    c.req.valid("param").id,
    c.req.valid("json"),
  );
  return c.json(order, 200);
};

export const queryOrdersHandler: RouteHandler<typeof queryOrdersRoute, AppEnv> = async (c) =>
  c.json(
    await queryOrders(c.get("db").http, c.get("principal").wineryId, c.req.valid("json")),
    200,
  );
