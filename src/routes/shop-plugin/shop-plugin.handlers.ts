import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { idempotencyOptions, replayHeaders } from "../../lib/idempotent-route";
import { shopOrderToExternalOrder } from "../../services/orders/shop-order-document";
import { receiveShopOrder } from "../../services/orders/upsert-shop-order";
import type { upsertShopPluginOrderRoute } from "./shop-plugin.routes";

/** E19. 201 with the order id as a JSON string; a replay answers the first id again. */
export const upsertShopPluginOrderHandler: RouteHandler<
  typeof upsertShopPluginOrderRoute,
  AppEnv
> = async (c) => {
  // The query's wineryId is the key's: the body middleware answered 403 before validation.
  const { tagName } = c.req.valid("query");
  const key = c.req.valid("header")["Idempotency-Key"];
  // The fingerprint is the document's content with the tag (canonical JSON, as for E1's body): the
  // same order re-encoded (other whitespace or key order in the string) is the same request. The
  // string parses: validation refused any other.
  const text: string = await c.req.json();
  const idempotency = idempotencyOptions(c, key, { tagName, document: JSON.parse(text) });
  const { value, replayed } = await receiveShopOrder(
    c.get("db"),
    c.get("principal").wineryId,
    { tagName, order: shopOrderToExternalOrder(c.req.valid("json"), tagName) },
    idempotency ? { idempotency } : {},
  );
  return c.json(value, 201, { ...replayHeaders(replayed), Location: `/api/v4/orders/${value}` });
};
