import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { api, expectProblem } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import { externalOrder, importOrder } from "../helpers/orders";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

describe("system routes", () => {
  it("GET /api/health answers without a key", async () => {
    const response = await api("/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "ok" });
  });

  it("GET /api/openapi.json is OpenAPI 3.1 with the APIKey scheme, the routes and their errors", async () => {
    const response = await api("/openapi.json");
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
      security: unknown;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.APIKey).toEqual(
      expect.objectContaining({ type: "apiKey", in: "header", name: "APIKey" }),
    );
    expect(doc.security).toEqual([{ APIKey: [] }]);
    for (const path of ["/api/v2/contacts", "/api/v2/contacts/query", "/api/v3/contacts/query"]) {
      const responses = doc.paths[path]?.post?.responses ?? {};
      expect(Object.keys(responses)).toEqual(
        expect.arrayContaining(["200", "400", "401", "413", "415", "500", "503"]),
      );
    }
    expect(doc.components.schemas).toHaveProperty("Problem");
    expect(doc.components.schemas).toHaveProperty("ContactExportDTOV3");
  });

  it("GET /api/docs serves the interactive reference", async () => {
    const response = await api("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("text/html");
    expect(await response.text()).toContain("/api/openapi.json");
  });
});

describe("cross-cutting behaviour", () => {
  it("echoes a caller's X-Request-Id and generates one otherwise", async () => {
    const echoed = await api("/health", { headers: { "X-Request-Id": "trace-abc-123" } });
    expect(echoed.headers.get("X-Request-Id")).toBe("trace-abc-123");
    const generated = await api("/health");
    expect(generated.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("keeps any printable ASCII request id, however long, and replaces others", async () => {
    for (const sent of [
      "svc:123",
      "a/b",
      "abc def",
      "abc.def",
      "x".repeat(201),
      "x".repeat(8_000),
    ]) {
      const response = await api("/health", { headers: { "X-Request-Id": sent } });
      expect(response.headers.get("X-Request-Id")).toBe(sent);
    }
    for (const sent of ["caf\u00e9", "a\tb"]) {
      const response = await api("/v2/no-such-thing", {
        key: tenant.apiKey,
        headers: { "X-Request-Id": sent },
      });
      const id = response.headers.get("X-Request-Id");
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(((await response.json()) as { requestId: string }).requestId).toBe(id);
    }
  });

  it("answers 405 with Allow for a path that exists without the method, before any body rule", async () => {
    for (const [method, path, allow] of [
      ["DELETE", "/v2/contacts", "POST"],
      ["GET", "/v3/contacts/query", "POST"],
      ["PUT", "/v2/contacts/query", "POST"],
      ["DELETE", "/v4/orders/1", "GET, HEAD, PUT"],
      // A path that is an endpoint of its own, though a parameter route of the method would take
      // it (GET /v4/orders/{id} with id "query" was a 400 naming param.id).
      ["GET", "/v4/orders/query", "POST"],
      ["PUT", "/v4/orders/query", "POST"],
      ["GET", "/v2/coupons/validate", "POST"],
      ["GET", "/v2/experiences/preview-propagation", "POST"],
      // A method no route has: the literal path's own methods, not those of the parameter route.
      ["DELETE", "/v4/orders/query", "POST"],
      ["PATCH", "/v2/coupons/validate", "POST"],
    ] as const) {
      // No content type and no body: the address is wrong before the body could be.
      const response = await api(path, { method, key: tenant.apiKey });
      expect(response.headers.get("Allow")).toBe(allow);
      const problem = await expectProblem(response, 405, "METHOD_NOT_ALLOWED");
      expect(problem.detail).toContain(method);
    }
    const health = await api("/health", { method: "POST" });
    expect(health.headers.get("Allow")).toBe("GET, HEAD");
    await expectProblem(health, 405, "METHOD_NOT_ALLOWED");
  });

  it("answers 404 for a path with a trailing slash, and echoes the caller's id outside /api", async () => {
    const slash = await api("/v4/orders/1/", { key: tenant.apiKey });
    await expectProblem(slash, 404, "NOT_FOUND");
    const outside = await exports.default.fetch("http://api.test/nowhere", {
      headers: { "X-Request-Id": "svc:1/a b" },
    });
    expect(outside.headers.get("X-Request-Id")).toBe("svc:1/a b");
    const problem = await expectProblem(outside, 404, "NOT_FOUND");
    expect(problem.requestId).toBe("svc:1/a b");
  });

  it("answers 404 for an unknown versioned path whatever its content type or body", async () => {
    for (const method of ["POST", "PUT"]) {
      const bare = await api("/v2/nothing", { method, key: tenant.apiKey });
      await expectProblem(bare, 404, "NOT_FOUND");
      const text = await api("/v2/nothing", {
        method,
        key: tenant.apiKey,
        rawBody: "x",
        headers: { "Content-Type": "text/plain" },
      });
      await expectProblem(text, 404, "NOT_FOUND");
    }
  });

  it("challenges a 401 with WWW-Authenticate naming the APIKey scheme", async () => {
    const response = await api("/v2/contacts", { body: {} });
    expect(response.headers.get("WWW-Authenticate")).toBe('APIKey realm="api", header="APIKey"');
    await expectProblem(response, 401, "UNAUTHENTICATED");
  });

  it("answers 404 problem+json for an unknown path, with or without a version", async () => {
    await expectProblem(await api("/v2/no-such-thing", { key: tenant.apiKey }), 404, "NOT_FOUND");
    await expectProblem(await api("/nowhere"), 404, "NOT_FOUND");
    await expectProblem(await exports.default.fetch("http://api.test/"), 404, "NOT_FOUND");
  });

  it("answers 401 before anything else on every versioned path without a key", async () => {
    for (const path of ["/v2/contacts", "/v3/contacts/query", "/v4/orders/query", "/v2/unknown"]) {
      await expectProblem(await api(path, { body: {} }), 401, "UNAUTHENTICATED");
    }
  });
});

describe("database outage", () => {
  const contactBody = () => ({
    contactType: "MASTER",
    countryIso: "IT",
    email: `outage-${crypto.randomUUID()}@example.com`,
    firstName: "Out",
    lastName: "Age",
    phoneNumber: "1",
  });

  /** The same app with the database endpoints pointed at a port where nothing listens. */
  async function callWithDeadDatabase(
    key: string,
    path = "/v2/contacts",
    body: unknown = contactBody(),
  ) {
    const dead = {
      ...env,
      NEON_HTTP_ENDPOINT: "http://127.0.0.1:9/sql",
      NEON_WS_PROXY: "127.0.0.1:9",
    };
    const ctx = createExecutionContext();
    const request = new Request(`http://api.test/api${path}`, {
      method: "POST",
      headers: { APIKey: key, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const response = await createApp().fetch(request, dead, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  }

  it("answers 503 with Retry-After, not 401, when the key cannot be checked", async () => {
    const fresh = await createTenant();
    const response = await callWithDeadDatabase(fresh.apiKey);
    const body = await expectProblem(response, 503, "SERVICE_UNAVAILABLE");
    expect(Number(response.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toMatch(/insert|select|127\.0\.0\.1/i);
  });

  it("answers 503 when the write itself cannot reach the database, and recovers after", async () => {
    await api("/v2/contacts", { key: tenant.apiKey, body: {} }); // the key is now verified in this isolate
    await expectProblem(await callWithDeadDatabase(tenant.apiKey), 503, "SERVICE_UNAVAILABLE");
    const healthy = await api("/v3/contacts/query", {
      key: tenant.apiKey,
      body: { dateFrom: "2000-01-01T00:00:00Z", dateTo: "2100-01-01T00:00:00Z" },
    });
    expect(healthy.status).toBe(200);
  });

  it("answers 503 for an order import whose transaction cannot start, and writes nothing", async () => {
    await api("/v2/contacts", { key: tenant.apiKey, body: {} });
    const order = externalOrder();
    const response = await callWithDeadDatabase(
      tenant.apiKey,
      `/v4/order-import/${tenant.apiChannelKey}`,
      order,
    );
    await expectProblem(response, 503, "SERVICE_UNAVAILABLE");
    expect(Number(response.headers.get("Retry-After"))).toBeGreaterThan(0);
    const retried = await importOrder(tenant, order);
    expect(retried.status).toBe(200);
  });
});
