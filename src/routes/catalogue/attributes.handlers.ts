import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { toggleAttributeVisibility, upsertAttribute } from "../../services/catalogue/attributes";
import type { toggleAttributeVisibilityRoute, upsertAttributeRoute } from "./attributes.routes";

export const upsertAttributeHandler: RouteHandler<typeof upsertAttributeRoute, AppEnv> = async (
  c,
) =>
  c.json(
    await upsertAttribute(c.get("db").http, c.get("principal").wineryId, c.req.valid("json")),
    200,
  );

export const toggleAttributeVisibilityHandler: RouteHandler<
  typeof toggleAttributeVisibilityRoute,
  AppEnv
> = async (c) =>
  c.json(
    await toggleAttributeVisibility(
      c.get("db").http,
      c.get("principal").wineryId,
      c.req.valid("param").id,
      c.req.valid("json"),
    ),
    200,
  );
