import type { NeonQueryFunction } from "@neondatabase/serverless";
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
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

/**
 * A statement drizzle builds (a `sql` template, with its nested fragments), rendered ONCE per
 * isolate into fixed text: `build` receives one marker per named parameter and must use each only
 * as a bound parameter (`${p.id}`, never inlined with sql.raw); the returned function puts the
 * call's values in the markers' places. For statements that are too intricate to write twice: the
 * text is derived from the one template, so the fixed-text path and a drizzle path on another
 * handle cannot drift apart, and the per-call rendering (most of such a request's Worker CPU)
 * is gone.
 */
export function renderedOnce<const N extends string>(
  names: readonly N[],
  build: (markers: Record<N, string>) => SQL,
): (values: Record<N, unknown>) => RawStatement {
  const markers = Object.fromEntries(names.map((name) => [name, `\u0001${name}\u0001`])) as Record<
    N,
    string
  >;
  const byMarker = new Map<unknown, N>(names.map((name) => [markers[name], name]));
  let rendered: { sql: string; params: unknown[] } | undefined;
  return (values) => {
    rendered ??= render(build(markers));
    const { sql: text, params } = rendered;
    return [
      text,
      params.map((param) => {
        const name = byMarker.get(param);
        return name === undefined ? param : values[name];
      }),
    ];
  };
}

/**
 * A statement drizzle builds, rendered for rawBatch: for a batch mixing fixed-text statements with
 * ones built per call (a planned diff's writes, which an interactive transaction runs as they are).
 */
export function rawStatement(statement: SQL): RawStatement {
  const { sql: text, params } = new PgDialect({ casing: "snake_case" }).sqlToQuery(statement);
  return [text, params];
}

/** Renders as the app's drizzle handles do (snake_case casing); a marker inlined is a bug. */
function render(statement: SQL): { sql: string; params: unknown[] } {
  const query = new PgDialect({ casing: "snake_case" }).sqlToQuery(statement);
  if (query.sql.includes("\u0001")) {
    throw new Error("renderedOnce: a parameter marker was inlined into the SQL text");
  }
  return query;
}
