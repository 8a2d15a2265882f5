import { createRouter } from "../../lib/router";
import {
  getOrderHandler,
  importOrderHandler,
  queryOrdersHandler,
  updateOrderHandler,
} from "../orders/orders.handlers";
import {
  getOrderRoute,
  importOrderRoute,
  queryOrdersRoute,
  updateOrderRoute,
} from "../orders/orders.routes";

// /orders/query is registered before /orders/{id} so the literal path wins.
export const v4 = createRouter()
  .openapi(importOrderRoute, importOrderHandler)
  .openapi(queryOrdersRoute, queryOrdersHandler)
  .openapi(getOrderRoute, getOrderHandler)
  .openapi(updateOrderRoute, updateOrderHandler);
