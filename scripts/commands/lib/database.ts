import { mkdir } from "node:fs/promises";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../../src/db/schema";
import { applyMigrations, LocalDbError, startEmbeddedPostgres } from "../../local-db";
import { describeError, onCleanup } from "./cli";
import { readStackState } from "./dev-stack";
import { DATA_DIR, MIGRATIONS_DIR, POSTGRES_DIR } from "./paths";

export type Db = NodePgDatabase<typeof schema>;

/** host:port/database of a connection string, without credentials (for messages). */
export function describeUrl(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname}:${url.port || "5432"}${url.pathname}`;
  } catch {
    return "(unparsable)";
  }
}

/** DATABASE_URL, checked: a postgres:// URL with a host, or one line saying what is wrong. */
export function checkDatabaseUrl(raw: string): string {
  const expected = "expected postgres://user:password@host:5432/database";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LocalDbError(`DATABASE_URL is not a URL; ${expected}`);
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:")
    throw new LocalDbError(`DATABASE_URL starts with ${url.protocol}//; ${expected}`);
  if (!url.hostname) throw new LocalDbError(`DATABASE_URL names no host; ${expected}`);
  return raw;
}

/** Connects once (5 s at most), so an unreachable database fails with one line naming it. */
export async function assertReachable(connectionString: string, label: string): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (err) {
    throw new LocalDbError(
      `cannot use ${label} (${describeUrl(connectionString)}): ${describeError(err)}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

export interface DatabaseTarget {
  connectionString: string;
  /** Where the data lives, for progress output. */
  source: string;
}

/**
 * The database a command works on: DATABASE_URL when set; else the embedded PostgreSQL in
 * DATA_DIR, through the running dev stack when it is up, or started here (and stopped when the
 * command ends) otherwise.
 */
export async function resolveDatabase(log: (line: string) => void): Promise<DatabaseTarget> {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) {
    const connectionString = checkDatabaseUrl(fromEnv);
    await assertReachable(connectionString, "DATABASE_URL");
    return { connectionString, source: `DATABASE_URL (${describeUrl(connectionString)})` };
  }
  const stack = readStackState();
  if (stack)
    return {
      connectionString: stack.connectionString,
      source: `the running dev stack's database (${describeUrl(stack.connectionString)})`,
    };
  await mkdir(DATA_DIR, { recursive: true });
  const server = await startEmbeddedPostgres({ dataDir: POSTGRES_DIR, log });
  onCleanup(() => server.close());
  return {
    connectionString: server.connectionString,
    source: `the embedded PostgreSQL in ${POSTGRES_DIR}`,
  };
}

export interface ScriptDatabase extends DatabaseTarget {
  db: Db;
  /** Tags of the migrations applied on opening (a fresh machine gets its schema here). */
  applied: string[];
}

/** resolveDatabase, migrated, with a drizzle handle closed when the command ends. */
export async function openScriptDatabase(log: (line: string) => void): Promise<ScriptDatabase> {
  const target = await resolveDatabase(log);
  const applied = await applyMigrations(target.connectionString, MIGRATIONS_DIR);
  const pool = new pg.Pool({ connectionString: target.connectionString, max: 2 });
  pool.on("error", () => {});
  onCleanup(() => pool.end());
  return { ...target, applied, db: drizzle({ client: pool, schema, casing: "snake_case" }) };
}
