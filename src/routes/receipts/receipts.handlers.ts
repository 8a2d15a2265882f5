import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { assertOwnWinery } from "../../lib/tenancy";
import { queryReceipts } from "../../services/receipts/query-receipts";
import type { queryReceiptsRoute } from "./receipts.routes";

export const queryReceiptsHandler: RouteHandler<typeof queryReceiptsRoute, AppEnv> = async (c) => {
  const query = c.req.valid("json");
  assertOwnWinery(c, query.wineryId);
  return c.json(await queryReceipts(c.get("db").http, c.get("principal").wineryId, query), 200);
};
