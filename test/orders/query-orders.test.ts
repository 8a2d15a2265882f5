import { beforeAll, describe, expect, it } from "vitest";
import type { Order } from "../../src/schemas/orders";
import { api, expectProblem } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import { importedOrder } from "../helpers/orders";
import { countRoundTrips } from "../helpers/round-trips";

interface Page {
  orders: Order[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

let tenant: TestTenant;
let march: Order[];
beforeAll(async () => {
  tenant = await createTenant();
  march = [];
  for (const date of [
    "2026-03-03",
    "2026-03-01",
    "2026-03-02",
    "2026-03-01",
    "2026-03-31",
    "2026-04-01",
    "2026-02-28",
  ]) {
    march.push(await importedOrder(tenant, { date }));
  }
});

const query = (body: unknown, key = tenant.apiKey) => api("/v4/orders/query", { key, body });
const range = { dateFrom: "2026-03-01T00:00:00Z", dateTo: "2026-03-31T00:00:00Z" };

describe("E20 POST /v4/orders/query: happy", () => {
  it("answers the orders in range, both days inclusive, ordered by (date, id)", async () => {
    const response = await query(range);
    expect(response.status).toBe(200);
    const page = (await response.json()) as Page;
    expect(page).toMatchObject({ total: 5, limit: 50, offset: 0, hasMore: false });
    expect(page.orders.map((o) => o.date)).toEqual([
      "2026-03-01",
      "2026-03-01",
      "2026-03-02",
      "2026-03-03",
      "2026-03-31",
    ]);
    const sameDay = page.orders.slice(0, 2).map((o) => o.id);
    expect(sameDay).toEqual([...sameDay].sort((a, b) => a - b));
    expect(page.orders[0]).toEqual(march.find((o) => o.id === page.orders[0]?.id));
  });

  it("takes null limit and offset as left out (50 and 0)", async () => {
    const response = await query({ ...range, limit: null, offset: null });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ total: 5, limit: 50, offset: 0 });
  });

  it("pages with limit and offset; hasMore is true exactly when more rows exist", async () => {
    const pages: Page[] = [];
    for (const offset of [0, 2, 4, 5, 9]) {
      pages.push((await (await query({ ...range, limit: 2, offset })).json()) as Page);
    }
    expect(pages.map((p) => [p.orders.length, p.hasMore, p.total])).toEqual([
      [2, true, 5],
      [2, true, 5],
      [1, false, 5],
      [0, false, 5],
      [0, false, 5],
    ]);
    const ids = pages.slice(0, 3).flatMap((p) => p.orders.map((o) => o.id));
    expect(new Set(ids).size).toBe(5);
  });

  it("reads the UTC day of each bound", async () => {
    const page = (await (
      await query({ dateFrom: "2026-03-31T23:30:00-02:00", dateTo: "2026-04-02T01:00:00+02:00" })
    ).json()) as Page;
    expect(page.orders.map((o) => o.date)).toEqual(["2026-04-01"]);
  });

  it.each([
    // Postgres would round these bounds to the nearest microsecond: the next day.
    [{ dateFrom: "2026-03-31T00:00:00Z", dateTo: "2026-03-31T23:59:59.9999995Z" }, ["2026-03-31"]],
    [
      { dateFrom: "2026-02-28T23:59:59.9999999Z", dateTo: "2026-02-28T23:59:59.99999999Z" },
      ["2026-02-28"],
    ],
  ])("reads the UTC day of a bound finer than a microsecond: %j", async (bounds, days) => {
    const page = (await (await query(bounds)).json()) as Page;
    expect(page.orders.map((o) => o.date)).toEqual(days);
  });

  it("costs one round trip", async () => {
    const { result, trips } = await countRoundTrips(() => query(range));
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });
});

describe("E20 errors", () => {
  it.each([
    ["dateFrom", { dateTo: range.dateTo }],
    ["dateTo", { dateFrom: range.dateTo, dateTo: range.dateFrom }],
    ["dateTo", { dateFrom: "2026-03-01T00:00:00.0005Z", dateTo: "2026-03-01T00:00:00.0001Z" }],
    ["limit", { ...range, limit: 0 }],
    ["limit", { ...range, limit: 501 }],
    ["offset", { ...range, offset: -1 }],
    ["limit", { ...range, limit: 2.5 }],
  ])("names %s", async (path, body) => {
    const problem = await expectProblem(await query(body), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });
});

describe("E20 security", () => {
  it("answers 401 without a key", async () => {
    await expectProblem(await api("/v4/orders/query", { body: range }), 401, "UNAUTHENTICATED");
  });

  it("never shows another winery's orders", async () => {
    const other = await createTenant();
    const page = (await (await query(range, other.apiKey)).json()) as Page;
    expect(page).toMatchObject({ orders: [], total: 0, hasMore: false });
  });
});
