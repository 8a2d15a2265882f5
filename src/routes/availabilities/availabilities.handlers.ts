import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { listAvailabilities } from "../../services/slots/list-availabilities";
import { runSlotActions } from "../../services/slots/run-slot-actions";
import type { listAvailabilitiesRoute, slotActionsRoute } from "./availabilities.routes";

/**
 * The slots are JSON text built by Postgres (see listAvailabilities), answered as they are with the
 * Content-Type c.json would set; a text body cannot carry its type, so the route types the handler.
 */
const answerSlots = async (
  c: Parameters<RouteHandler<typeof listAvailabilitiesRoute, AppEnv>>[0],
) => {
  const slots = await listAvailabilities(
    c.get("db").http,
    c.get("principal").wineryId,
    c.req.valid("query"),
  );
  return c.body(slots, 200, { "Content-Type": "application/json" });
};
export const listAvailabilitiesHandler = answerSlots as unknown as RouteHandler<
  typeof listAvailabilitiesRoute,
  AppEnv
>;

export const slotActionsHandler: RouteHandler<typeof slotActionsRoute, AppEnv> = async (c) =>
  c.json(
    await runSlotActions(c.get("db"), c.get("principal").wineryId, c.req.valid("json"), {
      integrationsKey: c.env.INTEGRATIONS_KEY,
    }),
    200,
  );
