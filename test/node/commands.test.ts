// The operator commands' command lines: --help, usage on mistakes, one clear line per failure.

import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/local-db";
import { runCommand, STACK_FRAME, spawnCommand, tempDataDir } from "./helpers";

const COMMANDS = ["dev", "seed", "apikey", "migrate"];

describe("--help", () => {
  it.each(COMMANDS)("%s prints its usage and exits 0", async (name) => {
    const { code, stdout, stderr } = await runCommand(name, ["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^usage:/);
    expect(stderr).toBe("");
  });
});

describe("command-line mistakes print the usage and exit 2", () => {
  it.each([
    ["apikey", [], /a command is missing/],
    ["apikey", ["frobnicate"], /unknown command "frobnicate"/],
    ["apikey", ["create", "--winery", "not-a-uuid", "--name", "x"], /--winery must be a uuid/],
    ["apikey", ["revoke"], /revoke needs/],
    [
      "apikey",
      ["create", "--winery", crypto.randomUUID(), "--name", "x", "--rate-limit", "huge"],
      /--rate-limit must be one of standard, high, bulk, got "huge"/,
    ],
    ["apikey", ["list", "--rate-limit", "high"], /--rate-limit goes with create/],
    ["apikey", ["rate-limit", "abcdefghij"], /the tier must be one of/],
    ["apikey", ["rate-limit", "abcdefghij", "test-tiny"], /the tier must be one of/],
    ["apikey", ["rate-limit", "abcdefghij", "high", "more"], /unexpected argument "more"/],
    ["seed", ["--bogus"], /Unknown option '--bogus'/],
    ["seed", ["--tenant", "42"], /--tenant must be a uuid/],
    ["migrate", ["now"], /takes no arguments/],
    ["dev", ["start"], /takes no arguments/],
  ])("%s %j", async (name, args, message) => {
    const { code, stdout, stderr } = await runCommand(name, args as string[]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/\n\nusage:/);
    expect(stderr).not.toMatch(STACK_FRAME);
  });
});

describe("a DATABASE_URL that cannot be used is one line, exit 1, no stack trace", () => {
  it.each([
    ["not a url", /^migrate|DATABASE_URL is not a URL; expected postgres:\/\//],
    ["http://example.com/db", /DATABASE_URL starts with http:\/\//],
    ["postgres:///db", /DATABASE_URL names no host/],
  ])("unparsable: %j", async (url, message) => {
    const { code, stderr } = await runCommand("migrate", [], { DATABASE_URL: url });
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
    expect(stderr.trim().split("\n")).toHaveLength(1);
  });

  it("unreachable: names the address and the refusal", async () => {
    const port = await freePort();
    const url = `postgres://someone:secret@127.0.0.1:${port}/db`;
    for (const name of ["migrate", "seed", "apikey"]) {
      const { code, stderr } = await runCommand(name, name === "apikey" ? ["list"] : [], {
        DATABASE_URL: url,
      });
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        `${name === "migrate" ? "db:migrate" : name}: cannot use DATABASE_URL (127.0.0.1:${port}/db): connection refused by 127.0.0.1:${port} (is PostgreSQL running?)`,
      );
      expect(stderr).not.toContain("secret");
    }
  });

  it("npm run dev too, before starting anything", async () => {
    const data = await tempDataDir();
    try {
      const { code, stderr } = await runCommand("dev", [], {
        DATABASE_URL: "postgresql://nowhere",
        DATA_DIR: data.dir,
        PORT: String(await freePort()),
      });
      expect(code).toBe(1);
      expect(stderr.trim()).toMatch(
        /^\[dev\] failed: cannot use DATABASE_URL \(nowhere:5432\): unknown host nowhere$/,
      );
      expect(stderr).not.toMatch(STACK_FRAME);
    } finally {
      await data.remove();
    }
  });
});

describe("npm run dev with its port taken", () => {
  // The port and the one after it, so that the suggestion must be probed, not port + 1.
  const servers: Server[] = [];
  let port: number;
  const listen = (server: Server, at: number) =>
    new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(at, "127.0.0.1", () => resolve(true));
    });
  beforeAll(async () => {
    for (;;) {
      port = await freePort();
      const pair = [createServer((s) => s.end()), createServer((s) => s.end())];
      if ((await listen(pair[0] as Server, port)) && (await listen(pair[1] as Server, port + 1))) {
        servers.push(...pair);
        return;
      }
      for (const server of pair) server.close();
    }
  });
  afterAll(() =>
    Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))),
  );

  it("refuses in one line naming the port and a free one to pick, starting nothing", async () => {
    const data = await tempDataDir();
    try {
      const { code, stdout, stderr } = await runCommand("dev", [], {
        PORT: String(port),
        DATA_DIR: data.dir,
        DATABASE_URL: undefined,
      });
      expect(code).toBe(1);
      expect(stdout).toBe("");
      const suggested = Number(
        /^\[dev\] failed: port (\d+) is already in use; stop what listens there, or choose another port: PORT=(\d+) npm run dev \(free now\)$/.exec(
          stderr.trim(),
        )?.[2],
      );
      expect(stderr).toContain(`port ${port} is already in use`);
      expect(suggested).toBeGreaterThan(port + 1);
      // It was free: nothing answers there, and it can be bound.
      const probe = createServer();
      expect(await listen(probe, suggested)).toBe(true);
      probe.close();
      expect(existsSync(join(data.dir, "postgres"))).toBe(false); // no database was started
    } finally {
      await data.remove();
    }
  });

  it("refuses a PORT that is not a port number", async () => {
    const { code, stderr } = await runCommand("dev", [], { PORT: "eighty" });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^PORT must be a port number \(1-65535\), got "eighty"/);
  });
});

