import { and, eq, isNull } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { apiKeys } from "../../db/schema";
import type { Principal } from "../../env";
import { UnauthenticatedError } from "../../lib/errors";
import { apiKeyPrefix, constantTimeEqual, hashApiKey } from "./api-key-crypto";

/**
 * Verified keys are remembered per isolate for a short while so that a request costs no extra
 * database round trip for authentication. The price is that a revoked key keeps working in an
 * isolate that verified it for at most AUTH_CACHE_TTL_MS; unknown keys are never cached.
 */
export const AUTH_CACHE_TTL_MS = 30_000;
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
  if (cached && cached.expiresAt > now)
    return { wineryId: cached.wineryId, apiKeyId: cached.apiKeyId };

  const [row] = await db
    .select({ id: apiKeys.id, wineryId: apiKeys.wineryId, keyHash: apiKeys.keyHash })
    .from(apiKeys)
    .where(and(eq(apiKeys.prefix, prefix), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row || !constantTimeEqual(row.keyHash, keyHash)) {
    verified.delete(keyHash);
    throw new UnauthenticatedError();
  }

  if (verified.size >= AUTH_CACHE_MAX) verified.clear();
  verified.set(keyHash, {
    wineryId: row.wineryId,
    apiKeyId: row.id,
    expiresAt: now + AUTH_CACHE_TTL_MS,
  });
  return { wineryId: row.wineryId, apiKeyId: row.id };
}
