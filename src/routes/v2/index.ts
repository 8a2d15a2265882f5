import { createRouter } from "../../lib/router";
import { exportContactsV2Handler, upsertContactHandler } from "../contacts/contacts.handlers";
import { exportContactsV2Route, upsertContactRoute } from "../contacts/contacts.routes";

export const v2 = createRouter()
  .openapi(upsertContactRoute, upsertContactHandler)
  .openapi(exportContactsV2Route, exportContactsV2Handler);
