// npm run dev's supervision of wrangler: a Worker that fails to load after a reload must not take
// the database down with it; a stack that never answered must stop at once.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  nextChange,
  superviseWrangler,
  type WranglerRun,
  watchHealth,
} from "../../scripts/commands/lib/supervise";

/**
 * Runs of wrangler that answer or not and exit with the given codes, in order; a run that goes
 * `unresponsive` exits (null: a signal) only once it is stopped.
 */
function fakeStack(runs: { ready: boolean; code: number | null; unresponsive?: boolean }[]) {
  const events: string[] = [];
  let stopping = false;
  const options = {
    start: (): WranglerRun => {
      const run = runs.shift();
      if (!run) throw new Error("started more often than the test planned");
      events.push("start");
      if (run.unresponsive) {
        let exit = (_: number | null) => {};
        return {
          ready: Promise.resolve(run.ready),
          exited: new Promise((resolve) => (exit = resolve)),
          unresponsive: Promise.resolve(),
          stop: async () => {
            events.push("stop");
            exit(null);
          },
        };
      }
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

describe("superviseWrangler, when the API stops answering while wrangler runs", () => {
  it("stops that wrangler and starts it again, keeping the rest of the stack", async () => {
    const stack = fakeStack([
      { ready: true, code: null, unresponsive: true },
      { ready: true, code: 0 },
    ]);
    expect(await superviseWrangler(stack.options)).toBe(1);
    expect(stack.events).toEqual([
      "start",
      "ready",
      "say: the API has stopped answering its health check while wrangler runs (see above); restarting wrangler",
      "stop",
      "start",
      "ready again",
      "say: wrangler exited (0); stopping",
    ]);
  });
});

describe("watchHealth", () => {
  /**
   * A health endpoint that answers 200 (500 once `fail` is set) until `hang` is set, then holds
   * every request.
   */
  async function healthServer() {
    let hang = false;
    let status = 200;
    const held: ServerResponse[] = [];
    const server = createServer((_, res) => {
      if (hang) held.push(res);
      else res.writeHead(status).end("{}");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/api/health`,
      hang: () => (hang = true),
      fail: () => (status = 500),
      close: () => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close();
      },
    };
  }
  const quick = { intervalMs: 20, timeoutMs: 50, failures: 3 };

  it("resolves after the given checks in a row go unanswered, not while the endpoint answers", async () => {
    const health = await healthServer();
    try {
      let unresponsive = false;
      const watched = watchHealth(health.url, () => true, quick).then(() => {
        unresponsive = true;
      });
      await new Promise((r) => setTimeout(r, 300)); // about ten checks, all answered
      expect(unresponsive).toBe(false);
      // An error status is an answer: a broken Worker is not mended by a restart.
      health.fail();
      await new Promise((r) => setTimeout(r, 300));
      expect(unresponsive).toBe(false);
      health.hang();
      await watched;
      expect(unresponsive).toBe(true);
    } finally {
      health.close();
    }
  });

  it("never resolves once the run it watches has ended", async () => {
    const health = await healthServer();
    try {
      health.hang();
      let unresponsive = false;
      void watchHealth(health.url, () => false, quick).then(() => {
        unresponsive = true;
      });
      await new Promise((r) => setTimeout(r, 400));
      expect(unresponsive).toBe(false);
    } finally {
      health.close();
    }
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
