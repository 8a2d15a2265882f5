import { and, desc, eq, isNull } from "drizzle-orm";
import { apiKeys } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import { generateApiKey } from "./api-key-crypto";

export interface IssuedApiKey {
  id: string;
  key: string;
  prefix: string;
}

/** Issues a key for a winery. The clear key exists only in the return value: store it now. */
export async function issueApiKey(
  db: AnyDb,
  wineryId: string,
  name: string,
): Promise<IssuedApiKey> {
  const { key, prefix, keyHash } = await generateApiKey();
  const [row] = await db
    .insert(apiKeys)
    .values({ wineryId, prefix, keyHash, name })
    .returning({ id: apiKeys.id });
  if (!row) throw new Error("api key insert returned no row");
  return { id: row.id, key, prefix };
}

export async function listApiKeys(db: AnyDb, wineryId?: string) {
  return db
    .select({
      id: apiKeys.id,
      wineryId: apiKeys.wineryId,
      prefix: apiKeys.prefix,
      name: apiKeys.name,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(wineryId ? eq(apiKeys.wineryId, wineryId) : undefined)
    .orderBy(desc(apiKeys.createdAt));
}

/** Revokes by id or by the visible prefix; answers whether a live key was revoked. */
export async function revokeApiKey(db: AnyDb, idOrPrefix: string): Promise<boolean> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrPrefix);
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(
      and(
        isUuid ? eq(apiKeys.id, idOrPrefix) : eq(apiKeys.prefix, idOrPrefix),
        isNull(apiKeys.revokedAt),
      ),
    )
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
