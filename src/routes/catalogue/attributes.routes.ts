import { createRoute } from "@hono/zod-openapi";
import { jsonRequestBody, jsonResponse } from "../../lib/openapi";
import {
  AttributeIdParamsSchema,
  AttributeSchema,
  CreationResponseSchema,
  ToggleVisibilityRequestSchema,
  UpsertAttributeRequestSchema,
} from "../../schemas/attributes";
import { errorResponses } from "../../schemas/problem";

export const upsertAttributeRoute = createRoute({
  method: "post",
  path: "/product-catalog/attributes",
  tags: ["Product catalogue"],
  operationId: "upsertAttribute",
  summary: "E6. Upsert attribute",
  description:
    "With `attributeId`, updates that attribute of the winery (404 if it is not the winery's), and `code` is optional; otherwise `code` is required (400 naming it) and the winery's attribute with that `code` is updated, or created. Fields left out keep their stored values, `code` included, and a field sent as null is treated exactly as one left out (on creation: names {}, applicableToTypes [], displayOrder 0, isVisible true, valueType TEXT). `names` is keyed by language. Answers `{ id, message, status }` with status CREATED or UPDATED; `id` is the attribute's int64 id as a string. Renaming an attribute (by attributeId) to a code another attribute of the winery has is 409 CONFLICT (the body names it in `attributeCode`).",
  request: { body: jsonRequestBody(UpsertAttributeRequestSchema) },
  responses: {
    200: jsonResponse(CreationResponseSchema, "The attribute was created or updated."),
    ...errorResponses("NOT_FOUND", "CONFLICT"),
  },
});

export const toggleAttributeVisibilityRoute = createRoute({
  method: "post",
  path: "/product-catalog/attributes/{id}/toggle-visibility",
  tags: ["Product catalogue"],
  operationId: "toggleAttributeVisibility",
  summary: "E15. Toggle attribute visibility",
  description:
    "Without `isVisible` (body `{}`, or `isVisible` null), flips the attribute's visibility in one atomic UPDATE (`is_visible = not is_visible`), so two concurrent toggles leave it as it was, toggled twice. With `isVisible`, sets it to that value (repeatable). Answers the attribute as it is after the change (the interface does not show a body). Another winery's attribute is 404.",
  request: {
    params: AttributeIdParamsSchema,
    body: jsonRequestBody(ToggleVisibilityRequestSchema),
  },
  responses: {
    200: jsonResponse(AttributeSchema, "The attribute after the change."),
    ...errorResponses("NOT_FOUND"),
  },
});
