// Operating-system facts the embedded PostgreSQL needs: which user runs it, and whether a process
// recorded in a pid file is still there.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { platform } from "node:os";
import { LocalDbError } from "./errors";

export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

function lookup(name: string): OsUser | undefined {
  try {
    const id = (flag: string) =>
      Number(execFileSync("id", [flag, name], { encoding: "utf8", stdio: "pipe" }).trim());
    return { name, uid: id("-u"), gid: id("-g") };
  } catch {
    return undefined;
  }
}

/**
 * PostgreSQL refuses to run as root (CI and containers run as root): then it runs as the OS user
 * EMBEDDED_POSTGRES_USER (default `postgres`, the name a system PostgreSQL also uses), created as a
 * system user without a home or login shell when it does not exist. Undefined when not root.
 */
export function findOsUser(log: (msg: string) => void): OsUser | undefined {
  if (platform() === "win32" || process.getuid?.() !== 0) return undefined;
  const name = process.env.EMBEDDED_POSTGRES_USER || "postgres";
  const existing = lookup(name);
  if (existing) return existing;
  const attempts: [string, string[]][] = [
    ["useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/bin/false", name]],
    ["adduser", ["-S", "-D", "-H", "-s", "/bin/false", name]], // busybox (Alpine)
  ];
  for (const [cmd, args] of attempts) {
    try {
      execFileSync(cmd, args, { stdio: "pipe" });
      log(`embedded-postgres: created the OS user ${name} (PostgreSQL refuses to run as root)`);
      break;
    } catch {
      // try the next tool
    }
  }
  const created = lookup(name);
  if (!created)
    throw new LocalDbError(
      `running as root, and could not create the OS user ${name} to run PostgreSQL: create one (useradd --system ${name}) or set EMBEDDED_POSTGRES_USER to an existing user`,
    );
  return created;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether `pid` is a PostgreSQL process (a pid file can outlive its process, and pids are reused). */
export function pidIsPostgres(pid: number): boolean {
  if (!pidAlive(pid)) return false;
  try {
    if (platform() === "linux")
      return readFileSync(`/proc/${pid}/comm`, "utf8").includes("postgres");
    const comm = execFileSync("ps", ["-p", String(pid), "-o", "comm="], { encoding: "utf8" });
    return /postgres/i.test(comm);
  } catch {
    return false;
  }
}
