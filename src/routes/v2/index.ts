import { createRouter } from "../../lib/router";
import {
  listAvailabilitiesHandler,
  slotActionsHandler,
} from "../availabilities/availabilities.handlers";
import { listAvailabilitiesRoute, slotActionsRoute } from "../availabilities/availabilities.routes";
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
import {
  getCommerceSessionHandler,
  putCommerceSessionHandler,
} from "../commerce-sessions/commerce-sessions.handlers";
import {
  getCommerceSessionRoute,
  putCommerceSessionRoute,
} from "../commerce-sessions/commerce-sessions.routes";
import { exportContactsV2Handler, upsertContactHandler } from "../contacts/contacts.handlers";
import { exportContactsV2Route, upsertContactRoute } from "../contacts/contacts.routes";
import {
  getCouponHandler,
  putCouponHandler,
  validateCouponHandler,
} from "../coupons/coupons.handlers";
import { getCouponRoute, putCouponRoute, validateCouponRoute } from "../coupons/coupons.routes";
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
import {
  getExperienceHandler,
  previewPropagationHandler,
  saveExperienceHandler,
} from "../experiences/experiences.handlers";
import {
  getExperienceRoute,
  previewPropagationRoute,
  saveExperienceRoute,
} from "../experiences/experiences.routes";
import { queryReceiptsHandler } from "../receipts/receipts.handlers";
import { queryReceiptsRoute } from "../receipts/receipts.routes";
import {
  importReservationHandler,
  queryReservationsHandler,
  refundReservationHandler,
} from "../reservations/reservations.handlers";
import {
  importReservationRoute,
  queryReservationsRoute,
  refundReservationRoute,
} from "../reservations/reservations.routes";
import { upsertShopPluginOrderHandler } from "../shop-plugin/shop-plugin.handlers";
import { upsertShopPluginOrderRoute } from "../shop-plugin/shop-plugin.routes";

export const v2 = createRouter()
  .openapi(upsertContactRoute, upsertContactHandler)
  .openapi(exportContactsV2Route, exportContactsV2Handler)
  .openapi(upsertShopPluginOrderRoute, upsertShopPluginOrderHandler)
  .openapi(putCommerceSessionRoute, putCommerceSessionHandler)
  .openapi(getCommerceSessionRoute, getCommerceSessionHandler)
  .openapi(queryReceiptsRoute, queryReceiptsHandler)
  // /coupons/validate before /coupons/{code}, so "validate" is never taken for a code.
  .openapi(validateCouponRoute, validateCouponHandler)
  .openapi(putCouponRoute, putCouponHandler)
  .openapi(getCouponRoute, getCouponHandler)
  .openapi(listProductsRoute, listProductsHandler)
  .openapi(putProductRoute, putProductHandler)
  .openapi(getProductRoute, getProductHandler)
  .openapi(updateFileMetadataRoute, updateFileMetadataHandler)
  .openapi(upsertAttributeRoute, upsertAttributeHandler)
  .openapi(toggleAttributeVisibilityRoute, toggleAttributeVisibilityHandler)
  .openapi(createCustomerClassRoute, createCustomerClassHandler)
  .openapi(updateCustomerClassRoute, updateCustomerClassHandler)
  .openapi(getCustomerClassRoute, getCustomerClassHandler)
  .openapi(previewPropagationRoute, previewPropagationHandler)
  .openapi(getExperienceRoute, getExperienceHandler)
  .openapi(saveExperienceRoute, saveExperienceHandler)
  .openapi(listAvailabilitiesRoute, listAvailabilitiesHandler)
  .openapi(slotActionsRoute, slotActionsHandler)
  .openapi(importReservationRoute, importReservationHandler)
  .openapi(queryReservationsRoute, queryReservationsHandler)
  .openapi(refundReservationRoute, refundReservationHandler);
