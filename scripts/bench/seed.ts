/** The bench's data, written straight to the database: wineries, their keys, bulk contacts. */
import { sql } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { issueApiKey } from "../../src/services/auth/api-keys";

export interface BenchTenant {
  wineryId: string;
  apiKey: string;
}

export interface BenchDb {
  db: NodePgDatabase<typeof schema>;
  close(): Promise<void>;
}

export function openBenchDb(connectionString: string): BenchDb {
  // One connection: the soak's few bulk statements run one after the other anyway.
  const pool = new pg.Pool({ connectionString, max: 1 });
  pool.on("error", () => {});
  return {
    db: drizzle({ client: pool, schema, casing: "snake_case" }),
    close: () => pool.end(),
  };
}

export async function createTenant(
  db: NodePgDatabase<typeof schema>,
  name: string,
): Promise<BenchTenant> {
  const [winery] = await db
    .insert(schema.wineries)
    .values({ name })
    .returning({ id: schema.wineries.id });
  if (!winery) throw new Error("winery insert returned no row");
  await db.insert(schema.salesChannels).values({
    wineryId: winery.id,
    name: "Webshop",
    apiChannelKey: `bench_${crypto.randomUUID().replaceAll("-", "")}`,
  });
  // The bulk tier: a bench run is exactly the load the standard tier refuses.
  const { key } = await issueApiKey(db, winery.id, `bench ${new Date().toISOString()}`, {
    rateLimitTier: "bulk",
  });
  return { wineryId: winery.id, apiKey: key };
}

/**
 * `count` contacts in one statement (like test/helpers/factories.ts insertContacts), all created
 * and updated at `at`, without child rows (emails, phones, addresses).
 */
export async function insertContacts(
  db: NodePgDatabase<typeof schema>,
  wineryId: string,
  count: number,
  at: Date,
): Promise<void> {
  const tag = crypto.randomUUID().slice(0, 8);
  await db.execute(sql`
    insert into contacts (winery_id, email, first_name, last_name, phone_number, country_iso, created_at, updated_at)
    select ${wineryId}, 'bulk-' || ${tag} || '-' || g || '@example.com', 'Bulk', 'Contact ' || g, '+39 000 ' || g, 'IT',
           ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
    from generate_series(1, ${count}::int) g`);
}

/** Fresh planner statistics after a bulk load, as a long-lived table would have. */
export async function analyzeContacts(db: NodePgDatabase<typeof schema>): Promise<void> {
  await db.execute(sql`analyze contacts`);
}
