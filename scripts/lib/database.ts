import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { applyMigrations, type DatabaseServer, startEmbeddedPostgres } from "../local-db";
import { MIGRATIONS_DIR, PGLITE_DIR, STACK_FILE } from "./paths";

export interface StackState {
  pid: number;
  connectionString: string;
  apiUrl: string;
}

export function readStackState(): StackState | undefined {
  if (!existsSync(STACK_FILE)) return undefined;
  try {
    const state = JSON.parse(readFileSync(STACK_FILE, "utf8")) as StackState;
    process.kill(state.pid, 0); // throws when the dev stack is gone
    return state;
  } catch {
    return undefined;
  }
}

export interface ScriptDatabase {
  db: NodePgDatabase<typeof schema>;
  /** Where the data lives, for the script's progress output. */
  source: string;
  close(): Promise<void>;
}

/**
 * The database a script works on: DATABASE_URL when set; else the embedded database, through the
 * running dev stack's port when it is up (PGlite's files can be opened by one process only), or
 * opened here otherwise. Migrations are applied first, so a script also works on a fresh machine.
 */
export async function openScriptDatabase(): Promise<ScriptDatabase> {
  let server: DatabaseServer | undefined;
  let connectionString = process.env.DATABASE_URL;
  let source = "DATABASE_URL";
  if (!connectionString) {
    const stack = readStackState();
    if (stack) {
      connectionString = stack.connectionString;
      source = `the running dev stack's embedded database (${connectionString})`;
    } else {
      await mkdir(PGLITE_DIR, { recursive: true });
      server = await startEmbeddedPostgres({ dataDir: PGLITE_DIR });
      connectionString = server.connectionString;
      source = `the embedded database in ${PGLITE_DIR}`;
    }
  }
  await applyMigrations(connectionString, MIGRATIONS_DIR);
  const pool = new pg.Pool({ connectionString, max: 2 });
  pool.on("error", () => {});
  return {
    db: drizzle({ client: pool, schema, casing: "snake_case" }),
    source,
    async close() {
      await pool.end();
      await server?.close();
    },
  };
}
