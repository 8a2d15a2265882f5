/**
 * npm run apikey -- create --winery <uuid> --name <label>   prints the new key alone on its last line
 * npm run apikey -- list [--winery <uuid>]
 * npm run apikey -- revoke <id or prefix>
 */
import { parseArgs } from "node:util";
import { postgresError } from "../src/db/errors";
import { issueApiKey, listApiKeys, revokeApiKey } from "../src/services/auth/api-keys";
import { AUTH_CACHE_TTL_MS } from "../src/services/auth/authenticate";
import { openScriptDatabase } from "./lib/database";

const USAGE = `usage:
  npm run apikey -- create --winery <uuid> --name <label>
  npm run apikey -- list [--winery <uuid>]
  npm run apikey -- revoke <key id or prefix>`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { winery: { type: "string" }, name: { type: "string" } },
  });
  const [command, target] = positionals;
  if (values.winery !== undefined && !UUID.test(values.winery))
    fail(`--winery must be a uuid, got "${values.winery}"`);
  if (command === "create" && (!values.winery || !values.name?.trim()))
    fail("create needs --winery and --name");
  if (command === "revoke" && !target) fail("revoke needs the key's id or prefix");
  if (!command || !["create", "list", "revoke"].includes(command))
    fail(`unknown command "${command ?? ""}"`);

  const { db, source, close } = await openScriptDatabase();
  console.error(`apikey: database: ${source}`);
  try {
    if (command === "create" && values.winery && values.name) {
      const issued = await issueApiKey(db, values.winery.toLowerCase(), values.name.trim());
      console.error(
        `apikey: created key ${issued.id} (prefix ${issued.prefix}); it is shown only once:`,
      );
      console.log(issued.key);
    } else if (command === "list") {
      const keys = await listApiKeys(db, values.winery?.toLowerCase());
      for (const k of keys) {
        const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "active";
        console.log(
          `${k.id}  wk_${k.prefix}_…  winery ${k.wineryId}  ${state}  created ${k.createdAt.toISOString()}  ${k.name}`,
        );
      }
      if (keys.length === 0) console.error("apikey: no keys");
    } else if (command === "revoke" && target) {
      const revoked = await revokeApiKey(db, target.replace(/^wk_/, "").replace(/_.*$/, ""));
      if (!revoked) {
        console.error(`apikey: no active key with id or prefix "${target}"`);
        process.exitCode = 1;
      } else {
        // Isolates that verified the key in the last few seconds still trust their cache; the
        // command returns when no isolate can accept the key any more.
        const seconds = AUTH_CACHE_TTL_MS / 1000;
        console.error(`apikey: revoked; waiting ${seconds} s for cached verifications to expire`);
        await new Promise((resolve) => setTimeout(resolve, AUTH_CACHE_TTL_MS));
        console.log(`revoked ${target}`);
      }
    }
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  const pg = postgresError(error);
  const cause = (error as { cause?: unknown })?.cause;
  const message =
    pg?.code === "23503"
      ? "no such winery (create it with npm run seed -- --tenant <uuid>)"
      : cause instanceof Error
        ? cause.message
        : error instanceof Error
          ? error.message
          : String(error);
  console.error(`apikey failed: ${message}`);
  process.exit(1);
});
