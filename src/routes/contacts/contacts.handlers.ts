import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { streamJsonArray } from "../../lib/json-stream";
import { describeError } from "../../lib/problem";
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

/** E17/E18: a JSON array streamed in batches (constant memory), answered through the context. */
async function exportResponse(c: Context<AppEnv>, range: ContactQuery, shape: ContactExportShape) {
  const query = { wineryId: c.get("principal").wineryId, ...range };
  // After the status line a failure can only cut the body; it is logged like a failed request.
  const body = await streamJsonArray(exportContacts(c.get("db").http, query, shape), (error) =>
    console.error(
      JSON.stringify({
        level: "error",
        requestId: c.get("requestId"),
        method: c.req.method,
        path: c.req.path,
        event: "stream-aborted",
        error: describeError(error),
      }),
    ),
  );
  return c.body(body, 200, { "Content-Type": "application/json; charset=utf-8" });
}

/** A streamed body cannot carry its element type, so the route's schema types these handlers. */
type StreamHandler<R extends RouteConfig> = (
  c: Parameters<RouteHandler<R, AppEnv>>[0],
) => Promise<Response>;
const typedBy = <R extends RouteConfig>(handler: StreamHandler<R>) =>
  handler as unknown as RouteHandler<R, AppEnv>;

export const exportContactsV2Handler = typedBy<typeof exportContactsV2Route>((c) =>
  exportResponse(c, c.req.valid("json"), "v2"),
);
export const exportContactsV3Handler = typedBy<typeof exportContactsV3Route>((c) =>
  exportResponse(c, c.req.valid("json"), "v3"),
);
