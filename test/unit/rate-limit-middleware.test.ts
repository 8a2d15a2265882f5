import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/env";
import { AppError } from "../../src/lib/errors";
import { rateLimitByKey } from "../../src/middleware/rate-limit";
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
      }),
    );
    expect(tiers).toEqual({ ok: { binding: "RATE_LIMIT_OK", limit: 5, period: 60 } });
    expect(extraRateLimitTiers("not json")).toEqual({});
    expect(extraRateLimitTiers(undefined)).toEqual({});
  });
});
