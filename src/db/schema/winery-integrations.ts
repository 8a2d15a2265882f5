import { boolean, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { idColumn, timestamps } from "./columns";
import { wineries } from "./wineries";

/**
 * The winery's connections to outside systems (the `integrations` of E9's business-location
 * record). `authTokenCiphertext` is the integration's auth token sealed with AES-GCM under the
 * Worker secret INTEGRATIONS_KEY (src/lib/secret-box.ts), bound to the winery: the database never
 * holds a token in plain text, and a ciphertext copied to another winery's row does not open.
 */
export const wineryIntegrations = pgTable(
  "winery_integrations",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id, { onDelete: "cascade" }),
    integrationId: uuid().notNull(),
    integrationName: text().notNull(),
    authTokenCiphertext: text(),
    disabled: boolean().notNull().default(false),
    integrationData: jsonb().$type<Record<string, unknown>>(),
    integrationOptions: jsonb().$type<Record<string, unknown>>(),
    roleId: uuid(),
    ...timestamps,
  },
  (t) => [index().on(t.wineryId)],
);
