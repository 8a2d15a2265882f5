/** npm run seed [-- --tenant <uuid>]: see USAGE. */
import { parseArgs } from "node:util";
import { parseCommandLine, runCommand, UsageError } from "./lib/cli";
import { DEMO_WINERY_ID } from "./lib/demo-winery";

const USAGE = `usage: npm run seed [-- --tenant <uuid>]

Seeds the demo winery (channel demo-webshop, contacts, orders with their receipts, coupons, a
catalogue, experiences with slots, reservations) and prints, as one JSON object on its last line,
wineryId, apiChannelKey, apiKey and the ids of demo rows (orderId, productId, reservationId,
...). Idempotent: a second run adds no rows. Each run issues a new API key and deletes the one
the previous run issued (npm run dev's own key, and restarts of npm run dev, leave it alone).
  --tenant <uuid>   an extra, empty winery with a channel (ch_<uuid without dashes>) and a key,
                    to try tenancy by hand; again with the same uuid, a new key for it (the
                    previous one stops working), its data left as it is. The demo winery's uuid
                    (${DEMO_WINERY_ID}) and that of any existing winery not
                    made by --tenant are refused, nothing written (a key for such a winery:
                    npm run apikey)

The database: DATABASE_URL when set, else the embedded PostgreSQL in DATA_DIR (.data), through
the running npm run dev when it is up.`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const { values } = parseCommandLine(USAGE, (args) => {
  const parsed = parseArgs({ args, options: { tenant: { type: "string" } } });
  const tenant = parsed.values.tenant;
  if (tenant !== undefined && !UUID.test(tenant))
    throw new UsageError(`--tenant must be a uuid, got "${tenant}"`);
  if (tenant?.toLowerCase() === DEMO_WINERY_ID)
    throw new UsageError(
      `--tenant ${tenant} is the demo winery (npm run seed without --tenant seeds it); --tenant makes an extra, empty winery: choose another uuid`,
    );
  return parsed;
});

runCommand("seed", async () => {
  // Loaded once the command line is checked, so --help and mistakes answer at once.
  const { openScriptDatabase } = await import("./lib/database");
  const { seedDemo, seedTenant } = await import("./lib/seed-data");
  const log = (line: string) => console.error(`seed: ${line}`);
  const { db, source, applied } = await openScriptDatabase(log);
  log(`database: ${source}`);
  if (applied.length > 0) log(`applied migrations ${applied.join(", ")}`);
  const result = values.tenant
    ? await seedTenant(db, values.tenant.toLowerCase(), log)
    : await seedDemo(db, log);
  console.log(JSON.stringify(result));
  return 0;
});
