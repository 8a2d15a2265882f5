import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "../../src/db/schema";
import {
  extraRateLimitTiers,
  RATE_LIMIT_TIERS,
  type RateLimitPolicy,
} from "../../src/services/auth/rate-limit-tiers";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createApiKey, createTenant, type TestTenant } from "../helpers/factories";
import { externalOrder, importOrder } from "../helpers/orders";

/**
 * Rate limits per API key (src/middleware/rate-limit.ts). The "test-tiny" tier exists only in the
 * test configuration (vitest.config.ts adds it through RATE_LIMIT_EXTRA_TIERS, with its binding):
 * 3 requests per 10 s window. The emulated windows are aligned to the clock, so a
 * run may cross into a new window once; 2 * limit + 1 requests always reach a 429 (crossing twice
 * would take over 10 s).
 */
function testTinyTier(): RateLimitPolicy {
  const tier = extraRateLimitTiers(env.RATE_LIMIT_EXTRA_TIERS)["test-tiny"];
  if (!tier) throw new Error("vitest.config.ts adds the test-tiny tier (RATE_LIMIT_EXTRA_TIERS)");
  return tier;
}
const tiny = testTinyTier();
const TINY_POLICY = `"test-tiny";q=${tiny.limit};w=${tiny.period}`;
const BULK_POLICY = `"bulk";q=${RATE_LIMIT_TIERS.bulk.limit};w=${RATE_LIMIT_TIERS.bulk.period}`;
const unknownOrder = "/v2/orders/2147483000";

/** Requests with `key` until one is refused; the 429, or a failure after 2 * limit + 1. */
async function exhaust(key: string): Promise<Response> {
  for (let i = 0; i < 2 * tiny.limit + 1; i++) {
    const response = await api(unknownOrder, { key });
    if (response.status === 429) return response;
    expect(response.status).toBe(404);
    expect(response.headers.get("RateLimit-Policy")).toBe(TINY_POLICY);
    expect(response.headers.get("RateLimit")).toBeNull();
  }
  throw new Error(`no 429 after ${2 * tiny.limit + 1} requests`);
}

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

describe("a key over its limit", () => {
  it("gets 429 RATE_LIMITED problem+json with Retry-After, RateLimit and RateLimit-Policy", async () => {
    const response = await exhaust(await createApiKey(tenant.wineryId, "test-tiny"));
    const body = await expectProblem(response, 429, "RATE_LIMITED");
    expect(body.type).toBe("/api/problems/rate-limited");
    expect(response.headers.get("Retry-After")).toBe(String(tiny.period));
    expect(response.headers.get("RateLimit-Policy")).toBe(TINY_POLICY);
    expect(response.headers.get("RateLimit")).toBe(`"test-tiny";r=0;t=${tiny.period}`);
  });

  it("is limited alone: another key of the same winery still passes", async () => {
    const limited = await createApiKey(tenant.wineryId, "test-tiny");
    const other = await createApiKey(tenant.wineryId, "test-tiny");
    await exhaust(limited);
    const response = await api(unknownOrder, { key: other });
    await expectProblem(response, 404, "NOT_FOUND");
    expect(response.headers.get("RateLimit-Policy")).toBe(TINY_POLICY);
  });

  it("is refused before its body is read (no 400 for broken JSON once over the limit)", async () => {
    const key = await createApiKey(tenant.wineryId, "test-tiny");
    await exhaust(key);
    const response = await api("/v2/contacts", {
      key,
      rawBody: '{"broken": ',
      headers: { "Content-Type": "application/json" },
    });
    await expectProblem(response, 429, "RATE_LIMITED");
  });
});

