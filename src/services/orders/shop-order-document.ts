import { describeFieldErrors, ValidationError } from "../../lib/errors";
import { fieldErrorsFromZod } from "../../lib/problem";
import { type ExternalOrder, ExternalOrderSchema } from "../../schemas/orders";
import {
  looksLikeWooCommerce,
  WooCommerceOrderSchema,
  wooCommerceToExternalOrder,
} from "./woocommerce";

const NOT_AN_ORDER = "must be a JSON object: a WooCommerce REST API order or an ExternalOrder";

/**
 * E19's body: the JSON text of a storefront order document. A WooCommerce order (recognised by
 * its own keys, such as `line_items`) is validated and mapped; anything else must be an
 * ExternalOrder. Field paths in errors are paths inside the document (`line_items[0].total`).
 */
export function parseShopOrderDocument(text: string, tagName: string): ExternalOrder {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new ValidationError([
      {
        path: "",
        message:
          "is not JSON: the body must be a JSON string whose content is the order document's JSON text",
      },
    ]);
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new ValidationError([{ path: "", message: NOT_AN_ORDER }]);
  }

  if (looksLikeWooCommerce(document as Record<string, unknown>)) {
    const woo = WooCommerceOrderSchema.safeParse(document);
    if (!woo.success) {
      const errors = fieldErrorsFromZod(woo.error);
      throw new ValidationError(
        errors,
        `Invalid WooCommerce order: ${describeFieldErrors(errors)}`,
      );
    }
    return wooCommerceToExternalOrder(woo.data, tagName);
  }

  const external = ExternalOrderSchema.safeParse(document);
  if (!external.success) {
    const errors = fieldErrorsFromZod(external.error);
    throw new ValidationError(
      errors,
      `The document is neither a WooCommerce order (no line_items) nor a valid ExternalOrder: ${describeFieldErrors(errors)}`,
    );
  }
  return {
    ...external.data,
    sourceExternal: external.data.sourceExternal ?? { id: external.data.id, type: tagName },
  };
}
