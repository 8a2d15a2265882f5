// npm run dev's checks before anything starts. Only light modules here: dev.ts runs them before it
// loads the stack's (drizzle, pg, the local database stand-ins: seconds on a busy machine), so a
// port that is taken is refused as soon as the command has started.
import { existsSync } from "node:fs";
import { LocalDbError } from "../../local-db/errors";
import { portInUse } from "../../local-db/ports";
import { readStackState } from "./dev-stack";
import { DATA_DIR, STACK_FILE } from "./paths";

const log = (line: string) => console.log(`[dev] ${line}`);

/**
 * Waits up to `ms` for `port` to be free when a previous npm run dev on this DATA_DIR was killed
 * outright (its state file remains, its process is gone): its wrangler is being stopped by its
 * watcher (stopGroupWhenGone) and releases the port within a few seconds.
 */
async function portFreedByPreviousStack(port: number, ms: number): Promise<boolean> {
  if (!existsSync(STACK_FILE) || readStackState()) return false;
  log(`a previous npm run dev on ${DATA_DIR} was stopped outright; waiting for its server to go`);
  for (const until = Date.now() + ms; Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 250));
    if (!(await portInUse(port))) return true;
  }
  return false;
}

/** The first port after `port` (from 8788 past 65535) that nothing listens on at this moment. */
export async function nextFreePort(port: number): Promise<number | undefined> {
  for (let i = 1, p = port + 1; i <= 100; i++, p++) {
    if (p > 65535) p = 8788;
    if (p !== port && !(await portInUse(p))) return p;
  }
  return undefined;
}

/**
 * Refuses to start when something listens on `port` (the health check would reach the other
 * server) or a dev stack already runs on DATA_DIR.
 */
export async function checkDevCanStart(port: number): Promise<void> {
  if ((await portInUse(port)) && !(await portFreedByPreviousStack(port, 10_000))) {
    const free = await nextFreePort(port);
    throw new LocalDbError(
      `port ${port} is already in use; stop what listens there, or choose another port${free ? `: PORT=${free} npm run dev (free now)` : ""}`,
    );
  }
  const running = readStackState();
  if (running)
    throw new LocalDbError(
      `a dev stack (pid ${running.pid}) is already running on ${DATA_DIR}; stop it, or set DATA_DIR`,
    );
}
