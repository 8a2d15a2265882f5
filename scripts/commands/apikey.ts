/** npm run apikey -- create|list|revoke: see USAGE. */
import { parseArgs } from "node:util";
import { parseCommandLine, runCommand, UsageError } from "./lib/cli";

const USAGE = `usage:
  npm run apikey -- create --winery <uuid> --name <label>   prints the new key alone on its last line
  npm run apikey -- list [--winery <uuid>]                  one line per key (never the key itself)
  npm run apikey -- revoke <key id or prefix>               returns once no isolate accepts it

Keys are stored only as SHA-256 hashes: a key is shown once, when it is created. The database:
DATABASE_URL when set, else the embedded PostgreSQL in DATA_DIR (.data), through the running
npm run dev when it is up.`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COMMANDS = ["create", "list", "revoke"];

const { command, target, values } = parseCommandLine(USAGE, (args) => {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { winery: { type: "string" }, name: { type: "string" } },
  });
  const [command, target, extra] = positionals;
  if (!command) throw new UsageError("apikey: a command is missing");
  if (!COMMANDS.includes(command)) throw new UsageError(`apikey: unknown command "${command}"`);
  if (values.winery !== undefined && !UUID.test(values.winery))
    throw new UsageError(`--winery must be a uuid, got "${values.winery}"`);
  if (command === "create" && (!values.winery || !values.name?.trim()))
    throw new UsageError("create needs --winery and --name");
  if (command === "revoke" && !target) throw new UsageError("revoke needs the key's id or prefix");
  const unexpected = command === "revoke" ? extra : target;
  if (unexpected !== undefined) throw new UsageError(`unexpected argument "${unexpected}"`);
  return { command, target, values };
});

runCommand("apikey", async () => {
  // Loaded once the command line is checked, so --help and mistakes answer at once.
  const { postgresError } = await import("../../src/db/errors");
  const { issueApiKey, listApiKeys, revokeApiKey } = await import(
    "../../src/services/auth/api-keys"
  );
  const { AUTH_CACHE_TTL_MS } = await import("../../src/services/auth/authenticate");
  const { openScriptDatabase } = await import("./lib/database");
  const log = (line: string) => console.error(`apikey: ${line}`);
  const { db, source } = await openScriptDatabase(log);
  log(`database: ${source}`);
  if (command === "create" && values.winery && values.name) {
    const issued = await issueApiKey(db, values.winery.toLowerCase(), values.name.trim()).catch(
      (err: unknown) => {
        if (postgresError(err)?.code !== "23503") throw err;
        throw new Error(
          `no winery ${values.winery} (create one with npm run seed -- --tenant <uuid>)`,
        );
      },
    );
    log(`created key ${issued.id} (prefix ${issued.prefix}); it is shown only once:`);
    console.log(issued.key);
  } else if (command === "list") {
    const keys = await listApiKeys(db, values.winery?.toLowerCase());
    for (const k of keys) {
      const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "active";
      console.log(
        `${k.id}  wk_${k.prefix}_…  winery ${k.wineryId}  ${state}  created ${k.createdAt.toISOString()}  ${k.name}`,
      );
    }
    if (keys.length === 0) log("no keys");
  } else if (command === "revoke" && target) {
    const revoked = await revokeApiKey(db, target.replace(/^wk_/, "").replace(/_.*$/, ""));
    if (!revoked) {
      log(`no active key with id or prefix "${target}"`);
      return 1;
    }
    // Isolates that verified the key in the last few seconds still trust their cache; the
    // command returns when no isolate can accept the key any more.
    log(`revoked; waiting ${AUTH_CACHE_TTL_MS / 1000} s for cached verifications to expire`);
    await new Promise((resolve) => setTimeout(resolve, AUTH_CACHE_TTL_MS));
    console.log(`revoked ${target}`);
  }
  return 0;
});
