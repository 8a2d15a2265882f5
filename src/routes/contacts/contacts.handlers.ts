import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { streamJsonArray } from "../../lib/json-stream";
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

/**
 * A streamed body cannot be a typed JSON response, so the handler is typed against its route's
 * input only; the route's schema still documents what the stream holds.
 */
function exportHandler<R extends typeof exportContactsV2Route | typeof exportContactsV3Route>(
  shape: ContactExportShape,
): RouteHandler<R, AppEnv> {
  const handler = async (c: Context<AppEnv, string, { out: { json: ContactQuery } }>) => {
    const { dateFrom, dateTo } = c.req.valid("json");
    const query = { wineryId: c.get("principal").wineryId, dateFrom, dateTo };
    const body = await streamJsonArray(exportContacts(c.get("db").http, query, shape));
    return new Response(body, {
      status: 200,
      headers: { "Content-Type": "application/json; charset=utf-8" },
    });
  };
  return handler as unknown as RouteHandler<R, AppEnv>;
}

export const exportContactsV2Handler = exportHandler<typeof exportContactsV2Route>("v2");
export const exportContactsV3Handler = exportHandler<typeof exportContactsV3Route>("v3");
