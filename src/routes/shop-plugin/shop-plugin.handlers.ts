import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { ForbiddenError } from "../../lib/errors";
import { parseIdempotencyKey } from "../../services/idempotency/idempotency";
import { parseShopOrderDocument } from "../../services/orders/shop-order-document";
import { upsertShopOrder } from "../../services/orders/upsert-shop-order";
import type { upsertShopPluginOrderRoute } from "./shop-plugin.routes";

/** E19. The wineryId is checked before the document is read, so a foreign winery learns nothing. */
export const upsertShopPluginOrderHandler: RouteHandler<
  typeof upsertShopPluginOrderRoute,
  AppEnv
> = async (c) => {
  const { tagName, wineryId } = c.req.valid("query");
  if (wineryId.toLowerCase() !== c.get("principal").wineryId.toLowerCase()) {
    throw new ForbiddenError();
  }
  // Validated like E1's, then unused: the upsert key already makes a re-post harmless.
  parseIdempotencyKey(c.req.header("Idempotency-Key"));
  const order = parseShopOrderDocument(c.req.valid("json"), tagName);
  const id = await upsertShopOrder(
    c.get("db").http,
    { wineryId: c.get("principal").wineryId, tagName },
    order,
  );
  return c.json(String(id), 201);
};
