// The WebSocket relay pools its Postgres connections (scripts/local-db/relay-backends.ts): a
// session ended cleanly hands its connection, reset, to the next; one ended mid-statement does not.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, neon, neonConfig } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pidAlive } from "../../scripts/local-db/os";
import { simpleQuery, startupMessage } from "../../scripts/local-db/pg-wire";
import { IDLE_IN_TRANSACTION_TIMEOUT } from "../../scripts/local-db/session-settings";
import { createStats } from "../../scripts/local-db/stats";
import { startWsRelay } from "../../scripts/local-db/ws-relay";
import { type LocalStack, rawRelaySession, startLocalStack } from "./helpers";

let stack: LocalStack;
let sql: ReturnType<typeof neon>;
beforeAll(async () => {
  stack = await startLocalStack();
  sql = neon(stack.postgres.connectionString);
  await sql.query("create table pooled_notes (id int primary key)");
});
afterAll(() => stack?.close());

/** Runs `work` on a new interactive session (a Client through the relay), then ends it. */
async function session<T>(
  work: (client: Client) => Promise<T>,
  on: LocalStack = stack,
): Promise<T> {
  const client = new Client({ connectionString: on.postgres.connectionString });
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function backendPid(client: Client): Promise<number> {
  return (await client.query("select pg_backend_pid() as pid")).rows[0].pid as number;
}

/** Waits until the backend `pid` is idle in the pool: its last statement the relay's reset. */
async function pooled(pid: number): Promise<void> {
  await expect
    .poll(
      async () =>
        await sql.query("select state, query from pg_stat_activity where pid = $1", [pid]),
      { timeout: 5_000 },
    )
    .toEqual([{ state: "idle", query: "discard all" }]);
}

describe("the relay's connection pool", () => {
  it("hands a session's connection to the next one, its session state reset", async () => {
    const first = await session(async (client) => {
      await client.query("set statement_timeout = '7s'");
      await client.query("create temp table scratch (x int)");
      await client.query("prepare kept as select 1");
      return backendPid(client);
    });
    await pooled(first);
    const seen = await session(async (client) => ({
      pid: await backendPid(client),
      state: (
        await client.query(
          `select current_setting('statement_timeout') as statement,
                  current_setting('idle_in_transaction_session_timeout') as idle,
                  to_regclass('pg_temp.scratch') is null as "noTemp",
                  (select count(*)::int from pg_prepared_statements) as prepared`,
        )
      ).rows[0],
    }));
    expect(seen).toEqual({
      pid: first,
      // The start-up's options survive the reset: they are the session's defaults.
      state: { statement: "0", idle: IDLE_IN_TRANSACTION_TIMEOUT, noTemp: true, prepared: 0 },
    });
  });

  it("rolls back a transaction its client left open before the connection serves again", async () => {
    const first = await session(async (client) => {
      await client.query("begin");
      await client.query("insert into pooled_notes values (1)");
      return backendPid(client); // ended without a commit
    });
    await pooled(first);
    const seen = await session(async (client) => ({
      pid: await backendPid(client),
      rows: (await client.query("select count(*)::int as n from pooled_notes")).rows,
    }));
    expect(seen).toEqual({ pid: first, rows: [{ n: 0 }] });
  });

  it("closes a connection whose client left mid-statement, and starts another", async () => {
    const { ws, answers, user } = await rawRelaySession(stack);
    ws.send(startupMessage({ user, database: "postgres" }));
    ws.send(simpleQuery("select pg_backend_pid()"));
    await expect.poll(() => answers.length, { timeout: 5_000 }).toBe(3); // ready, pid, ready
    const pid = Number(answers[1]);
    ws.send(simpleQuery("select pg_sleep(30)"));
    await expect
      .poll(async () => await sql.query("select state from pg_stat_activity where pid = $1", [pid]))
      .toEqual([{ state: "active" }]);
    ws.terminate();
    // The relay cuts the connection; the server notices within client_connection_check_interval.
    await expect
      .poll(async () => await sql.query("select 1 from pg_stat_activity where pid = $1", [pid]), {
        timeout: 10_000,
      })
      .toEqual([]);
    expect(await session(backendPid)).not.toBe(pid);
  });

  it("keeps concurrent sessions apart: each gets a connection of its own", async () => {
    const pids = await Promise.all(
      Array.from({ length: 6 }, () =>
        session(async (client) => {
          await client.query("begin");
          const pid = await backendPid(client);
          await client.query("select pg_sleep(0.2)");
          await client.query("commit");
          return pid;
        }),
      ),
    );
    expect(new Set(pids).size).toBe(6);
  });
});

describe("an idle connection", () => {
  it("is closed after the pool's idle timeout", async () => {
    const relay = await startWsRelay({ stats: createStats(), idleTimeoutMs: 300 });
    const proxy = neonConfig.wsProxy;
    neonConfig.wsProxy = (host, port) => `${relay.host}:${relay.port}/v2?address=${host}:${port}`;
    try {
      const pid = await session(backendPid);
      await pooled(pid);
      await expect
        .poll(async () => await sql.query("select 1 from pg_stat_activity where pid = $1", [pid]), {
          timeout: 5_000,
        })
        .toEqual([]);
    } finally {
      neonConfig.wsProxy = proxy;
      await relay.close();
    }
  });
});

describe("a smart shutdown (SIGTERM to the server) with connections idle in the relay's pool", () => {
  it("completes when the SQL endpoint sees the refusal: the relay closes its idle connections", async () => {
    const own = await startLocalStack();
    try {
      const db = neon(own.postgres.connectionString);
      const pid = await session(backendPid, own);
      await expect
        .poll(
          async () => await db.query("select query from pg_stat_activity where pid = $1", [pid]),
        )
        .toEqual([{ query: "discard all" }]);
      await db.query("create table t (id int)"); // the endpoint's read pool keeps one too
      const pidFile = readFileSync(join(own.postgres.dataDir, "postmaster.pid"), "utf8");
      const postmaster = Number(pidFile.split("\n")[0]);
      process.kill(postmaster, "SIGTERM");
      // The endpoint's write pool has no session yet: its first one is refused, "shutting down".
      await expect(db.query("insert into t values (1)")).rejects.toThrow();
      // Without the endpoint telling the relay, its idle connection holds the server up to the
      // pool's idle timeout (10 s), or for good under steady traffic.
      const until = Date.now() + 5_000;
      while (pidAlive(postmaster) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      expect(pidAlive(postmaster)).toBe(false);
    } finally {
      await own.close();
    }
  });
});
