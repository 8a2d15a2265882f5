import type { ExternalOrder } from "../../schemas/orders";
import type { ShopOrderDocument } from "../../schemas/shop-plugin";
import { wooCommerceToExternalOrder } from "./woocommerce";

/**
 * The ExternalOrder a storefront document stands for: a WooCommerce order is mapped; an
 * ExternalOrder without sourceExternal gets { id, type: tagName }.
 */
export function shopOrderToExternalOrder(
  document: ShopOrderDocument,
  tagName: string,
): ExternalOrder {
  if (document.kind === "woocommerce") return wooCommerceToExternalOrder(document.order, tagName);
  const order = document.order;
  return { ...order, sourceExternal: order.sourceExternal ?? { id: order.id, type: tagName } };
}
