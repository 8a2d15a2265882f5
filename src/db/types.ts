import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema";

/** Any Drizzle Postgres database over our schema: Neon HTTP in the Worker, node-postgres in scripts. */
export type AnyDb = PgDatabase<PgQueryResultHKT, typeof schema>;
