import { describe, expect, it, vi } from "vitest";
import { api } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import {
  clearFault,
  expectUnavailable,
  faultState,
  resetFaultsAfterEach,
  setFault,
  verifyKeyBeforeFault,
} from "../helpers/faults";
import { tenantSnapshot } from "./snapshot";
import { READ_ONLY_OPERATIONS, WRITE_CASES, type WriteRequest } from "./write-routes";

/**
 * The database refused or lost mid-query, for every write of the OpenAPI document: each answers
 * 503 SERVICE_UNAVAILABLE with Retry-After, leaves the winery's rows exactly as they were, and
 * succeeds once the fault is gone, without a restart. How fast the 503 comes is configuration, not
 * measured here: the stand-ins cut the connection at once (refused, or cut mid-query) and the
 * driver fails on a closed connection without retrying. A database that never answers is bounded
 * by the connect and query deadlines of src/db/client.ts (database-stalled.test.ts).
 */
resetFaultsAfterEach();

const doc = (await (await api("/openapi.json")).json()) as {
  paths: Record<string, Record<string, unknown>>;
};
const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
);
const writes = operations.filter(
  (op) => /^(POST|PUT|PATCH|DELETE) \/api\/v\d+\//.test(op) && !READ_ONLY_OPERATIONS.has(op),
);

/** Queries no write here needs more than; a loop past it means the fault never trips. */
const MAX_QUERIES = 40;

function send(operation: string, request: WriteRequest, tenant: TestTenant) {
  return api(request.path, {
    method: operation.split(" ")[0],
    key: tenant.apiKey,
    body: request.body,
    ...(request.headers && { headers: request.headers }),
  });
}

describe("the write table", () => {
  it("has an entry for every write operation of the document", () => {
    const missing = writes.filter((op) => !(op in WRITE_CASES));
    expect(missing, `add these to test/faults/write-routes.ts: ${missing.join(", ")}`).toEqual([]);
    expect(writes.length).toBeGreaterThanOrEqual(14);
  });

  it("has no entry for an operation the document does not have", () => {
    const known = new Set(operations);
    const stale = [...Object.keys(WRITE_CASES), ...READ_ONLY_OPERATIONS].filter(
      (op) => !known.has(op),
    );
    expect(stale, `not in the document: ${stale.join(", ")}`).toEqual([]);
  });
});

describe.each(writes.filter((op) => op in WRITE_CASES))(
  "%s with the database down",
  (operation) => {
    const entry = WRITE_CASES[operation];
    if (!entry) throw new Error(`no entry for ${operation}`);

    it("refused: 503 with Retry-After, nothing written; then the same request succeeds", async () => {
      const tenant = await createTenant();
      const request = await entry.prepare(tenant);
      const before = await tenantSnapshot(tenant.wineryId);
      await verifyKeyBeforeFault(tenant.apiKey);
      await setFault({ mode: "refuse" });
      const refused = await send(operation, request, tenant);
      expect((await faultState()).tripped).toBe(true);
      await clearFault();
      await expectUnavailable(refused);
      expect(await tenantSnapshot(tenant.wineryId)).toEqual(before);
      expect((await send(operation, request, tenant)).status).toBe(entry.succeeds);
    });

    it("cut mid-query at each of its queries in turn: 503 with Retry-After and nothing half-written each time; then it succeeds", async () => {
      const tenant = await createTenant();
      const request = await entry.prepare(tenant);
      const before = await tenantSnapshot(tenant.wineryId);
      let cuts = 0;
      for (;;) {
        expect(cuts, "the fault never stopped tripping").toBeLessThan(MAX_QUERIES);
        await verifyKeyBeforeFault(tenant.apiKey);
        await setFault({ mode: "drop", afterQueries: cuts });
        const response = await send(operation, request, tenant);
        const { tripped } = await faultState();
        await clearFault();
        if (!tripped) {
          // Every query went through: the request ran whole, after `cuts` failed attempts.
          expect(response.status, await response.clone().text()).toBe(entry.succeeds);
          break;
        }
        await expectUnavailable(response);
        expect(await tenantSnapshot(tenant.wineryId), `cut at query ${cuts + 1}`).toEqual(before);
        cuts++;
      }
      expect(cuts).toBeGreaterThan(0);
    });
  },
);

describe("the log of a 503", () => {
  it("is one warning without a stack (an outage answers hundreds), not an error", async () => {
    const tenant = await createTenant();
    await verifyKeyBeforeFault(tenant.apiKey);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await setFault({ mode: "refuse" });
      await expectUnavailable(await api("/v4/orders/1", { key: tenant.apiKey }));
      const logged = warn.mock.calls.map(([line]) => JSON.parse(String(line)));
      expect(logged).toContainEqual(
        expect.objectContaining({ level: "warn", code: "SERVICE_UNAVAILABLE" }),
      );
      expect(JSON.stringify(logged)).not.toContain('"stack"');
      expect(error).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});
