import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { idempotencyOptions, replayHeaders } from "../../lib/idempotent-route";
import { getOrder } from "../../services/orders/get-order";
import { importOrder } from "../../services/orders/import-order";
import { queryOrders } from "../../services/orders/query-orders";
import { updateOrder } from "../../services/orders/update-order";
import { jsonText, typedBy } from "../catalogue/json-text";
import type {
  getOrderRoute,
  importOrderRoute,
  queryOrdersRoute,
  updateOrderRoute,
} from "./orders.routes";

/** E1. A replay answers the first result again, serialised to the same bytes. */
export const importOrderHandler: RouteHandler<typeof importOrderRoute, AppEnv> = async (c) => {
  const { apiChannelKey } = c.req.valid("param");
  const order = c.req.valid("json");
  const key = c.req.valid("header")["Idempotency-Key"];
  // The channel is part of the fingerprint: one key on two channels is two different requests.
  const idempotency = idempotencyOptions(c, key, { apiChannelKey, body: await c.req.json() });
  const { value, replayed } = await importOrder(
    c.get("db"),
    c.get("principal").wineryId,
    { apiChannelKey, order },
    idempotency ? { idempotency } : {},
  );
  return c.json(value, 200, replayHeaders(replayed));
};

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

/** E20 answers the page as Postgres wrote it (see order-json.ts). */
export const queryOrdersHandler = typedBy<typeof queryOrdersRoute>(async (c) =>
  jsonText(
    c,
    await queryOrders(c.get("db").http, c.get("principal").wineryId, c.req.valid("json")),
  ),
);
