import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { createDatabase } from "../../src/db/client";

/** The Worker's Database (HTTP and interactive transactions), for tests that call services. */
export function testDatabase() {
  return createDatabase(env, (promise) => {
    void promise;
  });
}

/**
 * The time a property test of database calls gets (dozens of runs, each a few statements): these
 * take 4-9 s, but one CI run on the embedded database stalled one past vitest's 30 s default.
 */
export const PROPERTY_TIMEOUT = 120_000;

/** The test's own handle on the same database the Worker uses, through the same driver. */
export function testDb() {
  return testDatabase().http;
}

/** Waits until some session of this database is blocked on a lock (a request under test). */
export async function untilSomeoneWaitsOnALock() {
  for (let attempt = 0; attempt < 200; attempt++) {
    const { rows } = await testDb().execute<{ waiting: string }>(sql`
      select count(*)::text as waiting from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`);
    if (Number(rows[0]?.waiting) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("no session ever waited on a lock");
}
