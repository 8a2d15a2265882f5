import { type SQL, sql } from "drizzle-orm";
import { testDb } from "../helpers/db";

let tables: { name: string; scoped: boolean }[] | undefined;

/**
 * What a winery has in the database, one entry per table: its rows' count and a hash of their text
 * (so an UPDATE shows as much as an INSERT). Tables without winery_id (child rows of a contact or a
 * receipt) are counted whole; the test files run one at a time, so nothing else writes meanwhile.
 * One round trip once the table list is known.
 */
export async function tenantSnapshot(wineryId: string): Promise<Record<string, string>> {
  tables ??= (
    await testDb().execute<{ name: string; scoped: boolean }>(sql`
      select table_name as name, bool_or(column_name = 'winery_id') as scoped
      from information_schema.columns
      where table_schema = 'public'
      group by table_name order by table_name`)
  ).rows;
  const parts: SQL[] = tables.map(({ name, scoped }) => {
    const table = sql.identifier(name);
    const filter =
      name === "wineries"
        ? sql`where x.id = ${wineryId}`
        : scoped
          ? sql`where x.winery_id = ${wineryId}`
          : sql``;
    const hash =
      scoped || name === "wineries"
        ? sql`md5(coalesce(string_agg(x::text, '|' order by x::text), ''))`
        : sql`''`;
    return sql`select ${name}::text as name, count(*)::text || ':' || ${hash} as state from ${table} x ${filter}`;
  });
  const { rows } = await testDb().execute<{ name: string; state: string }>(
    sql.join(parts, sql` union all `),
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.state]));
}
