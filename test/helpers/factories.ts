import { sql } from "drizzle-orm";
import { salesChannels, wineries } from "../../src/db/schema";
import { issueApiKey, revokeApiKey } from "../../src/services/auth/api-keys";
import type { RateLimitTier } from "../../src/services/auth/rate-limit-tiers";
import { testDb } from "./db";

const unique = () => crypto.randomUUID().slice(0, 8);

export interface TestTenant {
  wineryId: string;
  apiChannelKey: string;
  apiKey: string;
}

/** A winery with one sales channel and a live API key; every call makes a new, unrelated one. */
export async function createTenant(name = `Test winery ${unique()}`): Promise<TestTenant> {
  const db = testDb();
  const [winery] = await db.insert(wineries).values({ name }).returning({ id: wineries.id });
  if (!winery) throw new Error("no winery");
  const apiChannelKey = `ch_${crypto.randomUUID().replaceAll("-", "")}`;
  await db.insert(salesChannels).values({ wineryId: winery.id, name: "Webshop", apiChannelKey });
  return { wineryId: winery.id, apiChannelKey, apiKey: await createApiKey(winery.id) };
}

/**
 * Another live key of a winery. The "bulk" tier by default, so that no test (all share one workerd
 * and its rate-limit counters) can reach a limit by accident; rate-limit tests pass "test-tiny",
 * or "test-units", the tiers the test configuration adds (vitest.config.ts, RATE_LIMIT_EXTRA_TIERS),
 * which the production table does not name.
 */
export async function createApiKey(
  wineryId: string,
  rateLimitTier: RateLimitTier | "test-tiny" | "test-units" = "bulk",
): Promise<string> {
  const { key } = await issueApiKey(testDb(), wineryId, "test", {
    rateLimitTier: rateLimitTier as RateLimitTier, // stored as text; the middleware resolves it
  });
  return key;
}

export async function createRevokedKey(wineryId: string): Promise<string> {
  const db = testDb();
  const issued = await issueApiKey(db, wineryId, "revoked");
  await revokeApiKey(db, issued.id);
  return issued.key;
}

/** `count` contacts of a winery in one statement, all stamped `at` (created and updated). */
export async function insertContacts(wineryId: string, count: number, at: Date, tag = unique()) {
  await testDb().execute(sql`
    insert into contacts (winery_id, email, first_name, last_name, phone_number, country_iso, created_at, updated_at)
    select ${wineryId}, 'bulk-' || ${tag} || '-' || g || '@example.com', 'Bulk', 'Contact ' || g, '+39 000 ' || g, 'IT',
           ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
    from generate_series(1, ${count}) g`);
}
