import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AppEnv } from "../../src/env";
import { AppError } from "../../src/lib/errors";
import { rateLimitByKey, UNIT_VERDICT_MS } from "../../src/middleware/rate-limit";
import { extraRateLimitTiers } from "../../src/services/auth/rate-limit-tiers";

/**
 * The middleware against stand-in bindings, for what the emulated binding never does (throw) and
 * for the key it counts by. The real binding is exercised in test/app/rate-limits.test.ts.
 */
function appWith(binding: unknown, tier = "standard", env: Record<string, unknown> = {}) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("principal", { wineryId: "w-1", apiKeyId: "key-id-1", rateLimitTier: tier });
    await next();
  });
  app.use(rateLimitByKey);
  app.get("/x", (c) => c.text("ok"));
  app.onError((error, c) =>
    c.text(error instanceof AppError ? error.code : "other", error instanceof AppError ? 429 : 500),
  );
  return (path = "/x") => app.request(path, {}, { RATE_LIMIT_STANDARD: binding, ...env });
}

const allow = { limit: async () => ({ success: true }) };

describe("rateLimitByKey", () => {
  it("counts by the API key's id", async () => {
    const keys: unknown[] = [];
    const call = appWith({
      limit: async (options: unknown) => {
        keys.push(options);
        return { success: true };
      },
    });
    const response = await call();
    expect(response.status).toBe(200);
    expect(keys).toEqual([{ key: "key-id-1" }]);
    expect(response.headers.get("RateLimit-Policy")).toBe('"standard";q=600;w=60');
  });

  it("refuses with RATE_LIMITED when the binding says no", async () => {
    const response = await appWith({ limit: async () => ({ success: false }) })();
    expect(await response.text()).toBe("RATE_LIMITED");
    expect(response.headers.get("RateLimit")).toBe('"standard";r=0;t=60');
  });

  it.each([
    ["a binding that throws", { limit: async () => Promise.reject(new Error("limiter down")) }],
    ["a missing binding", undefined],
    ["something else under the binding's name", "not a binding"],
  ])("lets the request through without RateLimit headers with %s", async (_, binding) => {
    const response = await appWith(binding)();
    expect(response.status).toBe(200);
    expect(response.headers.get("RateLimit-Policy")).toBeNull();
  });
});

describe("tiers added by configuration (RATE_LIMIT_EXTRA_TIERS)", () => {
  const extra = JSON.stringify({ tiny: { binding: "RATE_LIMIT_TINY", limit: 3, period: 10 } });

  it("count a key on such a tier with its own binding and state its policy", async () => {
    const response = await appWith(undefined, "tiny", {
      RATE_LIMIT_EXTRA_TIERS: extra,
      RATE_LIMIT_TINY: allow,
    })();
    expect(response.status).toBe(200);
    expect(response.headers.get("RateLimit-Policy")).toBe('"tiny";q=3;w=10');
  });

  it("are unknown without the variable: the key is let through (fail open)", async () => {
    const response = await appWith(undefined, "tiny", { RATE_LIMIT_TINY: allow })();
    expect(response.status).toBe(200);
    expect(response.headers.get("RateLimit-Policy")).toBeNull();
  });

  it("never replace a tier of the table, and leave out what is not a policy", () => {
    const tiers = extraRateLimitTiers(
      JSON.stringify({
        standard: { binding: "RATE_LIMIT_OTHER", limit: 1, period: 10 },
        "bad-period": { binding: "RATE_LIMIT_X", limit: 3, period: 30 },
        "bad-limit": { binding: "RATE_LIMIT_X", limit: 0, period: 10 },
        "no-binding": { limit: 3, period: 10 },
        ok: { binding: "RATE_LIMIT_OK", limit: 5, period: 60 },
        units: { binding: "RATE_LIMIT_U", limit: 20, period: 60, unit: 10 },
        "bad-unit": { binding: "RATE_LIMIT_U", limit: 20, period: 60, unit: 0.5 },
      }),
    );
    expect(tiers).toEqual({
      ok: { binding: "RATE_LIMIT_OK", limit: 5, period: 60 },
      units: { binding: "RATE_LIMIT_U", limit: 20, period: 60, unit: 10 },
    });
    expect(extraRateLimitTiers("not json")).toEqual({});
    expect(extraRateLimitTiers(undefined)).toEqual({});
  });
});

describe("a tier counted in units (bulk's unit of 10)", () => {
  afterEach(() => vi.restoreAllMocks());

  /** A tier of 3 requests per unit on its own binding, whose calls are counted. */
  function unitTier(name: string, verdicts: (call: number) => boolean | Promise<boolean>) {
    let calls = 0;
    const binding = `RATE_LIMIT_${name.toUpperCase()}`;
    const extra = JSON.stringify({ [name]: { binding, limit: 9, period: 10, unit: 3 } });
    const send = appWith(undefined, name, {
      RATE_LIMIT_EXTRA_TIERS: extra,
      [binding]: {
        limit: async () => {
          const verdict = await verdicts(++calls);
          return { success: verdict };
        },
      },
    });
    return { send, calls: () => calls };
  }

  it("asks the binding on a unit's first request and gives the unit's others its verdict", async () => {
    const tier = unitTier("unitsa", (call) => call <= 2);
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await tier.send()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429]);
    expect(tier.calls()).toBe(3);
    const refused = await tier.send(); // a new unit asks again
    expect(refused.status).toBe(429);
    expect(refused.headers.get("RateLimit-Policy")).toBe('"unitsa";q=9;w=10');
    expect(tier.calls()).toBe(4);
  });

  it("while a unit's call is under way, gives the unit's other requests the previous verdict", async () => {
    let release = () => {};
    const tier = unitTier("unitsb", (call) =>
      call === 1 ? false : new Promise<boolean>((resolve) => (release = () => resolve(true))),
    );
    for (let i = 0; i < 3; i++) expect((await tier.send()).status).toBe(429);
    const asking = tier.send(); // the second unit's first request: its call waits
    const others = await Promise.all([tier.send(), tier.send()]);
    expect(others.map((r) => r.status)).toEqual([429, 429]);
    release();
    expect((await asking).status).toBe(200);
    expect(tier.calls()).toBe(2);
  });

  it("asks again once a unit's verdict is older than UNIT_VERDICT_MS (a slow key is over-counted, never under)", async () => {
    const tier = unitTier("unitsc", (call) => call !== 1);
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now);
    expect((await tier.send()).status).toBe(429);
    clock.mockReturnValue(now + UNIT_VERDICT_MS - 1);
    expect((await tier.send()).status).toBe(429);
    expect(tier.calls()).toBe(1);
    clock.mockReturnValue(now + UNIT_VERDICT_MS);
    expect((await tier.send()).status).toBe(200);
    expect(tier.calls()).toBe(2);
  });

  it("leaves no unit behind when the binding throws: the request passes and the next one asks", async () => {
    const tier = unitTier("unitsd", (call) =>
      call === 1 ? Promise.reject(new Error("limiter down")) : false,
    );
    const passed = await tier.send();
    expect(passed.status).toBe(200);
    expect(passed.headers.get("RateLimit-Policy")).toBeNull();
    expect((await tier.send()).status).toBe(429);
    expect(tier.calls()).toBe(2);
  });
});
