import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { getCommerceSession } from "../../services/commerce-sessions/get-commerce-session";
import { putCommerceSession } from "../../services/commerce-sessions/put-commerce-session";
import type { getCommerceSessionRoute, putCommerceSessionRoute } from "./commerce-sessions.routes";

export const putCommerceSessionHandler: RouteHandler<
  typeof putCommerceSessionRoute,
  AppEnv
> = async (c) => {
  const session = c.req.valid("json");
  const stored = await putCommerceSession(
    c.get("db").http,
    c.get("principal").wineryId,
    c.req.valid("param").sessionId,
    session,
  );
  return c.json(stored, 200);
};

export const getCommerceSessionHandler: RouteHandler<
  typeof getCommerceSessionRoute,
  AppEnv
> = async (c) =>
  c.json(
    await getCommerceSession(
      c.get("db").http,
      c.get("principal").wineryId,
      c.req.valid("param").sessionId,
    ),
    200,
  );
