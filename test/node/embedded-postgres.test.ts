// The embedded PostgreSQL's own life cycle: throwaway and persistent clusters, refusals.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, symlink, unlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { LocalDbError, startEmbeddedPostgres } from "../../scripts/local-db";
import { pidAlive } from "../../scripts/local-db/os";
import { tempDataDir } from "./helpers";

async function queryOnce<T extends pg.QueryResultRow>(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

function postmasterPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

describe("startEmbeddedPostgres", () => {
  it("a throwaway cluster: PostgreSQL 18, Unicode-aware, gone with its files on close", async () => {
    const server = await startEmbeddedPostgres();
    const pid = postmasterPid(server.dataDir);
    const [row] = await queryOnce<{ version: string; lower: string }>(
      server.connectionString,
      "select current_setting('server_version') as version, lower('MÜLLER') as lower",
    );
    expect(row?.version).toMatch(/^18\./);
    expect(row?.lower).toBe("müller");
    expect(server.port).not.toBe(5432);
    await server.close();
    expect(pidAlive(pid)).toBe(false);
    expect(existsSync(server.dataDir)).toBe(false);
  });

  it("starts while another process reaps a throwaway cluster's folder under it (gone between readdir and stat)", async () => {
    // A dangling link named like a throwaway folder is what that race looks like: listed, then
    // no entry. Starts used to fail with ENOENT (a CI run after an interrupted one, whose orphans
    // the parallel test files reaped at once).
    const link = join(tmpdir(), `embedded-pg-vanished-${crypto.randomUUID()}`);
    await symlink(join(tmpdir(), `missing-${crypto.randomUUID()}`), link);
    try {
      const server = await startEmbeddedPostgres();
      await server.close();
    } finally {
      await unlink(link);
    }
  });

  it("with restartOnExit, comes back by itself after being killed, and not after close", async () => {
    const lines: string[] = [];
    const server = await startEmbeddedPostgres({
      restartOnExit: true,
      log: (line) => lines.push(line),
    });
    try {
      await queryOnce(
        server.connectionString,
        "create table kept (n int); insert into kept values (7)",
      );
      // A throwaway cluster commits asynchronously: a checkpoint, after the commit, writes it out.
      await queryOnce(server.connectionString, "checkpoint");
      const killed = postmasterPid(server.dataDir);
      process.kill(killed, "SIGKILL");
      await expect(queryOnce(server.connectionString, "select 1")).rejects.toThrow();
      let rows: { n: number }[] | undefined;
      for (const end = Date.now() + 60_000; !rows && Date.now() < end; ) {
        rows = await queryOnce<{ n: number }>(server.connectionString, "select n from kept").catch(
          () => {
            return new Promise<undefined>((r) => setTimeout(() => r(undefined), 200));
          },
        );
      }
      expect(rows).toEqual([{ n: 7 }]);
      expect(postmasterPid(server.dataDir)).not.toBe(killed);
      expect(lines.some((l) => /exited .*restarting/.test(l))).toBe(true);
      // The supervisor logs "is back" once its own readiness probe answers, which can be a poll
      // after the query above already did.
      for (const end = Date.now() + 10_000; Date.now() < end; ) {
        if (lines.some((l) => /is back/.test(l))) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(lines.some((l) => /is back/.test(l))).toBe(true);
    } finally {
      await server.close();
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(lines.filter((l) => /exited .*restarting/.test(l))).toHaveLength(1);
    await expect(queryOnce(server.connectionString, "select 1")).rejects.toThrow();
  }, 120_000);

  it("with restartOnExit, is not restarted (nor reported) when it exits while its owner stops: Ctrl-C reaches the server too", async () => {
    const lines: string[] = [];
    let stopping = false;
    const server = await startEmbeddedPostgres({
      restartOnExit: true,
      ownerStopping: () => stopping,
      log: (line) => lines.push(line),
    });
    try {
      const pid = postmasterPid(server.dataDir);
      stopping = true;
      process.kill(pid, "SIGINT"); // what the terminal sends the whole process group
      for (const end = Date.now() + 10_000; Date.now() < end; ) {
        try {
          process.kill(pid, 0);
        } catch {
          break; // gone
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      // Past the first restart's back-off (250 ms).
      await new Promise((r) => setTimeout(r, 1000));
      expect(lines.filter((l) => /restarting|is back/.test(l))).toEqual([]);
      await expect(queryOnce(server.connectionString, "select 1")).rejects.toThrow();
    } finally {
      await server.close();
    }
  }, 120_000);

  it("refuses a database that does not exist, as Neon does", async () => {
    const server = await startEmbeddedPostgres();
    try {
      const url = new URL(server.connectionString);
      url.pathname = "/no_such_db";
      await expect(queryOnce(url.toString(), "select 1")).rejects.toMatchObject({
        code: "3D000",
      });
    } finally {
      await server.close();
    }
  });

  it("a persistent cluster keeps its data across restarts", async () => {
    const data = await tempDataDir();
    try {
      const dataDir = join(data.dir, "postgres");
      const first = await startEmbeddedPostgres({ dataDir });
      await queryOnce(
        first.connectionString,
        "create table kept (v text); insert into kept values ('yes')",
      );
      await first.close();
      expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true);
      const second = await startEmbeddedPostgres({ dataDir });
      try {
        expect(await queryOnce(second.connectionString, "select v from kept")).toEqual([
          { v: "yes" },
        ]);
      } finally {
        await second.close();
      }
    } finally {
      await data.remove();
    }
  });

  it("serves many sessions at once", async () => {
    const server = await startEmbeddedPostgres();
    try {
      // Ten sessions each sleeping 1 s finish together, not one after another.
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 10 }, () => queryOnce(server.connectionString, "select pg_sleep(1)")),
      );
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      await server.close();
    }
  });

  it("refuses a folder that holds something else, and a port in use, in one line", async () => {
    const data = await tempDataDir();
    const blocker = createServer();
    try {
      const dataDir = join(data.dir, "not-a-cluster");
      await mkdir(dataDir);
      await writeFile(join(dataDir, "notes.txt"), "mine");
      await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(
        new LocalDbError(`${dataDir} is not empty and holds no PostgreSQL cluster`),
      );
      const port = await new Promise<number>((resolve) =>
        blocker.listen(0, "127.0.0.1", () => {
          const addr = blocker.address();
          resolve(typeof addr === "object" && addr ? addr.port : 0);
        }),
      );
      await expect(startEmbeddedPostgres({ port })).rejects.toThrow(
        new LocalDbError(`port ${port} on 127.0.0.1 is already in use`),
      );
    } finally {
      blocker.close();
      await data.remove();
    }
  });

  it("stops a server left running by an owner that died, before starting its own", async () => {
    const data = await tempDataDir();
    try {
      const dataDir = join(data.dir, "postgres");
      const orphan = await startEmbeddedPostgres({ dataDir });
      const orphanPid = postmasterPid(dataDir);
      // As if its owner had been killed: the owner file names a process that is gone.
      await writeFile(
        join(dataDir, "embedded-owner.json"),
        JSON.stringify({ pid: 2 ** 22 + 1, port: orphan.port }),
      );
      const next = await startEmbeddedPostgres({ dataDir });
      try {
        expect(pidAlive(orphanPid)).toBe(false);
        expect(await queryOnce(next.connectionString, "select 1 as one")).toEqual([{ one: 1 }]);
      } finally {
        await next.close();
        await orphan.close(); // already stopped: nothing left to do
      }
    } finally {
      await data.remove();
    }
  });
});
