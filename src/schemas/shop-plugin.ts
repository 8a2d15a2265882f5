import { z } from "@hono/zod-openapi";
import { parseJsonText } from "../lib/json-text";
import { explainedIssues } from "../lib/problem";
import { SafeString } from "./common";
import { type ExternalOrder, ExternalOrderSchema } from "./orders";
import { looksLikeWooCommerce, type WooCommerceOrder, WooCommerceOrderSchema } from "./woocommerce";

export const ShopPluginOrderQuerySchema = z.object({
  tagName: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, "must be 1 to 100 letters, digits, '.', '_' or '-'")
    .transform((tag) => tag.toLowerCase())
    .openapi({
      param: { name: "tagName", in: "query" },
      example: "woocommerce",
      description:
        "The storefront plugin the order comes from, e.g. `woocommerce`. Case-insensitive (stored in lower case); part of the upsert key and of sourceExternal.type.",
    }),
  // A string, as the interface types it: any value but the key's winery (its uuid, in any case) is
  // 403, answered by the body middleware before this schema runs.
  wineryId: SafeString.openapi({
    param: { name: "wineryId", in: "query" },
    description: "The API key's winery (its uuid); any other value is 403 FORBIDDEN.",
  }),
});

export type ShopOrderDocument =
  | { kind: "woocommerce"; order: WooCommerceOrder }
  | { kind: "external"; order: ExternalOrder };

const NOT_AN_ORDER = "must be a JSON object: a WooCommerce REST API order or an ExternalOrder";

type Issue = { path: PropertyKey[]; message: string };

/**
 * E19's body: one JSON string whose content is the storefront's order document. The inner JSON
 * obeys the same hostile-input rules as any body (NUL, lone surrogates, depth), and is then read as
 * a WooCommerce order (recognised by its own keys, such as `line_items`) or an ExternalOrder.
 * Error paths are paths inside the document (`line_items[0].total`).
 */
export const ShopOrderDocumentSchema = z
  .string({
    error:
      "must be a JSON string: JSON-encode the order document, then send that string as the body",
  })
  .transform((text, ctx): ShopOrderDocument => {
    const fail = (issues: Issue[]) => {
      for (const issue of issues) ctx.addIssue({ code: "custom", ...issue });
      return z.NEVER;
    };
    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      if (parsed.malformed) {
        return fail([
          {
            path: [],
            message:
              "is not JSON: the body must be a JSON string whose content is the order document's JSON text",
          },
        ]);
      }
      return fail(
        parsed.errors.map((e) => ({ path: e.path === "body" ? [] : [e.path], message: e.message })),
      );
    }
    const document = parsed.value;
    if (typeof document !== "object" || document === null || Array.isArray(document)) {
      return fail([{ path: [], message: NOT_AN_ORDER }]);
    }
    if (looksLikeWooCommerce(document as Record<string, unknown>)) {
      const woo = WooCommerceOrderSchema.safeParse(document);
      return woo.success
        ? { kind: "woocommerce", order: woo.data }
        : fail(explainedIssues(woo.error));
    }
    const external = ExternalOrderSchema.safeParse(document);
    return external.success
      ? { kind: "external", order: external.data }
      : fail(explainedIssues(external.error));
  })
  .openapi({
    type: "string",
    description:
      "The storefront's order document as JSON text, sent as one JSON string (the document is JSON-encoded twice).",
  });
