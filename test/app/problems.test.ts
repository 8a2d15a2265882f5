import { describe, expect, it } from "vitest";
import { ERROR_DESCRIPTION, ERROR_STATUS, type ErrorCode } from "../../src/lib/errors";
import { api, expectProblem } from "../helpers/api";

describe("GET /api/problems/{slug}", () => {
  it("describes every code at the URI its problems carry as `type`", async () => {
    for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
      const slug = code.toLowerCase().replaceAll("_", "-");
      const response = await api(`/problems/${slug}`);
      expect(response.status, slug).toBe(200);
      expect(response.headers.get("X-Request-Id")).toBeTruthy();
      expect(await response.json()).toEqual({
        type: `/api/problems/${slug}`,
        code,
        title: expect.any(String),
        status: ERROR_STATUS[code],
        description: ERROR_DESCRIPTION[code],
      });
    }
  });

  it("is what a real problem's type resolves to, without an API key", async () => {
    const problem = await expectProblem(
      await api("/v2/contacts", { body: {} }),
      401,
      "UNAUTHENTICATED",
    );
    const resolved = new URL(problem.type, "http://api.test/api/v2/contacts");
    const response = await api(resolved.pathname.replace(/^\/api/, ""));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ code: "UNAUTHENTICATED", status: 401 });
  });

  it.each(["no-such-code", "STALE-UPDATE", "stale_update", "constructor", "__proto__"])(
    "answers 404 problem+json for %s",
    async (slug) => {
      await expectProblem(await api(`/problems/${slug}`), 404, "NOT_FOUND");
    },
  );

  it("refuses a NUL or a lone surrogate in the slug (as every path parameter) and a slug over 100 characters: 400 naming it", async () => {
    for (const slug of ["stale%00update", "x".repeat(101), "%ED%A0%80", "%FF"]) {
      const problem = await expectProblem(await api(`/problems/${slug}`), 400, "VALIDATION_ERROR");
      expect(problem.errors?.map((e) => e.path)).toEqual(["slug"]);
    }
  });

  it("is in the OpenAPI document, without security", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<string, { get?: { security?: unknown[]; responses: Record<string, unknown> } }>;
    };
    const operation = doc.paths["/api/problems/{slug}"]?.get;
    expect(operation?.security).toEqual([]);
    expect(Object.keys(operation?.responses ?? {})).toEqual(["200", "400", "404"]);
  });
});
