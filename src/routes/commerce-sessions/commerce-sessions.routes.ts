import { createRoute } from "@hono/zod-openapi";
import { jsonRequestBody, jsonResponse } from "../../lib/openapi";
import {
  CommerceSessionInputSchema,
  CommerceSessionSchema,
  SessionIdParamsSchema,
} from "../../schemas/commerce-sessions";
import { errorResponses, readErrorResponses } from "../../schemas/problem";

export const putCommerceSessionRoute = createRoute({
  method: "put",
  path: "/commerce/sessions/{sessionId}",
  tags: ["Commerce sessions"],
  operationId: "putCommerceSession",
  summary: "E3. Create or update commerce session (replace items)",
  description: [
    "Creates the session with this id in the API key's winery, or replaces it: every field and every item is replaced by what is sent (absent fields become null, absent `items` leaves none), in one transaction.",
    "`version` is the server's counter: 1 on create, +1 on every replace. A body that carries a `version` different from the stored one is 409 STALE_UPDATE with `currentVersion`, and nothing changes; without `version` the replace is unconditional. On create a sent version is not compared (there is nothing stored to differ from).",
    "`createdAt` is set on create and survives replaces; `createdAt`/`updatedAt` in the body are ignored. `id` in the body, when present, must equal the path's sessionId (400); `wineryId`, when present, must be the key's winery (403).",
    "Items are answered in the order sent; an item without `id` gets a new uuid; an item id sent twice is 400. Referenced ids (pointOfSaleId, roomId, tableId, experienceId, reservationId, sourceExperienceId, sourceReservationId) are stored as given, not checked.",
    "Session ids are scoped to the winery: another winery's session with the same id is a different session.",
  ].join("\n\n"),
  request: {
    params: SessionIdParamsSchema,
    body: jsonRequestBody(CommerceSessionInputSchema),
  },
  responses: {
    200: jsonResponse(CommerceSessionSchema, "The stored session with its items."),
    ...errorResponses("FORBIDDEN", "STALE_UPDATE"),
  },
});

export const getCommerceSessionRoute = createRoute({
  method: "get",
  path: "/commerce/sessions/{sessionId}",
  tags: ["Commerce sessions"],
  operationId: "getCommerceSession",
  summary: "Commerce session",
  description:
    "The session with its items, as E3 answers it. Read it, change it, and send it back with its `version` to replace it safely.",
  request: { params: SessionIdParamsSchema },
  responses: {
    200: jsonResponse(CommerceSessionSchema, "The session."),
    ...readErrorResponses("NOT_FOUND"),
  },
});
