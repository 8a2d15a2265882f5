// A child's process group that must not outlive this process, however this process ends.
import { type ChildProcess, spawn } from "node:child_process";

/**
 * The watcher: reads its stdin (a pipe from the owner) to end of file, which the kernel delivers
 * when the owner's last descriptor of it closes, at exit or at death by any signal, SIGKILL
 * included. It then sends `signal` to the group (to the process alone when it leads none), and
 * SIGKILL to what is left after `graceMs`. argv: [node, pid, signal, graceMs].
 */
const WATCHER = `
const pid = Number(process.argv[1]);
const signal = process.argv[2];
const graceMs = Number(process.argv[3]);
const send = (sig) => {
  for (const target of [-pid, pid]) {
    try { process.kill(target, sig); return true; } catch {}
  }
  return false;
};
process.stdin.resume();
process.stdin.on("close", () => {
  if (!send(signal)) process.exit(0);
  const until = Date.now() + graceMs;
  setInterval(() => {
    if (!send(0)) process.exit(0);
    if (Date.now() > until) { send("SIGKILL"); process.exit(0); }
  }, 100);
});
`;

/**
 * Stops the process group `pgid` (a child spawned with `detached: true`, or a PostgreSQL
 * postmaster, which leads a session of its own; the process alone when it leads no group) when
 * this process is gone. A detached watcher process, in a session of its own so that a signal to
 * this process's group or terminal does not take it too, waits for the end of a pipe that only
 * this process holds open.
 *
 * npm run dev needs it for wrangler: wrangler and its workerd processes outlived a dev.ts killed
 * with SIGKILL, kept the API's port and answered 503 to every API request (the SQL-over-HTTP
 * endpoint had died with dev.ts), and the next npm run dev refused the port they held. The
 * embedded PostgreSQL likewise (SIGINT: its fast shutdown). Returns the watcher (kill it once the
 * group is gone); on Windows (no process groups) it does nothing.
 */
export function stopGroupWhenGone(
  pgid: number,
  { signal = "SIGTERM", graceMs = 5000 }: { signal?: NodeJS.Signals; graceMs?: number } = {},
): ChildProcess | undefined {
  if (process.platform === "win32") return undefined;
  const args = ["-e", WATCHER, String(pgid), signal, String(graceMs)];
  const watcher = spawn(process.execPath, args, {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  watcher.on("error", () => {}); // without a watcher, dev behaves as before
  watcher.stdin?.on("error", () => {});
  // Neither keeps this process running; the pipe closes when this process exits.
  watcher.unref();
  (watcher.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return watcher;
}
