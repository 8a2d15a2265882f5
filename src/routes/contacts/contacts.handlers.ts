import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { streamJsonArray } from "../../lib/json-stream";
import { rawResponseHandler } from "../../lib/raw-handler";
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

async function exportResponse(c: Context<AppEnv>, range: ContactQuery, shape: ContactExportShape) {
  const query = { wineryId: c.get("principal").wineryId, ...range };
  const body = await streamJsonArray(exportContacts(c.get("db").http, query, shape));
  return new Response(body, {
    status: 200,
    headers: { "Content-Type": "application/json; charset=utf-8" },
  });
}

export const exportContactsV2Handler = rawResponseHandler<typeof exportContactsV2Route>((c) =>
  exportResponse(c, c.req.valid("json"), "v2"),
);
export const exportContactsV3Handler = rawResponseHandler<typeof exportContactsV3Route>((c) =>
  exportResponse(c, c.req.valid("json"), "v3"),
);
