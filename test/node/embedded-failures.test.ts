// On the embedded default, through the local Neon stand-ins with Neon's own driver: every kind of
// failing statement leaves the database serving, and an open transaction blocks no one else.
// (PGlite, the former default, stopped answering after the first two kinds and served one session
// at a time.)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, neon, Pool } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pidAlive } from "../../scripts/local-db/os";
import { simpleQuery, startupMessage } from "../../scripts/local-db/pg-wire";
import { IDLE_IN_TRANSACTION_TIMEOUT } from "../../scripts/local-db/session-settings";
import { type LocalStack, rawRelaySession, startLocalStack } from "./helpers";

let stack: LocalStack;
let sql: ReturnType<typeof neon>;
beforeAll(async () => {
  stack = await startLocalStack();
  sql = neon(stack.postgres.connectionString);
  await sql.query("create table notes (id int primary key, body text)");
});
afterAll(() => stack?.close());

/** A good request right after: the database still answers, through both transports. */
async function expectServing() {
  expect(await sql.query("select 1 as one")).toEqual([{ one: 1 }]);
  const pool = new Pool({ connectionString: stack.postgres.connectionString });
  pool.on("error", () => {});
  try {
    expect((await pool.query("select 2 as two")).rows).toEqual([{ two: 2 }]);
  } finally {
    await pool.end();
  }
}

const deepJson = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("a failing statement, then a good request", () => {
  it.each([
    ["JSON nested 100,000 levels", "select $1::jsonb", [deepJson(100_000)], "54001"],
    ["an out-of-range date", "select $1::timestamptz", ["0000-12-31T23:59:59Z"], "22008"],
    ["a NUL character", "select $1::text", ["a\u0000b"], "22021"],
    ["a statement of two", "select 1; select 2", [], "42601"],
  ])("%s", async (_, text, params, code) => {
    await expect(sql.query(text as string, params as string[])).rejects.toMatchObject({ code });
    await expectServing();
  });

  it("a NUL character over a WebSocket session", async () => {
    const client = new Client({ connectionString: stack.postgres.connectionString });
    client.on("error", () => {});
    await client.connect();
    try {
      await expect(client.query("select $1::text", ["a\u0000b"])).rejects.toMatchObject({
        code: "22021",
      });
      expect((await client.query("select 3 as three")).rows).toEqual([{ three: 3 }]);
    } finally {
      await client.end();
    }
    await expectServing();
  });

  it("a transaction batch broken by its second statement rolls back whole", async () => {
    await expect(
      sql.transaction([
        sql.query("insert into notes values (1, 'kept?')"),
        sql.query("select 1 / 0"),
      ]),
    ).rejects.toMatchObject({ code: "22012" });
    expect(await sql.query("select count(*)::int as n from notes where id = 1")).toEqual([
      { n: 0 },
    ]);
    await expectServing();
  });

  it("an interactive transaction broken by an error, rolled back, then reused", async () => {
    const client = new Client({ connectionString: stack.postgres.connectionString });
    client.on("error", () => {});
    await client.connect();
    try {
      await client.query("begin");
      await client.query("insert into notes values (2, 'lost')");
      await expect(client.query("select 1 / 0")).rejects.toMatchObject({ code: "22012" });
      await expect(client.query("select 1")).rejects.toMatchObject({ code: "25P02" });
      await client.query("rollback");
      expect((await client.query("select count(*)::int as n from notes")).rows).toEqual([{ n: 0 }]);
    } finally {
      await client.end();
    }
    await expectServing();
  });

  it("a client that leaves inside a transaction: it is rolled back, others go on", async () => {
    const client = new Client({ connectionString: stack.postgres.connectionString });
    client.on("error", () => {});
    await client.connect();
    await client.query("begin");
    await client.query("insert into notes values (3, 'abandoned')");
    await client.end(); // no commit
    await expectServing();
    expect(await sql.query("select count(*)::int as n from notes where id = 3")).toEqual([
      { n: 0 },
    ]);
  });
});

