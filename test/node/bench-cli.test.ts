// npm run bench's command line: --help prints the usage without starting anything; mistakes are
// the usage and exit 2, also before anything starts.

import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { cpuPerRequest, groupOf } from "../../scripts/bench/dev-ratios";
import { percentile } from "../../scripts/bench/load";
import { memoryGrowth } from "../../scripts/bench/soak";
import { RATE_LIMIT_MODULE, rateLimitBindings } from "../../scripts/bench/workerd";
import { bindingLimit, RATE_LIMIT_TIERS } from "../../src/services/auth/rate-limit-tiers";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX = join(ROOT, "node_modules", ".bin", "tsx");

function bench(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      TSX,
      [join(ROOT, "scripts", "bench.ts"), ...args],
      { cwd: ROOT, timeout: 60_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

describe("npm run bench", () => {
  it.each([["--help"], ["-h"]])("%s prints the usage and starts nothing", async (flag) => {
    const { code, stdout, stderr } = await bench([flag]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run bench/);
    expect(stdout).toMatch(/--quick/);
    expect(stdout).not.toMatch(/\[bench\]/);
    expect(stderr).toBe("");
  });

  it.each([
    [["--bogus"], /Unknown option '--bogus'/],
    [["--target", "dev"], /--target needs --soak/],
    [["--soak", "--quick"], /--quick does not apply to --soak/],
    [["--rows", "many"], /--rows must be a number >= 1000/],
    [["--soak", "--target", "prod"], /--target is workerd or dev/],
    [["--dev", "--soak"], /--dev and --soak are two different runs/],
    [["--dev", "--quick"], /--quick does not apply to --dev/],
    [["--mix"], /--mix needs --dev/],
    [["--baseline", "30"], /--baseline needs --soak or --dev --mix/],
    [["--dev", "--max-growth", "10"], /--max-growth needs --soak or --dev --mix/],
    [
      ["--dev", "--mix", "--seconds", "60"],
      /--baseline \(120\) must be less than --seconds \(60\)/,
    ],
    [
      ["--soak", "--target", "dev", "--seconds", "60"],
      /--baseline \(120\) must be less than --seconds \(60\)/,
    ],
    [
      ["--soak", "--baseline", "30", "--seconds", "30"],
      /--baseline \(30\) must be less than --seconds \(30\)/,
    ],
  ])("%j is the usage and exit 2", async (args, message) => {
    const { code, stdout, stderr } = await bench(args);
    expect(code).toBe(2);
    expect(stdout).not.toMatch(/\[bench\]/);
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/Usage: npm run bench/);
  });

  it("--dev without a running npm run dev says to start it, and exits 1", async () => {
    const empty = await mkdtemp(join(tmpdir(), "bench-dev-"));
    try {
      const { code, stdout, stderr } = await bench(["--dev"], { DATA_DIR: empty });
      expect(code).toBe(1);
      expect(`${stdout}${stderr}`).toMatch(/no running npm run dev .*start it first/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe("bench --dev's CPU by process", () => {
  it("groups the stack's processes and sums a group's CPU per request, Postgres backends included", () => {
    expect(groupOf("workerd (the Worker)")).toBe("worker");
    expect(groupOf("workerd (wrangler's proxy)")).toBe("proxy");
    expect(groupOf("wrangler (node)")).toBe("wrangler");
    expect(groupOf("dev.ts (database, Neon endpoints)")).toBe("devts");
    expect(groupOf("postgres")).toBe("postgres");
    expect(groupOf("esbuild")).toBeUndefined();

    const before = new Map([
      [1, { group: "worker" as const, seconds: 10 }],
      [2, { group: "postgres" as const, seconds: 1 }],
      [3, { group: "postgres" as const, seconds: 2 }],
    ]);
    const after = new Map([
      [1, { group: "worker" as const, seconds: 11 }], // +1 s
      [2, { group: "postgres" as const, seconds: 1.5 }], // +0.5 s
      [3, { group: "postgres" as const, seconds: 2.25 }], // +0.25 s
      [4, { group: "postgres" as const, seconds: 0.25 }], // a backend started in between: +0.25 s
    ]);
    expect(cpuPerRequest(before, after, 500)).toEqual({
      worker: 2,
      proxy: 0,
      wrangler: 0,
      devts: 0,
      postgres: 2,
      total: 4,
    });
    expect(cpuPerRequest(before, after, 0).total).toBeNaN();
  });
});

describe("the bench Worker's rate limiting bindings", () => {
  type Limiter = { limit(o: { key: string }): Promise<{ success: boolean }> };
  const load = async () =>
    (
      (await import(`data:text/javascript,${encodeURIComponent(RATE_LIMIT_MODULE)}`)) as {
        default: (env: { limit: number; period: number }) => Limiter;
      }
    ).default;

  it("count per key in windows of the period, as the binding's limit({ key }) answers", async () => {
    vi.useFakeTimers({ now: 120_000, toFake: ["Date"] });
    try {
      const limiter = (await load())({ limit: 2, period: 60 });
      const allowed = async (key: string) => (await limiter.limit({ key })).success;
      expect([await allowed("a"), await allowed("a"), await allowed("a")]).toEqual([
        true,
        true,
        false,
      ]);
      expect(await allowed("b")).toBe(true); // another key, another budget
      vi.setSystemTime(179_999);
      expect(await allowed("a")).toBe(false); // same window
      vi.setSystemTime(180_000);
      expect(await allowed("a")).toBe(true); // the next one
    } finally {
      vi.useRealTimers();
    }
  });

  it("are one wrapped binding per tier, with the tier's limit and period", () => {
    const bindings = rateLimitBindings();
    expect(bindings).toHaveLength(Object.keys(RATE_LIMIT_TIERS).length);
    for (const policy of Object.values(RATE_LIMIT_TIERS)) {
      const { binding, period } = policy;
      expect(bindings).toContainEqual(
        expect.stringContaining(
          `(name = "${binding}", wrapped = (moduleName = "bench-internal:ratelimit", innerBindings = [(name = "limit", json = "${bindingLimit(policy)}"), (name = "period", json = "${period}")]))`,
        ),
      );
    }
  });
});

describe("the memory verdict of --soak and --dev --mix", () => {
  const p = { label: "workerd (the Worker)", pid: 42 };
  it("passes growth within the bound and names the process that grew past it, or was gone", () => {
    expect(memoryGrowth(p, 400, 480, 0.2)).toEqual({ ratio: 1.2 });
    expect(memoryGrowth(p, 400, 481, 0.2)).toEqual({
      ratio: 1.203,
      failure: "workerd (the Worker) (pid 42) grew 20.3% (400 -> 481 MiB)",
    });
    expect(memoryGrowth(p, 400, null, 0.2)).toEqual({
      ratio: null,
      failure: "workerd (the Worker) (pid 42) was gone before the end",
    });
  });
  it("reads latencies by nearest rank", () => {
    const sorted = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect([percentile(sorted, 50), percentile(sorted, 99), percentile(sorted, 100)]).toEqual([
      5, 10, 10,
    ]);
    expect(percentile(new Float64Array(), 50)).toBeNaN();
  });
});
