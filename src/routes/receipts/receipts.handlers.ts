import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { queryReceipts } from "../../services/receipts/query-receipts";
import type { queryReceiptsRoute } from "./receipts.routes";

/**
 * E4. The page is JSON text built by Postgres (see queryReceipts), answered as it is with the
 * Content-Type c.json would set; a text body cannot carry its type, so the route types the handler.
 */
const handler = async (c: Parameters<RouteHandler<typeof queryReceiptsRoute, AppEnv>>[0]) => {
  const query = c.req.valid("json");
  const page = await queryReceipts(c.get("db").http, c.get("principal").wineryId, query);
  return c.body(page, 200, { "Content-Type": "application/json" });
};
export const queryReceiptsHandler = handler as unknown as RouteHandler<
  typeof queryReceiptsRoute,
  AppEnv
>;
