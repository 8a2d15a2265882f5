// A request the caller abandoned never runs later. The Worker gives up on a database that does not
// answer and tells its client 503 with nothing written; a stopped PostgreSQL (SIGSTOP) keeps what
// was sent in its socket and, once resumed, would run it: a batch from BEGIN to COMMIT, a single
// statement on its own. The SQL-over-HTTP endpoint resets the connection of a request whose caller
// went away (scripts/local-db/neon-http-server.ts, withClient).
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type NeonLocal, startNeonLocal } from "../../scripts/local-db";
import {
  type EmbeddedPostgres,
  startEmbeddedPostgres,
} from "../../scripts/local-db/embedded-postgres";
import { POOL_SIZE, SESSION_START_TIMEOUT_MS } from "../../scripts/local-db/neon-http-server";

let postgres: EmbeddedPostgres;
let neon: NeonLocal;
beforeAll(async () => {
  postgres = await startEmbeddedPostgres({});
  neon = await startNeonLocal({});
  await query("create table marks (tag text primary key)");
}, 120_000);
afterAll(async () => {
  await neon?.close();
  await postgres?.close();
});

function post(body: unknown, signal?: AbortSignal) {
  return fetch(neon.httpEndpoint, {
    method: "POST",
    headers: { "Neon-Connection-String": postgres.connectionString },
    body: JSON.stringify(body),
    signal,
  });
}
async function query(text: string) {
  const response = await post({ query: text, params: [] });
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as { rows: unknown[][] };
}

