import { resolve } from "node:path";

/** Local state: the embedded database, wrangler's KV, the running stack's address. Git-ignored. */
export const DATA_DIR = resolve(process.env.DATA_DIR ?? ".data");
/** The embedded PostgreSQL cluster of `npm run dev` and the scripts. */
export const POSTGRES_DIR = resolve(DATA_DIR, "postgres");
export const WRANGLER_STATE_DIR = resolve(DATA_DIR, "wrangler");
export const STACK_FILE = resolve(DATA_DIR, "dev-stack.json");
export const MIGRATIONS_DIR = resolve("drizzle");
