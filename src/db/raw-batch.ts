import type { NeonQueryFunction } from "@neondatabase/serverless";
import type { HttpDb } from "./client";

/** A statement of fixed text with its `$1`, `$2` ... parameters. */
export type RawStatement = readonly [text: string, parameters: unknown[]];

/**
 * Statements written as SQL text, sent as ONE Neon HTTP batch (one round trip, one transaction,
 * run in order: each statement sees what the ones before it wrote), without drizzle building them.
 * For the hot paths whose statements are large and fixed: drizzle renders a query chunk by chunk on
 * every call, which for a statement of dozens of columns and CTEs costs more Worker CPU than the
 * request's other work. Rows come back as objects, typed by the driver's parsers (json parsed,
 * int4 as numbers). Errors are the driver's (a NeonDbError with its SQLSTATE), which
 * postgresError and isDatabaseUnavailable classify like drizzle's wrapped ones.
 */
export function rawBatch(
  db: HttpDb,
  statements: readonly RawStatement[],
): Promise<Record<string, unknown>[][]> {
  const client = clientOf(db);
  return client.transaction(statements.map(([text, parameters]) => client.query(text, parameters)));
}

/**
 * One statement of fixed text, sent alone: one round trip, as a single statement is its own
 * transaction (one snapshot). Rows as rawBatch gives them.
 */
export function rawQuery(
  db: HttpDb,
  text: string,
  parameters: unknown[],
): Promise<Record<string, unknown>[]> {
  return clientOf(db).query(text, parameters);
}

const clientOf = (db: HttpDb) =>
  (db as HttpDb & { $client: NeonQueryFunction<false, false> }).$client;
