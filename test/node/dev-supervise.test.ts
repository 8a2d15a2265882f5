// npm run dev's supervision of wrangler: a Worker that fails to load after a reload must not take
// the database down with it; a stack that never answered must stop at once.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  nextChange,
  superviseWrangler,
  type WranglerRun,
} from "../../scripts/commands/lib/supervise";

/** Runs of wrangler that answer or not and exit with the given codes, in order. */
function fakeStack(runs: { ready: boolean; code: number | null }[]) {
  const events: string[] = [];
  let stopping = false;
  const options = {
    start: (): WranglerRun => {
      const run = runs.shift();
      if (!run) throw new Error("started more often than the test planned");
      events.push("start");
      return { ready: Promise.resolve(run.ready), exited: Promise.resolve(run.code) };
    },
    nextChange: async () => {
      events.push("wait for a change");
    },
    stopping: () => stopping,
    onReady: (restarted: boolean) => events.push(restarted ? "ready again" : "ready"),
    say: (line: string) => events.push(`say: ${line.split(":")[0]}`),
  };
  return { options, events, stop: () => (stopping = true) };
}

describe("superviseWrangler", () => {
  it("after the API has answered, a failed reload waits for a change and starts wrangler again", async () => {
    const stack = fakeStack([
      { ready: true, code: 1 },
      { ready: false, code: 1 },
      { ready: true, code: 0 },
    ]);
    const code = await superviseWrangler(stack.options);
    expect(stack.events).toEqual([
      "start",
      "ready",
      "say: wrangler exited (1)",
      "wait for a change",
      "say: change seen",
      "start",
      // The second start failed too (the change did not mend it): wait again.
      "say: wrangler exited (1)",
      "wait for a change",
      "say: change seen",
      "start",
      "ready again",
      // A clean exit is the end of npm run dev.
      "say: wrangler exited (0); stopping",
    ]);
    expect(code).toBe(1);
  });

  it("a wrangler that never answered stops npm run dev at once, with its code", async () => {
    const stack = fakeStack([{ ready: false, code: 3 }]);
    expect(await superviseWrangler(stack.options)).toBe(3);
    expect(stack.events).toEqual(["start", "say: wrangler exited (3); stopping"]);
  });

  it("a wrangler ended by a signal stops npm run dev", async () => {
    const stack = fakeStack([{ ready: true, code: null }]);
    expect(await superviseWrangler(stack.options)).toBe(1);
    expect(stack.events.at(-1)).toBe("say: wrangler exited (signal); stopping");
  });

  it("when npm run dev is stopping (Ctrl-C), wrangler's exit ends it quietly", async () => {
    const stack = fakeStack([{ ready: true, code: 130 }]);
    stack.stop();
    expect(await superviseWrangler(stack.options)).toBe(130);
    expect(stack.events).toEqual(["start", "ready"]);
  });
});

describe("nextChange", () => {
  it("resolves once a file under a watched directory is written, after the writes settle", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dev-watch-"));
    try {
      let changed = false;
      const seen = nextChange([dir], 50).then(() => {
        changed = true;
      });
      await new Promise((r) => setTimeout(r, 100));
      expect(changed).toBe(false);
      await writeFile(join(dir, "index.ts"), "export {};\n");
      await seen;
      expect(changed).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
