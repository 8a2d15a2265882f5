// The local SQL-over-HTTP endpoint writes a large answer piece by piece, yielding between pieces
// (scripts/local-db/neon-http-server.ts, streamJson): the same JSON as one JSON.stringify, long
// cells escaped slice by slice (a surrogate pair cut between slices included).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalStack, startLocalStack } from "./helpers";

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack();
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const post = async (body: unknown) => {
  const response = await fetch(stack.neon.httpEndpoint, {
    method: "POST",
    headers: { "Neon-Connection-String": stack.postgres.connectionString },
    body: JSON.stringify(body),
  });
  return {
    response,
    body: (await response.json()) as { rows?: string[][]; results?: { rows: string[][] }[] },
  };
};

describe("a large answer of the SQL-over-HTTP endpoint", () => {
  // 'x"é😀\' is 6 UTF-16 units: 5 × 200,001 units put a slice end (every 262,144) inside pairs.
  const unit = 'x"é😀\\';
  const cell = unit.repeat(200_001);

  it("is written in pieces (chunked) and reads back exactly, a single long cell included", async () => {
    const { response, body } = await post({
      query: "select repeat($1::text, 200001) as big, n::text from generate_series(1, 3) n",
      params: [unit],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBeNull();
    expect(body.rows?.map((row) => [row[0] === cell, row[1]])).toEqual([
      [true, "1"],
      [true, "2"],
      [true, "3"],
    ]);
  });

  it("in a batch too, and a small answer still comes whole with its length", async () => {
    const { body } = await post({
      queries: [
        { query: "select repeat($1::text, 200001) as big", params: [unit] },
        { query: "select 1 as one", params: [] },
      ],
    });
    expect(body.results?.[0]?.rows[0]?.[0] === cell).toBe(true);
    expect(body.results?.[1]?.rows).toEqual([["1"]]);
    const small = await post({ query: "select 1 as one", params: [] });
    expect(small.response.headers.get("content-length")).not.toBeNull();
  });
});