describe("npm run dev stopped with Ctrl-C", () => {
  it("says that it stops, and that it has stopped once everything it started is gone", async () => {
    const data = await tempDataDir();
    const dev = spawnCommand("dev", [], {
      PORT: String(await freePort()),
      DATA_DIR: data.dir,
      DATABASE_URL: undefined,
    });
    let stdout = "";
    let stderr = "";
    dev.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    dev.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => dev.once("exit", resolve));
    try {
      for (const until = Date.now() + 120_000; !/\[dev\] ready in/.test(stdout); ) {
        if (Date.now() > until || dev.exitCode !== null)
          throw new Error(`no ready line:\n${stdout}${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(stdout).not.toContain("[dev] stopping");
      process.kill(-(dev.pid as number), "SIGINT"); // the terminal's Ctrl-C: the whole group
      expect(await exited).toBe(130);
      const after = stdout.slice(stdout.indexOf("[dev] ready in"));
      expect(after).toMatch(/\n\[dev\] stopping\.\.\.\n(.*\n)*\[dev\] stopped\n$/);
      // Everything it started is gone: the embedded PostgreSQL and the state file.
      expect(existsSync(join(data.dir, "postgres", "postmaster.pid"))).toBe(false);
      expect(existsSync(join(data.dir, "dev-stack.json"))).toBe(false);
    } finally {
      if (dev.exitCode === null) process.kill(-(dev.pid as number), "SIGKILL");
      await data.remove();
    }
  }, 180_000);
});

describe("npm run dev's wrangler environment", () => {
  it("sets the workerd V8 flags and turns the local trace store off, unless the caller chose", async () => {
    const { wranglerDevEnv, DEV_WORKERD_V8_FLAGS } = await import(
      "../../scripts/commands/lib/run-dev"
    );
    const defaults = wranglerDevEnv({ PATH: "/bin" });
    expect(defaults).toMatchObject({
      PATH: "/bin",
      MINIFLARE_WORKERD_V8_FLAGS: DEV_WORKERD_V8_FLAGS,
      X_LOCAL_OBSERVABILITY: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
    });
    expect(DEV_WORKERD_V8_FLAGS).toMatch(/--max-semi-space-size=1\b.*--initial-old-space-size=4\b/);
    const chosen = wranglerDevEnv({
      MINIFLARE_WORKERD_V8_FLAGS: "",
      X_LOCAL_OBSERVABILITY: "true",
      CLOUDFLARE_CF_FETCH_ENABLED: "true",
    });
    expect(chosen).toMatchObject({
      MINIFLARE_WORKERD_V8_FLAGS: "",
      X_LOCAL_OBSERVABILITY: "true",
      CLOUDFLARE_CF_FETCH_ENABLED: "true",
    });
  });
});
