import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { listAvailabilities } from "../../services/slots/list-availabilities";
import { runSlotActions } from "../../services/slots/run-slot-actions";
import type { listAvailabilitiesRoute, slotActionsRoute } from "./availabilities.routes";

export const listAvailabilitiesHandler: RouteHandler<
  typeof listAvailabilitiesRoute,
  AppEnv
> = async (c) =>
  c.json(
    await listAvailabilities(c.get("db").http, c.get("principal").wineryId, c.req.valid("query")),
    200,
  );

export const slotActionsHandler: RouteHandler<typeof slotActionsRoute, AppEnv> = async (c) =>
  c.json(
    await runSlotActions(c.get("db"), c.get("principal").wineryId, c.req.valid("json"), {
      integrationsKey: c.env.INTEGRATIONS_KEY,
    }),
    200,
  );
