import { toSnakeCase } from "drizzle-orm/casing";

/**
 * A row written from one jsonb parameter (jsonb_populate_record(set)), so that the statement's
 * text is the same for any row: the hot writes render it once per isolate (raw-batch.ts's
 * renderedOnce). Columns are named by their drizzle keys (camelCase), as the app's casing maps them.
 */

/** Column names (snake_case) for a statement's text, optionally qualified. */
export const columnList = (columns: readonly string[], prefix = "") =>
  columns.map((c) => `${prefix}${toSnakeCase(c)}`).join(", ");

/** Each column list's [key, column name] pairs, derived once (rowJson runs per order and item). */
const columnNames = new WeakMap<readonly string[], readonly (readonly [string, string])[]>();

/** Row values as the JSON object jsonb_populate_record reads (column names as keys). */
export function rowJson(
  values: Record<string, unknown>,
  columns: readonly string[],
): Record<string, unknown> {
  let names = columnNames.get(columns);
  if (!names) {
    names = columns.map((c) => [c, toSnakeCase(c)] as const);
    columnNames.set(columns, names);
  }
  const row: Record<string, unknown> = {};
  for (const [key, column] of names) row[column] = values[key] ?? null;
  return row;
}
