// npm run dev's wrangler must not outlive dev.ts, even one killed with SIGKILL (which no cleanup
// sees): stopGroupWhenGone's watcher stops the group when its owner is gone.
import { type ChildProcess, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

/** Whether the group `pgid` (or the process, when it leads none) is still there. */
function alive(pgid: number): boolean {
  for (const target of [-pgid, pgid]) {
    try {
      process.kill(target, 0);
      return true;
    } catch {
      // not this one
    }
  }
  return false;
}

async function gone(pgid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; ) {
    if (!alive(pgid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pgid);
}

/** Starts a fixture; resolves with it and the id of the group it watches. */
function startOwner(
  mode: string,
  name = "group-owner.ts",
): Promise<{ owner: ChildProcess; pgid: number }> {
  // Node itself with tsx's loader (tsx's own binary would run it in a child, out of reach).
  const fixture = join(import.meta.dirname, "fixtures", name);
  const owner = spawn(process.execPath, ["--import", "tsx", fixture, mode], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((done, fail) => {
    let out = "";
    owner.stdout?.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n")[0];
      if (out.includes("\n")) done({ owner, pgid: Number(line) });
    });
    owner.once("exit", (code) => fail(new Error(`the owner exited (${code}) before its output`)));
  });
}

const groups: number[] = [];
afterEach(() => {
  for (const pgid of groups.splice(0))
    for (const target of [-pgid, pgid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // gone
      }
    }
});

describe.skipIf(process.platform === "win32")("stopGroupWhenGone", () => {
  it("stops the group once its owner is killed with SIGKILL", async () => {
    const { owner, pgid } = await startOwner("plain");
    groups.push(pgid);
    expect(alive(pgid)).toBe(true);
    // The group lives as long as its owner does.
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(pgid)).toBe(true);
    owner.kill("SIGKILL");
    expect(await gone(pgid, 5000)).toBe(true);
  });

  it("stops an embedded PostgreSQL whose owner was killed with SIGKILL", async () => {
    const { owner, pgid: postmaster } = await startOwner("", "postgres-owner.ts");
    groups.push(postmaster);
    expect(alive(postmaster)).toBe(true);
    owner.kill("SIGKILL");
    // Its fast shutdown (SIGINT) ends it; before, it ran until the next start on its folder.
    expect(await gone(postmaster, 10_000)).toBe(true);
  });

  it("kills a group that ignores SIGTERM after the grace period", async () => {
    const { owner, pgid } = await startOwner("ignore-term");
    groups.push(pgid);
    owner.kill("SIGKILL");
    // SIGTERM is ignored: the group is still there within the grace period (1 s) ...
    await new Promise((r) => setTimeout(r, 400));
    expect(alive(pgid)).toBe(true);
    // ... and gone after it.
    expect(await gone(pgid, 5000)).toBe(true);
  });
});