describe("a tier counted in units (as bulk is), on the emulated binding", () => {
  const units = extraRateLimitTiers(env.RATE_LIMIT_EXTRA_TIERS)["test-units"];

  it("answers requests of one key sent at once (none waits on another request's binding call) and refuses past the limit", async () => {
    if (!units?.unit) throw new Error("vitest.config.ts adds the test-units tier");
    const key = await createApiKey(tenant.wineryId, "test-units");
    const policy = `"test-units";q=${units.limit};w=${units.period}`;
    const together = await Promise.all(
      Array.from({ length: units.unit * 2 }, () => api(unknownOrder, { key })),
    );
    for (const response of together) {
      expect([404, 429]).toContain(response.status);
      expect(response.headers.get("RateLimit-Policy")).toBe(policy);
    }
    // The window may roll over once during the run (windows are aligned to the clock); the
    // binding is asked on every unit's first request, so 2 * limit + unit requests reach a 429.
    let refused: Response | undefined;
    for (let i = 0; i < 2 * units.limit + units.unit && !refused; i++) {
      const response = await api(unknownOrder, { key });
      if (response.status === 429) refused = response;
      else expect(response.status).toBe(404);
    }
    expect(refused, "no 429").toBeDefined();
    await expectProblem(refused as Response, 429, "RATE_LIMITED");
    expect(refused?.headers.get("Retry-After")).toBe(String(units.period));
  });
});

describe("RateLimit-Policy on every answer of the versioned API", () => {
  it("on a 200, a 404 problem, an unknown route and a streamed export", async () => {
    const answers = [
      await api("/v3/contacts/query", {
        key: tenant.apiKey,
        body: { dateFrom: "2000-01-01T00:00:00Z", dateTo: "2100-01-01T00:00:00Z" },
      }),
      await api(unknownOrder, { key: tenant.apiKey }),
      await api("/v4/no-such-route", { key: tenant.apiKey }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 404, 404]);
    for (const response of answers) {
      expect(response.headers.get("RateLimit-Policy")).toBe(BULK_POLICY);
      expect(response.headers.get("RateLimit")).toBeNull();
    }
  });

  it("on an idempotent replay", async () => {
    const order = externalOrder();
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    expect((await importOrder(tenant, order, headers)).status).toBe(200);
    const replay = await importOrder(tenant, order, headers);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.headers.get("RateLimit-Policy")).toBe(BULK_POLICY);
  });

  it("not on a 401 (no key, no limit) nor on the unversioned routes", async () => {
    const responses = [
      await api(unknownOrder),
      await api(unknownOrder, { key: "wk_0000000000_00000000000000000000000000000000" }),
      await api("/health"),
      await api("/openapi.json"),
      await api("/problems/rate-limited"),
    ];
    expect(responses.map((r) => r.status)).toEqual([401, 401, 200, 200, 200]);
    for (const response of responses) expect(response.headers.get("RateLimit-Policy")).toBeNull();
  });
});

describe("when the limiter cannot be used", () => {
  it("lets a key on a tier without a binding through, without RateLimit headers (fail open)", async () => {
    const key = await createApiKey(tenant.wineryId, "standard");
    const prefix = key.split("_")[1] ?? "";
    await testDb()
      .update(apiKeys)
      .set({ rateLimitTier: "retired-tier" })
      .where(eq(apiKeys.prefix, prefix));
    const response = await api(unknownOrder, { key });
    await expectProblem(response, 404, "NOT_FOUND");
    expect(response.headers.get("RateLimit-Policy")).toBeNull();
  });
});

describe("the OpenAPI document", () => {
  it("declares 429 RATE_LIMITED and the RateLimit headers on every versioned operation", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
      components: { headers: Record<string, unknown> };
    };
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining(["RateLimit-Policy", "RateLimit", "Retry-After"]),
    );
    const versioned = Object.entries(doc.paths).filter(([path]) => /^\/api\/v[234]\//.test(path));
    expect(versioned.length).toBeGreaterThanOrEqual(8);
    for (const [path, operations] of versioned) {
      for (const [method, operation] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        const limited = operation.responses["429"];
        expect(limited?.headers, where).toHaveProperty("Retry-After");
        expect(limited?.headers, where).toHaveProperty("RateLimit");
        for (const [status, response] of Object.entries(operation.responses)) {
          if (status === "401") continue;
          expect(response.headers, `${where} ${status}`).toHaveProperty("RateLimit-Policy");
        }
      }
    }
  });
});
