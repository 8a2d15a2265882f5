import { createRouter } from "../../lib/router";
import {
  listAvailabilitiesHandler,
  slotActionsHandler,
} from "../availabilities/availabilities.handlers";
import { listAvailabilitiesRoute, slotActionsRoute } from "../availabilities/availabilities.routes";
import { exportContactsV2Handler, upsertContactHandler } from "../contacts/contacts.handlers";
import { exportContactsV2Route, upsertContactRoute } from "../contacts/contacts.routes";
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
import { upsertShopPluginOrderHandler } from "../shop-plugin/shop-plugin.handlers";
import { upsertShopPluginOrderRoute } from "../shop-plugin/shop-plugin.routes";

export const v2 = createRouter()
  .openapi(upsertContactRoute, upsertContactHandler)
  .openapi(exportContactsV2Route, exportContactsV2Handler)
  .openapi(upsertShopPluginOrderRoute, upsertShopPluginOrderHandler)
  .openapi(previewPropagationRoute, previewPropagationHandler)
  .openapi(getExperienceRoute, getExperienceHandler)
  .openapi(saveExperienceRoute, saveExperienceHandler)
  .openapi(listAvailabilitiesRoute, listAvailabilitiesHandler)
  .openapi(slotActionsRoute, slotActionsHandler);