/** The postmaster and its children, stopped (SIGSTOP) or resumed (SIGCONT). */
function signalAll(signal: "SIGSTOP" | "SIGCONT") {
  const pid = Number(readFileSync(join(postgres.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  // Children first on stop, the postmaster first on resume, as the README's recipe does.
  const order = signal === "SIGSTOP" ? [...children, pid] : [pid, ...children];
  for (const p of order) process.kill(p, signal);
}

describe("a request whose caller went away while PostgreSQL was stopped", () => {
  it.each([
    [
      "a batch (one transaction)",
      (tag: string) => ({
        queries: [
          { query: "select 1", params: [] },
          { query: `insert into marks values ('${tag}')`, params: [] },
        ],
      }),
    ],
    [
      "a single statement",
      (tag: string) => ({ query: `insert into marks values ('${tag}')`, params: [] }),
    ],
  ])("%s is not run once PostgreSQL resumes", async (_, body) => {
    // A pooled connection exists, so the request reaches the stopped server's socket.
    await query("select 1");
    const tag = crypto.randomUUID();
    signalAll("SIGSTOP");
    try {
      await expect(post(body(tag), AbortSignal.timeout(500))).rejects.toThrow(/abort|timeout/i);
    } finally {
      signalAll("SIGCONT");
    }
    // Whatever would run has run by the time the next request is answered, and a while after.
    await sleep(300);
    const { rows } = await query(`select count(*)::int from marks where tag = '${tag}'`);
    expect(rows).toEqual([["0"]]);
  });
});

// A stopped postmaster whose sessions still run: requests on pooled connections go on, so the
// Worker's liveness check finds a working database, and a request that needs a new connection waits
// on the endpoint. It must fail in about the time the Worker gives a session (503), not hang.
describe("a server that accepts connections and starts none", () => {
  it("fails a request that needs a new pooled connection 08006 within the session start-up bound", async () => {
    const database = `fresh_${crypto.randomUUID().replaceAll("-", "")}`;
    const admin = new pg.Client({ connectionString: postgres.connectionString });
    await admin.connect();
    await admin.query(`create database ${database}`).finally(() => admin.end());
    const url = new URL(postgres.connectionString);
    url.pathname = `/${database}`;
    const pid = Number(
      readFileSync(join(postgres.dataDir, "postmaster.pid"), "utf8").split("\n")[0],
    );
    process.kill(pid, "SIGSTOP");
    let answer: Response;
    try {
      // No pooled connection to that database yet: the endpoint opens one, which never starts.
      answer = await fetch(neon.httpEndpoint, {
        method: "POST",
        headers: { "Neon-Connection-String": url.toString() },
        body: JSON.stringify({ query: "select 1", params: [] }),
        // Twice SESSION_START_TIMEOUT_MS: the pool's own bound (10 s) is far past it.
        signal: AbortSignal.timeout(2 * SESSION_START_TIMEOUT_MS),
      });
    } finally {
      process.kill(pid, "SIGCONT");
    }
    expect(((await answer.json()) as { code?: string }).code).toBe("08006");
    // The server serves that database once it starts connections again.
    const again = await fetch(neon.httpEndpoint, {
      method: "POST",
      headers: { "Neon-Connection-String": url.toString() },
      body: JSON.stringify({ query: "select 1", params: [] }),
    });
    expect(again.status, await again.clone().text()).toBe(200);
  }, 30_000);
});

// The Worker's liveness probe asks whether the server answers at all (src/db/client.ts): queued
// for a pooled connection behind queries that wait on a row lock, it would go unanswered and the
// Worker would answer 503 with a working database. The endpoint answers it on its own connection.
describe("the liveness probe", () => {
  it("is answered while every pooled connection waits on a row lock", async () => {
    await query("create table if not exists held (id int primary key)");
    await query("insert into held values (1) on conflict do nothing");
    const holder = new pg.Client({ connectionString: postgres.connectionString });
    await holder.connect();
    const waiting: Promise<number>[] = [];
    try {
      await holder.query("begin");
      await holder.query("select id from held where id = 1 for update");
      // More waiting statements than the pool has connections: the last ones queue for one.
      for (let i = 0; i < 2 * POOL_SIZE; i++)
        waiting.push(
          new Promise<number>((resolve, reject) => {
            const req = request(neon.httpEndpoint, {
              method: "POST",
              agent: false,
              headers: { "Neon-Connection-String": postgres.connectionString },
            });
            req.on("response", (res) => {
              res.resume();
              res.on("end", () => resolve(res.statusCode ?? 0));
            });
            req.on("error", reject);
            req.end(JSON.stringify({ query: "update held set id = id where id = 1", params: [] }));
          }),
        );
      // (pg_stat_activity is read once per transaction unless its snapshot is cleared.)
      const waiters = async () =>
        (
          await holder.query(
            "select pg_stat_clear_snapshot(), count(*)::int as n from pg_stat_activity where application_name = 'neon-local-http' and wait_event_type = 'Lock'",
          )
        ).rows[0].n as number;
      while ((await waiters()) < POOL_SIZE) await sleep(50);

      const probe = await post({ query: "select 1 /* liveness */", params: [] });
      expect(probe.status, await probe.clone().text()).toBe(200);
      expect(((await probe.json()) as { rows: unknown[][] }).rows).toEqual([["1"]]);
    } finally {
      await holder.query("rollback");
      await holder.end();
    }
    expect(await Promise.all(waiting)).toEqual(waiting.map(() => 200));
  }, 60_000);
  // Under load (20 clients, load average 9) probes overlapped on the one connection, and pg queued
  // them itself: pg 8 warns of that ("already executing a query"), pg 9 removes it. The endpoint
  // runs them one after another.
  it("answers probes that arrive together one after another on its connection", async () => {
    const inFlight = new Map<pg.Client, number>();
    let most = 0;
    const original = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      const result = (original as (...a: unknown[]) => unknown).apply(this, args);
      if (!(result instanceof Promise)) return result;
      inFlight.set(this, (inFlight.get(this) ?? 0) + 1);
      most = Math.max(most, inFlight.get(this) ?? 0);
      return result.finally(() => inFlight.set(this, (inFlight.get(this) ?? 1) - 1));
    } as typeof original);
    try {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => post({ query: "select 1 /* liveness */", params: [] })),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      for (const answer of answers)
        expect(((await answer.json()) as { rows: unknown[][] }).rows).toEqual([["1"]]);
    } finally {
      spy.mockRestore();
    }
    expect(most).toBe(1);
  }, 60_000);

  // A probe costs the server one round trip, as on Neon (whose endpoint keeps its connections):
  // opening a connection for each one added the start-up's, and a database 180 ms away each way
  // failed the Worker's 0.7 s while it answered every query (an outside audit's latency proxy).
  it("reuses its connection from one probe to the next, and a caller gone mid-probe drops it", async () => {
    const probePids = async () =>
      (
        await query(
          "select pg_stat_clear_snapshot(), pid from pg_stat_activity where application_name = 'neon-local-probe'",
        )
      ).rows.map((row) => row[1]);
    const probe = async () => {
      const answer = await post({ query: "select 1 /* liveness */", params: [] });
      expect(answer.status, await answer.clone().text()).toBe(200);
    };
    await probe();
    const [first, ...more] = await probePids();
    expect(first).toBeDefined();
    expect(more).toEqual([]);
    await probe();
    await probe();
    expect(await probePids()).toEqual([first]);

    // Stopped, the server leaves a probe unanswered; its caller gives up, and the endpoint closes
    // that connection (the next probe opens a new one).
    signalAll("SIGSTOP");
    try {
      const gone = new AbortController();
      const pending = post({ query: "select 1 /* liveness */", params: [] }, gone.signal);
      await sleep(300);
      gone.abort();
      await expect(pending).rejects.toThrow();
      await sleep(100);
    } finally {
      signalAll("SIGCONT");
    }
    await probe();
    const after = await probePids();
    expect(after).toHaveLength(1);
    expect(after).not.toEqual([first]);
  }, 60_000);
});
