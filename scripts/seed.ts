/**
 * npm run seed [-- --tenant <uuid>]
 * Seeds the demo winery (or an extra, empty tenant) and prints, as one JSON object on the last line,
 * its wineryId, apiChannelKey and a freshly issued apiKey.
 */
import { parseArgs } from "node:util";
import { openScriptDatabase } from "./lib/database";
import { seedDemo, seedTenant } from "./lib/seed-data";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function main() {
  const { values } = parseArgs({ options: { tenant: { type: "string" } } });
  if (values.tenant !== undefined && !UUID.test(values.tenant)) {
    console.error(`--tenant must be a uuid, got "${values.tenant}"`);
    process.exit(2);
  }
  const log = (line: string) => console.error(`seed: ${line}`);
  const { db, source, close } = await openScriptDatabase();
  log(`database: ${source}`);
  try {
    const result = values.tenant
      ? await seedTenant(db, values.tenant.toLowerCase(), log)
      : await seedDemo(db, log);
    console.log(JSON.stringify(result));
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  console.error(`seed failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