describe("a Client transaction held open", () => {
  it("blocks no other session: HTTP queries, pooled transactions and other writes go on", async () => {
    const holder = new Client({ connectionString: stack.postgres.connectionString });
    holder.on("error", () => {});
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("insert into notes values (10, 'uncommitted')");

      const started = Date.now();
      expect(await sql.query("select count(*)::int as n from notes where id = 10")).toEqual([
        { n: 0 }, // not visible before the commit
      ]);
      await sql.transaction([
        sql.query("insert into notes values (11, 'batch')"),
        sql.query("update notes set body = 'batch!' where id = 11"),
      ]);
      const pool = new Pool({ connectionString: stack.postgres.connectionString });
      pool.on("error", () => {});
      try {
        const other = await pool.connect();
        await other.query("begin");
        await other.query("insert into notes values (12, 'pooled')");
        await other.query("commit");
        other.release();
      } finally {
        await pool.end();
      }
      // Served while the transaction stays open, not after it (PGlite waited for it, forever).
      expect(Date.now() - started).toBeLessThan(20_000);

      await holder.query("commit");
    } finally {
      await holder.end();
    }
    expect(await sql.query("select id from notes where id in (10, 11, 12) order by id")).toEqual([
      { id: 10 },
      { id: 11 },
      { id: 12 },
    ]);
  });
});

describe("sessions whose client is gone", () => {
  it("the endpoint's pooled sessions end a transaction left idle (IDLE_IN_TRANSACTION_TIMEOUT)", async () => {
    // A network split that swallows the endpoint's close leaves such a session holding its locks.
    expect(await sql.query("show idle_in_transaction_session_timeout")).toEqual([
      { idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT },
    ]);
  });

  it("the relay's sessions (interactive transactions) too, beside the client's own options", async () => {
    const client = new Client({
      connectionString: stack.postgres.connectionString,
      options: "-c statement_timeout=5s",
    });
    client.on("error", () => {});
    await client.connect();
    try {
      const { rows } = await client.query(
        "select current_setting('idle_in_transaction_session_timeout') as idle, current_setting('statement_timeout') as statement",
      );
      expect(rows).toEqual([{ idle: IDLE_IN_TRANSACTION_TIMEOUT, statement: "5s" }]);
    } finally {
      await client.end();
    }
  });

  it("the relay adds it to a start-up message that arrives in pieces", async () => {
    const { ws, answers, user } = await rawRelaySession(stack);
    try {
      const startup = startupMessage({ user, database: "postgres" });
      for (const piece of [startup.subarray(0, 3), startup.subarray(3, 10), startup.subarray(10)])
        ws.send(piece);
      ws.send(simpleQuery("show idle_in_transaction_session_timeout"));
      await expect
        .poll(() => answers, { timeout: 5_000 })
        .toEqual(["ready", IDLE_IN_TRANSACTION_TIMEOUT, "ready"]);
    } finally {
      ws.close();
    }
  });

  it.runIf(process.platform === "linux")(
    "the embedded server notices a client gone while its statement waits (client_connection_check_interval)",
    async () => {
      expect(await sql.query("show client_connection_check_interval")).toEqual([
        { client_connection_check_interval: "1s" },
      ]);
    },
  );
});

/** SIGTERM to the stack's postmaster (a smart shutdown); its pid. */
function smartShutdown(stack: LocalStack): number {
  const pidFile = readFileSync(join(stack.postgres.dataDir, "postmaster.pid"), "utf8");
  const postmaster = Number(pidFile.split("\n")[0]);
  process.kill(postmaster, "SIGTERM");
  return postmaster;
}

async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (pidAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return !pidAlive(pid);
}

describe("a smart shutdown (SIGTERM to the server)", () => {
  it("completes: a session refused with 57P03 makes the endpoint close its idle pooled ones", async () => {
    const own = await startLocalStack();
    try {
      const db = neon(own.postgres.connectionString);
      await db.query("create table t (id int)"); // the read pool keeps an idle session
      const postmaster = smartShutdown(own);
      // The write pool has no session yet: its first one is refused, "shutting down".
      await expect(db.query("insert into t values (1)")).rejects.toThrow();
      // Without closing the read pool's idle session the server waits for it (pg-pool's idle
      // timeout, 10 s, or for good under steady reads).
      expect(await goneWithin(postmaster, 5000)).toBe(true);
    } finally {
      await own.close();
    }
  });

  it("completes when only the WebSocket relay sees the refusal: the endpoint closes its pools too", async () => {
    const own = await startLocalStack();
    try {
      const db = neon(own.postgres.connectionString);
      await db.query("create table t (id int)");
      await db.query("insert into t values (1)"); // both pools keep an idle session
      await db.query("select id from t");
      const postmaster = smartShutdown(own);
      // An interactive transaction's session, through the relay: refused, "shutting down".
      const client = new Client({ connectionString: own.postgres.connectionString });
      client.on("error", () => {});
      await expect(client.connect()).rejects.toMatchObject({ code: "57P03" });
      // Without the relay telling the endpoint, its idle sessions hold the server up to pg-pool's
      // idle timeout (10 s), or for good under steady traffic.
      expect(await goneWithin(postmaster, 5000)).toBe(true);
    } finally {
      await own.close();
    }
  });
});
