import { and, desc, eq, isNull } from "drizzle-orm";
import { apiKeys } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import { generateApiKey } from "./api-key-crypto";
import { DEFAULT_RATE_LIMIT_TIER, type RateLimitTier } from "./rate-limit-tiers";

export interface IssuedApiKey {
  id: string;
  key: string;
  prefix: string;
  rateLimitTier: RateLimitTier;
}

/** Issues a key for a winery. The clear key exists only in the return value: store it now. */
export async function issueApiKey(
  db: AnyDb,
  wineryId: string,
  name: string,
  options: { rateLimitTier?: RateLimitTier } = {},
): Promise<IssuedApiKey> {
  const { key, prefix, keyHash } = await generateApiKey();
  const rateLimitTier = options.rateLimitTier ?? DEFAULT_RATE_LIMIT_TIER;
  const [row] = await db
    .insert(apiKeys)
    .values({ wineryId, prefix, keyHash, name, rateLimitTier })
    .returning({ id: apiKeys.id });
  if (!row) throw new Error("api key insert returned no row");
  return { id: row.id, key, prefix, rateLimitTier };
}

export async function listApiKeys(db: AnyDb, wineryId?: string) {
  return db
    .select({
      id: apiKeys.id,
      wineryId: apiKeys.wineryId,
      prefix: apiKeys.prefix,
      name: apiKeys.name,
      rateLimitTier: apiKeys.rateLimitTier,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(wineryId ? eq(apiKeys.wineryId, wineryId) : undefined)
    .orderBy(desc(apiKeys.createdAt));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A live key by its id or its visible prefix. */
function liveKey(idOrPrefix: string) {
  return and(
    UUID.test(idOrPrefix) ? eq(apiKeys.id, idOrPrefix) : eq(apiKeys.prefix, idOrPrefix),
    isNull(apiKeys.revokedAt),
  );
}

/** Revokes by id or by the visible prefix; answers whether a live key was revoked. */
export async function revokeApiKey(db: AnyDb, idOrPrefix: string): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(liveKey(idOrPrefix))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

/**
 * Moves a live key (by id or prefix) to another rate-limit tier; answers whether one was found.
 * The key itself does not change; isolates pick the tier up when their cached verification
 * expires (AUTH_CACHE_TTL_MS).
 */
export async function setApiKeyRateLimitTier(
  db: AnyDb,
  idOrPrefix: string,
  rateLimitTier: RateLimitTier,
): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ rateLimitTier })
    .where(liveKey(idOrPrefix))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
