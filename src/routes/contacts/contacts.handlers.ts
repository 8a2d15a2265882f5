import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { streamedArrayResponse, streamHandler } from "../../lib/stream-response";
import type { ContactQuery } from "../../schemas/contacts";
import { type ContactExportShape, exportContacts } from "../../services/contacts/export-contacts";
import { upsertContact } from "../../services/contacts/upsert-contact";
import type {
  exportContactsV2Route,
  exportContactsV3Route,
  upsertContactRoute,
} from "./contacts.routes";

export const upsertContactHandler: RouteHandler<typeof upsertContactRoute, AppEnv> = async (c) => {
  const contact = await upsertContact(
    c.get("db").http,
    c.get("principal").wineryId,
    c.req.valid("json"),
  );
  return c.json(contact, 200);
};

/** E17/E18: a JSON array streamed in batches (constant memory). */
function exportResponse(c: Context<AppEnv>, range: ContactQuery, shape: ContactExportShape) {
  const query = { wineryId: c.get("principal").wineryId, ...range };
  return streamedArrayResponse(c, exportContacts(c.get("db").http, query, shape));
}

export const exportContactsV2Handler = streamHandler<typeof exportContactsV2Route>((c) =>
  exportResponse(c, c.req.valid("json"), "v2"),
);
export const exportContactsV3Handler = streamHandler<typeof exportContactsV3Route>((c) =>
  exportResponse(c, c.req.valid("json"), "v3"),
);
