// npm run apikey against a real database: the rate-limit tier of a key, set at creation or later.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalStack, runCommand, startLocalStack } from "./helpers";

let stack: LocalStack;
let wineryId: string;
beforeAll(async () => {
  stack = await startLocalStack();
  const [row] = await query<{ id: string }>(
    "insert into wineries (name) values ('Apikey test') returning id",
  );
  wineryId = row?.id ?? "";
});
afterAll(() => stack?.close());

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: stack.postgres.connectionString });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

const apikey = (...args: string[]) =>
  runCommand("apikey", args, { DATABASE_URL: stack.postgres.connectionString });

async function tierOf(prefix: string) {
  const rows = await query<{ rate_limit_tier: string }>(
    "select rate_limit_tier from api_keys where prefix = $1",
    [prefix],
  );
  return rows[0]?.rate_limit_tier;
}

/** Creates a key and answers its visible prefix (wk_<prefix>_<secret> on the last line). */
async function create(
  ...extra: string[]
): Promise<{ key: string; prefix: string; stderr: string }> {
  const { code, stdout, stderr } = await apikey(
    "create",
    "--winery",
    wineryId,
    "--name",
    "t",
    ...extra,
  );
  expect(code, stderr).toBe(0);
  const prefix = /^wk_([0-9A-Za-z]{10})_/.exec(stdout.trim())?.[1];
  if (!prefix) throw new Error(`no key in ${stdout}`);
  return { key: stdout.trim(), prefix, stderr };
}

describe("npm run apikey and rate-limit tiers", () => {
  it("create puts a key on the standard tier unless --rate-limit names another", async () => {
    const standard = await create();
    expect(await tierOf(standard.prefix)).toBe("standard");
    const high = await create("--rate-limit", "high");
    expect(high.stderr).toMatch(/rate limit high/);
    expect(await tierOf(high.prefix)).toBe("high");
  });

  it("list shows each key's tier", async () => {
    const { prefix } = await create("--rate-limit", "bulk");
    const { code, stdout } = await apikey("list", "--winery", wineryId);
    expect(code).toBe(0);
    const line = stdout.split("\n").find((l) => l.includes(`wk_${prefix}_`));
    expect(line).toMatch(/ {2}rate limit bulk {2}/);
  });

  it("rate-limit moves a live key, named by its prefix or the key itself, to another tier", async () => {
    const { key, prefix } = await create();
    const moved = await apikey("rate-limit", prefix, "high");
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout.trim()).toBe(`${prefix} rate limit high`);
    expect(await tierOf(prefix)).toBe("high");
    expect((await apikey("rate-limit", key, "bulk")).code).toBe(0);
    expect(await tierOf(prefix)).toBe("bulk");
  });

  it("rate-limit of an unknown key says so and exits 1", async () => {
    const { code, stderr } = await apikey("rate-limit", "ZZZZZZZZZZ", "high");
    expect(code).toBe(1);
    expect(stderr).toMatch(/no active key with id or prefix "ZZZZZZZZZZ"/);
  });
});
