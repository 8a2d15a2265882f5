import { createRouter } from "../../lib/router";
import { exportContactsV3Handler } from "../contacts/contacts.handlers";
import { exportContactsV3Route } from "../contacts/contacts.routes";

export const v3 = createRouter().openapi(exportContactsV3Route, exportContactsV3Handler);
