/** npm run apikey -- create|list|revoke: see USAGE. */
import { parseArgs } from "node:util";
import {
  ASSIGNABLE_RATE_LIMIT_TIERS,
  RATE_LIMIT_TIERS,
  type RateLimitTier,
} from "../../src/services/auth/rate-limit-tiers";
import { parseCommandLine, runCommand, UsageError } from "./lib/cli";

const TIERS = ASSIGNABLE_RATE_LIMIT_TIERS.map((tier) => {
  const { limit, period } = RATE_LIMIT_TIERS[tier];
  return `${tier} (${limit.toLocaleString("en")} requests / ${period} s)`;
}).join(", ");

const USAGE = `usage:
  npm run apikey -- create --winery <uuid> --name <label> [--rate-limit <tier>]
                                                   prints the new key alone on its last line
  npm run apikey -- list [--winery <uuid>]         one line per key (never the key itself)
  npm run apikey -- rate-limit <key id or prefix> <tier>
                                                   moves a live key to another tier (within 5 s)
  npm run apikey -- revoke <key id or prefix>      returns once no isolate accepts it

Rate-limit tiers: ${TIERS}; a new key gets standard unless --rate-limit says otherwise.
Keys are stored only as SHA-256 hashes: a key is shown once, when it is created. The database:
DATABASE_URL when set, else the embedded PostgreSQL in DATA_DIR (.data), through the running
npm run dev when it is up.`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COMMANDS = ["create", "list", "rate-limit", "revoke"];

function tierOf(value: string | undefined, what: string): RateLimitTier | undefined {
  if (value === undefined) return undefined;
  const tier = ASSIGNABLE_RATE_LIMIT_TIERS.find((t) => t === value);
  if (!tier)
    throw new UsageError(
      `${what} must be one of ${ASSIGNABLE_RATE_LIMIT_TIERS.join(", ")}, got "${value}"`,
    );
  return tier;
}

const { command, target, values, rateLimitTier } = parseCommandLine(USAGE, (args) => {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      winery: { type: "string" },
      name: { type: "string" },
      "rate-limit": { type: "string" },
    },
  });
  const [command, target, extra] = positionals;
  if (!command) throw new UsageError("apikey: a command is missing");
  if (!COMMANDS.includes(command)) throw new UsageError(`apikey: unknown command "${command}"`);
  if (values.winery !== undefined && !UUID.test(values.winery))
    throw new UsageError(`--winery must be a uuid, got "${values.winery}"`);
  if (command === "create" && (!values.winery || !values.name?.trim()))
    throw new UsageError("create needs --winery and --name");
  if (command === "revoke" && !target) throw new UsageError("revoke needs the key's id or prefix");
  if (values["rate-limit"] !== undefined && command !== "create")
    throw new UsageError("--rate-limit goes with create (rate-limit <key> <tier> changes a key)");
  const rateLimitTier =
    command === "rate-limit"
      ? tierOf(extra ?? "", "the tier")
      : tierOf(values["rate-limit"], "--rate-limit");
  if (command === "rate-limit" && !target)
    throw new UsageError("rate-limit needs the key's id or prefix and a tier");
  const unexpected =
    command === "rate-limit" ? positionals[3] : command === "revoke" ? extra : target;
  if (unexpected !== undefined) throw new UsageError(`unexpected argument "${unexpected}"`);
  return { command, target, values, rateLimitTier };
});

runCommand("apikey", async () => {
  // Loaded once the command line is checked, so --help and mistakes answer at once.
  const { postgresError } = await import("../../src/db/errors");
  const { issueApiKey, listApiKeys, revokeApiKey, setApiKeyRateLimitTier } = await import(
    "../../src/services/auth/api-keys"
  );
  const { AUTH_CACHE_TTL_MS } = await import("../../src/services/auth/authenticate");
  const { openScriptDatabase } = await import("./lib/database");
  const log = (line: string) => console.error(`apikey: ${line}`);
  const { db, source } = await openScriptDatabase(log);
  log(`database: ${source}`);
  if (command === "create" && values.winery && values.name) {
    const issued = await issueApiKey(db, values.winery.toLowerCase(), values.name.trim(), {
      ...(rateLimitTier && { rateLimitTier }),
    }).catch((err: unknown) => {
      if (postgresError(err)?.code !== "23503") throw err;
      throw new Error(
        `no winery ${values.winery} (create one with npm run seed -- --tenant <uuid>)`,
      );
    });
    log(
      `created key ${issued.id} (prefix ${issued.prefix}, rate limit ${issued.rateLimitTier}); it is shown only once:`,
    );
    console.log(issued.key);
  } else if (command === "list") {
    const keys = await listApiKeys(db, values.winery?.toLowerCase());
    for (const k of keys) {
      const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "active";
      console.log(
        `${k.id}  wk_${k.prefix}_…  winery ${k.wineryId}  ${state}  rate limit ${k.rateLimitTier}  created ${k.createdAt.toISOString()}  ${k.name}`,
      );
    }
    if (keys.length === 0) log("no keys");
  } else if (command === "rate-limit" && target && rateLimitTier) {
    const keyRef = target.replace(/^wk_/, "").replace(/_.*$/, "");
    if (!(await setApiKeyRateLimitTier(db, keyRef, rateLimitTier))) {
      log(`no active key with id or prefix "${keyRef}"`);
      return 1;
    }
    // Like revoke: isolates keep the tier of a verification they cached a few seconds ago.
    log(`rate limit set; isolates apply it within ${AUTH_CACHE_TTL_MS / 1000} s`);
    // The prefix, not what was typed: that may be the whole key, a secret.
    console.log(`${keyRef} rate limit ${rateLimitTier}`);
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
