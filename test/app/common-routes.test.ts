import { beforeAll, describe, expect, it } from "vitest";
import { api, expectProblem } from "../helpers/api";
import { assertDocumented } from "../helpers/documented-responses";
import { createTenant, type TestTenant } from "../helpers/factories";

/**
 * The checks every operation of the document must pass, walked from /api/openapi.json itself: a
 * route added later is covered the moment it is documented, without a new line here.
 */
interface Operation {
  method: string;
  path: string;
  parameters?: { name: string; in: string; schema?: { type?: string; format?: string } }[];
  requestBody?: unknown;
  responses: Record<string, { description: string; headers?: Record<string, { $ref?: string }> }>;
}

const doc = (await (await api("/openapi.json")).json()) as {
  paths: Record<string, Record<string, Omit<Operation, "method" | "path">>>;
  components: { headers: Record<string, { description: string; schema: unknown }> };
};
const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })),
);
const authenticated = operations.filter((op) => /^\/api\/v[234]\//.test(op.path));
const withBody = authenticated.filter((op) => op.requestBody !== undefined);

/** A concrete URL for a path template: sample values of each parameter's type. */
function urlOf(op: Operation): string {
  const sample = (name: string) => {
    const schema = op.parameters?.find((p) => p.name === name)?.schema ?? {};
    if (schema.format === "uuid") return crypto.randomUUID();
    if (schema.type === "integer") return "1";
    return "sample";
  };
  return op.path.replace(/^\/api/, "").replace(/\{([^}]+)\}/g, (_, name: string) => sample(name));
}

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

describe("every operation of the document", () => {
  it("lists the versioned operations", () => {
    expect(authenticated.length).toBeGreaterThanOrEqual(8);
  });

  it("names each with an operationId of its own (client generators need one)", () => {
    const ids = operations.map((op) => (op as { operationId?: string }).operationId);
    expect(ids.filter((id) => typeof id !== "string")).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(authenticated.map((op) => [`${op.method} ${op.path}`, op] as const))(
    "%s: 401 UNAUTHENTICATED without APIKey",
    async (_, op) => {
      const response = await api(urlOf(op), {
        method: op.method,
        ...(op.requestBody !== undefined && { body: {} }),
      });
      await expectProblem(response, 401, "UNAUTHENTICATED");
    },
  );

  it.each(withBody.map((op) => [`${op.method} ${op.path}`, op] as const))(
    "%s: 415 for a body that is not JSON, 415 for a compressed body, 400 MALFORMED_JSON for broken JSON or none",
    async (_, op) => {
      const url = urlOf(op);
      const base = { method: op.method, key: tenant.apiKey };
      // No body and no content type: no body was sent, so not 415 (decisions.md's "body sent
      // without a JSON content type"); the same 400 as an empty JSON body.
      const none: Record<string, string>[] = [{}, { "Content-Type": "application/json" }];
      for (const headers of none) {
        const problem = await expectProblem(
          await api(url, { ...base, headers }),
          400,
          "MALFORMED_JSON",
        );
        expect(problem.detail).toContain("no body");
      }
      await expectProblem(
        await api(url, { ...base, rawBody: "a=1", headers: { "Content-Type": "text/plain" } }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      );
      await expectProblem(
        await api(url, {
          ...base,
          rawBody: "{}",
          headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" },
        }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      );
      await expectProblem(
        await api(url, {
          ...base,
          rawBody: '{"broken": ',
          headers: { "Content-Type": "application/json" },
        }),
        400,
        "MALFORMED_JSON",
      );
    },
  );

  it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))(
    "%s: every response declares the headers the service sends with it",
    (_, op) => {
      const idempotent = op.parameters?.some((p) => p.name === "Idempotency-Key") ?? false;
      for (const [status, response] of Object.entries(op.responses)) {
        const expected = ["X-Request-Id"];
        // decisions.md: Retry-After on 409 IDEMPOTENCY_KEY_IN_USE, 429 and 503.
        if (status === "429" || status === "503") expected.push("Retry-After");
        if (status === "409" && response.description.includes("IDEMPOTENCY_KEY_IN_USE"))
          expected.push("Retry-After");
        if (status === "429") expected.push("RateLimit");
        if (idempotent && status.startsWith("2")) expected.push("Idempotent-Replayed");
        if (/^\/api\/v[234]\//.test(op.path) && status !== "401") expected.push("RateLimit-Policy");
        const headers = response.headers ?? {};
        for (const name of expected) {
          // Declared once, as a component that every response refers to.
          expect(headers[name], `${status} ${name}`).toEqual({
            $ref: `#/components/headers/${name}`,
          });
          expect(doc.components.headers[name], name).toBeDefined();
        }
      }
    },
  );

  it("answers unknown routes with a problem and X-Request-Id", async () => {
    const response = await api("/v2/no-such-route", { key: tenant.apiKey });
    await expectProblem(response, 404, "NOT_FOUND");
  });
});

describe("the documented-schema check itself", () => {
  const json = (body: unknown, status = 200, type = "application/json") =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "Content-Type": type, "X-Request-Id": "r-1" },
    });

  it("refuses a body that does not match the declared schema", async () => {
    await expect(
      assertDocumented("POST", "http://x/api/v2/contacts", json({ id: "not a number" })),
    ).rejects.toThrow(/does not match the documented schema/);
  });

  it("refuses an undeclared status, a missing X-Request-Id and a non-problem error", async () => {
    await expect(
      assertDocumented(
        "POST",
        "http://x/api/v2/contacts",
        json({}, 418, "application/problem+json"),
      ),
    ).rejects.toThrow(/not declared/);
    await expect(
      assertDocumented("GET", "http://x/api/health", new Response("{}", { status: 200 })),
    ).rejects.toThrow(/X-Request-Id/);
    await expect(
      assertDocumented("POST", "http://x/api/v2/contacts", json({}, 400)),
    ).rejects.toThrow(/problem\+json/);
  });

  it("refuses a header of the service that the document does not declare for the status", async () => {
    const replayed = json({ id: 1 });
    replayed.headers.set("Idempotent-Replayed", "true");
    await expect(assertDocumented("POST", "http://x/api/v2/contacts", replayed)).rejects.toThrow(
      /sends Idempotent-Replayed, which the document does not declare/,
    );
  });
});
