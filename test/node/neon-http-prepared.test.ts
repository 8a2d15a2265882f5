// The local SQL-over-HTTP endpoint runs the texts an application repeats as named prepared
// statements (scripts/local-db/prepared-statements.ts): bounded per connection, invisible to the
// driver, and still right after a migration changes what a prepared statement returns.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DatabaseServer,
  type NeonLocal,
  startEmbeddedPostgres,
  startNeonLocal,
} from "../../scripts/local-db";
import { MAX_PER_CONNECTION } from "../../scripts/local-db/prepared-statements";

let postgres: DatabaseServer;
let neon: NeonLocal;
beforeAll(async () => {
  postgres = await startEmbeddedPostgres();
  neon = await startNeonLocal({});
}, 120_000);
afterAll(async () => {
  await neon?.close();
  await postgres?.close();
});

interface Answer {
  status: number;
  body: { rows?: unknown[][]; fields?: { name: string }[]; results?: Answer["body"][] };
}

// One request at a time: the endpoint's pool then hands every request the same idle connection,
// whose pg_prepared_statements the checks below read.
async function post(body: unknown): Promise<Answer> {
  const response = await fetch(neon.httpEndpoint, {
    method: "POST",
    headers: { "Neon-Connection-String": postgres.connectionString },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer["body"] };
}
const query = (text: string, params: unknown[] = []) => post({ query: text, params });

async function preparedTexts(): Promise<string[]> {
  const { body } = await query("select statement from pg_prepared_statements");
  return (body.rows ?? []).map((r) => String(r[0]));
}

describe("prepared statements behind the SQL-over-HTTP endpoint", () => {
  it("prepares a text from its second run and answers every run from its own parameters", async () => {
    const text = "select $1::int + 1 as n /* repeated */";
    const answers = [];
    for (const n of [1, 2, 3]) answers.push(await query(text, [n]));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.body.rows?.[0]?.[0])).toEqual(["2", "3", "4"]);
    expect(await preparedTexts()).toContain(text);
  });

  it("plans every read for its own values (never a generic plan that cannot see them); a transaction that writes keeps Postgres's default", async () => {
    expect((await query("show plan_cache_mode")).body.rows).toEqual([["force_custom_plan"]]);
    expect((await query("create table if not exists plan_probe_rows (a int)")).status).toBe(200);
    const writing = await post({
      queries: [
        { query: "insert into plan_probe_rows values (0)", params: [] },
        { query: "show plan_cache_mode", params: [] },
      ],
    });
    expect(writing.status).toBe(200);
    expect(writing.body.results?.[1]?.rows).toEqual([["auto"]]);
    // A list read of the app begins with WITH: it is still planned for its values.
    const withRead = await query(
      "with mode as (select current_setting('plan_cache_mode') as m) select m from mode",
    );
    expect(withRead.body.rows).toEqual([["force_custom_plan"]]);
    const withWrite = await query(
      "with w as (insert into plan_probe_rows values (1) returning 1) select current_setting('plan_cache_mode') from w",
    );
    expect(withWrite.body.rows).toEqual([["auto"]]);
  });

  it("never prepares a text run once", async () => {
    const text = "select 42 as once /* one-off */";
    expect((await query(text)).body.rows).toEqual([["42"]]);
    expect(await preparedTexts()).not.toContain(text);
  });

  it("a migration that changes a prepared SELECT's columns costs no failed request", async () => {
    expect((await query("create table migrating (a int)")).status).toBe(200);
    expect((await query("insert into migrating values (1)")).status).toBe(200);
    const select = "select * from migrating";
    const batch = { queries: [{ query: select, params: [] }] };
    for (let i = 0; i < 3; i++) {
      expect((await query(select)).body.rows).toEqual([["1"]]);
      expect((await post(batch)).status).toBe(200);
    }
    expect((await query("alter table migrating add column b int default 7")).status).toBe(200);

    const single = await query(select);
    expect(single.status).toBe(200);
    expect(single.body.fields?.map((f) => f.name)).toEqual(["a", "b"]);
    expect(single.body.rows).toEqual([["1", "7"]]);
    const inBatch = await post(batch);
    expect(inBatch.status).toBe(200);
    expect(inBatch.body.results?.[0]?.rows).toEqual([["1", "7"]]);
  });

  // Last: it fills the connection's slots, after which nothing more is prepared on it.
  it(`holds at most ${MAX_PER_CONNECTION} per connection, and runs the rest unprepared`, async () => {
    const texts = Array.from({ length: MAX_PER_CONNECTION + 30 }, (_, i) => `select ${i} as i`);
    for (const text of [...texts, ...texts]) expect((await query(text)).status).toBe(200);
    const prepared = await preparedTexts();
    expect(prepared.length).toBeLessThanOrEqual(MAX_PER_CONNECTION);
    expect(prepared.length).toBeGreaterThan(0);
    // Past the bound, a repeated text still answers (unprepared).
    expect((await query(texts.at(-1) as string)).body.rows).toEqual([[String(texts.length - 1)]]);
  });
});
