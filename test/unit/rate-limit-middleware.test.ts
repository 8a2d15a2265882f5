import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/env";
import { AppError } from "../../src/lib/errors";
import { rateLimitByKey } from "../../src/middleware/rate-limit";

/**
 * The middleware against stand-in bindings, for what the emulated binding never does (throw) and
 * for the key it counts by. The real binding is exercised in test/app/rate-limits.test.ts.
 */
function appWith(binding: unknown) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("principal", { wineryId: "w-1", apiKeyId: "key-id-1", rateLimitTier: "standard" });
    await next();
  });
  app.use(rateLimitByKey);
  app.get("/x", (c) => c.text("ok"));
  app.onError((error, c) =>
    c.text(error instanceof AppError ? error.code : "other", error instanceof AppError ? 429 : 500),
  );
  return (path = "/x") => app.request(path, {}, { RATE_LIMIT_STANDARD: binding });
}

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
