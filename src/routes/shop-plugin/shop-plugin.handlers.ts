import { ForbiddenError } from "../../lib/errors";
import { rawResponseHandler } from "../../lib/raw-handler";
import { storedResponse } from "../../lib/stored-response";
import { parseIdempotencyKey } from "../../services/idempotency/idempotency";
import { parseShopOrderDocument } from "../../services/orders/shop-order-document";
import { receiveShopOrder } from "../../services/orders/upsert-shop-order";
import type { upsertShopPluginOrderRoute } from "./shop-plugin.routes";

/** E19. The wineryId is checked before the document is read, so a foreign winery learns nothing. */
export const upsertShopPluginOrderHandler = rawResponseHandler<typeof upsertShopPluginOrderRoute>(
  async (c) => {
    const { tagName, wineryId } = c.req.valid("query");
    const principal = c.get("principal");
    if (wineryId.toLowerCase() !== principal.wineryId.toLowerCase()) throw new ForbiddenError();
    const idempotencyKey = parseIdempotencyKey(c.req.header("Idempotency-Key"));
    const document = c.req.valid("json");
    const result = await receiveShopOrder(
      { db: c.get("db"), kv: c.env.IDEMPOTENCY, waitUntil: (p) => c.executionCtx.waitUntil(p) },
      {
        wineryId: principal.wineryId,
        tagName,
        order: parseShopOrderDocument(document, tagName),
        document,
        ...(idempotencyKey !== undefined && { idempotencyKey }),
      },
    );
    return storedResponse(result);
  },
);
