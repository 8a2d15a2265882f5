import { createRouter } from "../../lib/router";
import {
  toggleAttributeVisibilityHandler,
  upsertAttributeHandler,
} from "../catalogue/attributes.handlers";
import {
  toggleAttributeVisibilityRoute,
  upsertAttributeRoute,
} from "../catalogue/attributes.routes";
import {
  getProductHandler,
  listProductsHandler,
  putProductHandler,
  updateFileMetadataHandler,
} from "../catalogue/products.handlers";
import {
  getProductRoute,
  listProductsRoute,
  putProductRoute,
  updateFileMetadataRoute,
} from "../catalogue/products.routes";
import { exportContactsV2Handler, upsertContactHandler } from "../contacts/contacts.handlers";
import { exportContactsV2Route, upsertContactRoute } from "../contacts/contacts.routes";
import {
  createCustomerClassHandler,
  getCustomerClassHandler,
  updateCustomerClassHandler,
} from "../customer-classes/customer-classes.handlers";
import {
  createCustomerClassRoute,
  getCustomerClassRoute,
  updateCustomerClassRoute,
} from "../customer-classes/customer-classes.routes";
import { upsertShopPluginOrderHandler } from "../shop-plugin/shop-plugin.handlers";
import { upsertShopPluginOrderRoute } from "../shop-plugin/shop-plugin.routes";

export const v2 = createRouter()
  .openapi(upsertContactRoute, upsertContactHandler)
  .openapi(exportContactsV2Route, exportContactsV2Handler)
  .openapi(upsertShopPluginOrderRoute, upsertShopPluginOrderHandler)
  .openapi(listProductsRoute, listProductsHandler)
  .openapi(putProductRoute, putProductHandler)
  .openapi(getProductRoute, getProductHandler)
  .openapi(updateFileMetadataRoute, updateFileMetadataHandler)
  .openapi(upsertAttributeRoute, upsertAttributeHandler)
  .openapi(toggleAttributeVisibilityRoute, toggleAttributeVisibilityHandler)
  .openapi(createCustomerClassRoute, createCustomerClassHandler)
  .openapi(updateCustomerClassRoute, updateCustomerClassHandler)
  .openapi(getCustomerClassRoute, getCustomerClassHandler);
