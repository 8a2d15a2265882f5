import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";

describe("GET /api/docs", () => {
  it("loads the UI and the document from its own origin only, with X-Request-Id", async () => {
    const response = await api("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("text/html");
    expect(response.headers.get("X-Request-Id")).toBeTruthy();
    expect(response.headers.get("Content-Security-Policy")).toContain("default-src 'self'");
    const html = await response.text();
    expect(html).toContain('"/api/openapi.json"');
    expect(html).toContain('from "/api/docs/ui/standalone.esm.js"');
    // Nothing absolute: every URL the page names is on the API's origin.
    expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9]/i);
  });
});
