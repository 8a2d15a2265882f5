import { createRoute, z } from "@hono/zod-openapi";
import { STREAM_FAILURE_NOTE } from "../../lib/json-stream";
import { jsonRequestBody } from "../../lib/openapi";
import {
  ContactExportV2Schema,
  ContactExportV3Schema,
  ContactInputSchema,
  ContactQuerySchema,
  ContactSchema,
} from "../../schemas/contacts";
import { errorResponses } from "../../schemas/problem";

export const upsertContactRoute = createRoute({
  method: "post",
  path: "/contacts",
  tags: ["Contacts"],
  operationId: "upsertContact",
  summary: "E13. Create a single contact (upsert)",
  description:
    "Creates the contact, or updates the winery's contact with the same lower(trim(email)), in one statement. Optional privacy flags and otherData that are left out or sent as null keep their stored values (a new contact gets false and null), so a contact read from an answer can be sent back as it is. The answer is the stored contact with its id.",
  request: { body: jsonRequestBody(ContactInputSchema) },
  responses: {
    200: {
      description: "The stored contact.",
      content: { "application/json": { schema: ContactSchema } },
    },
    ...errorResponses(),
  },
});

const exportDescription = (extra: string) =>
  `Contacts of the API key's winery created or updated in [dateFrom, dateTo) (dateFrom inclusive, dateTo exclusive), ordered by id. The array is streamed in batches, so exports of any size run in constant memory. ${STREAM_FAILURE_NOTE} ${extra}`;

export const exportContactsV2Route = createRoute({
  method: "post",
  path: "/contacts/query",
  tags: ["Contacts"],
  operationId: "exportContactsV2",
  summary: "E18. Retrieve contacts by date (version 2)",
  description: exportDescription("Version 3 adds the privacy flags and contactValue."),
  request: { body: jsonRequestBody(ContactQuerySchema) },
  responses: {
    200: {
      description: "The contacts in the range.",
      content: { "application/json": { schema: z.array(ContactExportV2Schema) } },
    },
    ...errorResponses(),
  },
});

export const exportContactsV3Route = createRoute({
  ...exportContactsV2Route,
  operationId: "exportContactsV3",
  summary: "E17. Retrieve contacts by date (version 3)",
  description: exportDescription(
    "contactValue is what the contact has paid, net of refunds, in currency units.",
  ),
  responses: {
    200: {
      description: "The contacts in the range, with privacy flags and value.",
      content: { "application/json": { schema: z.array(ContactExportV3Schema) } },
    },
    ...errorResponses(),
  },
});
