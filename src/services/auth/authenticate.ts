import { and, eq, isNull } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { apiKeys } from "../../db/schema";
import { UnauthenticatedError } from "../../lib/errors";
import { apiKeyPrefix, constantTimeEqual, hashApiKey } from "./api-key-crypto";

/** Who is calling: the API key's winery confines every read and write. */
export interface Principal {
  wineryId: string;
  apiKeyId: string;
  /** The key's rate-limit tier as stored (a name of rate-limit-tiers.ts, unless the table lost it). */
  rateLimitTier: string;
}

/**
 * Verified keys are remembered per isolate for a few seconds, so that steady traffic costs no
 * extra database round trip for authentication (one lookup per key, isolate and 5 s). The price:
 * a revoked key keeps working for at most AUTH_CACHE_TTL_MS in an isolate that had just verified
 * it, which is why `npm run apikey -- revoke` returns only once that window has passed. Unknown
 * and revoked keys are never cached.
 */
export const AUTH_CACHE_TTL_MS = 5_000;
const AUTH_CACHE_MAX = 10_000;
const verified = new Map<string, Principal & { expiresAt: number }>();

export async function authenticate(
  db: HttpDb,
  key: string | undefined,
  now = Date.now(),
): Promise<Principal> {
  const prefix = key ? apiKeyPrefix(key) : undefined;
  if (!key || !prefix) throw new UnauthenticatedError();
  const keyHash = await hashApiKey(key);

  const cached = verified.get(keyHash);
  if (cached && cached.expiresAt > now) {
    const { expiresAt: _, ...principal } = cached;
    return principal;
  }

  const [row] = await db
    .select({
      id: apiKeys.id,
      wineryId: apiKeys.wineryId,
      keyHash: apiKeys.keyHash,
      rateLimitTier: apiKeys.rateLimitTier,
    })
    .from(apiKeys)
    .where(and(eq(apiKeys.prefix, prefix), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row || !constantTimeEqual(row.keyHash, keyHash)) {
    verified.delete(keyHash);
    throw new UnauthenticatedError();
  }

  const principal: Principal = {
    wineryId: row.wineryId,
    apiKeyId: row.id,
    rateLimitTier: row.rateLimitTier,
  };
  if (verified.size >= AUTH_CACHE_MAX) verified.clear();
  verified.set(keyHash, { ...principal, expiresAt: now + AUTH_CACHE_TTL_MS });
  return principal;
}
