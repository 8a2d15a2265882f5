import { beforeAll, describe, expect, it } from "vitest";
import type { CommerceSession } from "../../src/schemas/commerce-sessions";
import { api, expectProblem } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
});

const path = (id: string) => `/v2/commerce/sessions/${id}`;
const put = (id: string, body: unknown, key = tenant.apiKey) =>
  api(path(id), { key, method: "PUT", body });
const get = (id: string, key = tenant.apiKey) => api(path(id), { key });

const item = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  itemType: "PRODUCT",
  productId: `sku-${name}`,
  qty: 2,
  unitPriceCents: 1250,
  vatPercent: 22,
  ...extra,
});

async function created(body: Record<string, unknown> = {}): Promise<CommerceSession> {
  const id = crypto.randomUUID();
  const response = await put(id, { status: "OPEN", items: [item("a"), item("b")], ...body });
  expect(response.status).toBe(200);
  return (await response.json()) as CommerceSession;
}

describe("E3 PUT /v2/commerce/sessions/{id}: happy", () => {
  it("creates at version 1 with every field and item stored as sent", async () => {
    const id = crypto.randomUUID();
    const posId = crypto.randomUUID();
    const itemId = crypto.randomUUID();
    const body = {
      id,
      cartMode: "POS",
      channel: "counter",
      customName: "Table 4",
      status: "OPEN",
      contacts: [{ email: "guest@example.com", __proto__: { kept: true } }],
      discounts: { manual: 100 },
      metadata: { note: "x" },
      guests: 4,
      pointOfSaleId: posId,
      wineryId: tenant.wineryId,
      items: [
        item("first", { id: itemId, attributes: { vintage: 2020 }, lineIndex: 7, locked: true }),
        item("second", { editable: false, reservationId: crypto.randomUUID() }),
      ],
    };
    const response = await put(id, JSON.parse(JSON.stringify(body)));
    expect(response.status).toBe(200);
    const text = await response.text();
    const session = JSON.parse(text) as CommerceSession;
    expect(session).toMatchObject({
      id,
      version: 1,
      wineryId: tenant.wineryId,
      cartMode: "POS",
      guests: 4,
      pointOfSaleId: posId,
      roomId: null,
      metadata: { note: "x" },
    });
    expect(session.items.map((i) => i.name)).toEqual(["first", "second"]);
    expect(session.items[0]).toMatchObject({ id: itemId, attributes: { vintage: 2020 } });
    expect(session.items[1]?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.createdAt).toBe(session.updatedAt);
    // GET answers the very bytes E3 answered: the same document, keys in the same order.
    expect(await (await get(id)).text()).toBe(text);
  });

  it("replaces every item (none left behind), bumps the version and keeps createdAt", async () => {
    const first = await created();
    const response = await put(first.id, {
      version: 1,
      status: "PAID",
      items: [item("c", { qty: 1 })],
    });
    expect(response.status).toBe(200);
    const replaced = (await response.json()) as CommerceSession;
    expect(replaced.version).toBe(2);
    expect(replaced.status).toBe("PAID");
    expect(replaced.createdAt).toBe(first.createdAt);
    expect(Date.parse(replaced.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.updatedAt));
    expect(replaced.items.map((i) => i.name)).toEqual(["c"]);
    const read = (await (await get(first.id)).json()) as CommerceSession;
    expect(read.items).toHaveLength(1);

    const emptied = (await (await put(first.id, { version: 2 })).json()) as CommerceSession;
    expect(emptied).toMatchObject({ version: 3, items: [], status: null });
  });

  it("keeps an item's id across replaces when the caller sends it back", async () => {
    const first = await created();
    const kept = first.items[0];
    const response = await put(first.id, { items: [{ ...kept, qty: 9 }] });
    const replaced = (await response.json()) as CommerceSession;
    expect(replaced.items).toEqual([{ ...kept, qty: 9 }]);
  });

  it("costs one round trip to write and one to read", async () => {
    const id = crypto.randomUUID();
    const write = await countRoundTrips(() => put(id, { items: [item("a")] }));
    expect(write.result.status).toBe(200);
    expect(write.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    const stale = await countRoundTrips(() => put(id, { version: 7 }));
    expect(stale.result.status).toBe(409);
    expect(stale.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    const read = await countRoundTrips(() => get(id));
    expect(read.result.status).toBe(200);
    expect(read.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });
});

describe("E3: concurrency", () => {
  it("20 concurrent replaces leave one complete item set and a version that counts them", async () => {
    const first = await created();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        put(first.id, { customName: `w${n}`, items: [item(`w${n}-1`), item(`w${n}-2`)] }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const versions = await Promise.all(
      responses.map(async (r) => ((await r.json()) as CommerceSession).version),
    );
    expect(versions.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n + 2));
    const final = (await (await get(first.id)).json()) as CommerceSession;
    expect(final.version).toBe(21);
    expect(final.items.map((i) => i.name)).toEqual([
      `${final.customName}-1`,
      `${final.customName}-2`,
    ]);
  });

  it("20 concurrent replaces carrying the same version: exactly one wins", async () => {
    const first = await created();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        put(first.id, { version: 1, customName: `w${n}`, items: [item(`w${n}`)] }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const final = (await (await get(first.id)).json()) as CommerceSession;
    expect(final.version).toBe(2);
    expect(final.items.map((i) => i.name)).toEqual([final.customName]);
  });

  it("20 concurrent creates of one new id: one creates, the others replace", async () => {
    const id = crypto.randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, n) => put(id, { customName: `c${n}`, items: [item("x")] })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const sessions = await Promise.all(responses.map((r) => r.json() as Promise<CommerceSession>));
    expect(sessions.map((s) => s.version).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, n) => n + 1),
    );
    expect(new Set(sessions.map((s) => s.createdAt)).size).toBe(1);
  });
});

describe("E3: errors", () => {
  it("answers 409 STALE_UPDATE with currentVersion and changes nothing", async () => {
    const first = await created();
    await put(first.id, { version: 1, items: [item("v2")] });
    const problem = await expectProblem(
      await put(first.id, { version: 1, items: [] }),
      409,
      "STALE_UPDATE",
    );
    expect(problem.currentVersion).toBe(2);
    const read = (await (await get(first.id)).json()) as CommerceSession;
    expect(read.version).toBe(2);
    expect(read.items.map((i) => i.name)).toEqual(["v2"]);
  });

  it.each([
    ["a body id other than the path's", { id: "6f1c2a54-8d1e-4c4b-9a43-2b9d3c4e5f60" }, "id"],
    [
      "an item id sent twice",
      {
        items: [
          { id: "6f1c2a54-8d1e-4c4b-9a43-2b9d3c4e5f61" },
          { id: "6f1c2a54-8d1e-4c4b-9a43-2b9d3c4e5f61" },
        ],
      },
      "items[1].id",
    ],
    ["a non-uuid pointOfSaleId", { pointOfSaleId: "pos-1" }, "pointOfSaleId"],
    ["a negative qty", { items: [{ qty: -1 }] }, "items[0].qty"],
    ["a fractional unit price", { items: [{ unitPriceCents: 1.5 }] }, "items[0].unitPriceCents"],
    ["a version over int32", { version: 2 ** 31 }, "version"],
    ["an unsafe amount", { items: [{ unitPriceCents: 2 ** 53 }] }, "items[0].unitPriceCents"],
    [
      "a unit price × qty past 2^53",
      { items: [{ unitPriceCents: 2 ** 40, qty: 2 ** 20 }] },
      "items[0].unitPriceCents",
    ],
  ])("answers 400 for %s", async (_, body, field) => {
    const problem = await expectProblem(
      await put(crypto.randomUUID(), body),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toContain(field);
  });

  it("answers 400 naming the path id when it is not a uuid", async () => {
    const problem = await expectProblem(await put("not-a-uuid", {}), 400, "VALIDATION_ERROR");
    expect(problem.errors?.[0]?.path).toBe("sessionId");
    await expectProblem(await get("not-a-uuid"), 400, "VALIDATION_ERROR");
  });

  it("answers 404 for an unknown session", async () => {
    await expectProblem(await get(crypto.randomUUID()), 404, "NOT_FOUND");
  });
});

describe("E3: tenancy", () => {
  it("answers 403 when the body names another winery", async () => {
    const id = crypto.randomUUID();
    await expectProblem(await put(id, { wineryId: other.wineryId }), 403, "FORBIDDEN");
    await expectProblem(await get(id), 404, "NOT_FOUND");
  });

  it("keeps each winery's sessions apart, even under the same id", async () => {
    const mine = await created({ customName: "mine" });
    await expectProblem(await get(mine.id, other.apiKey), 404, "NOT_FOUND");
    const theirs = await put(mine.id, { customName: "theirs", version: 5 }, other.apiKey);
    expect(theirs.status).toBe(200);
    expect(await theirs.json()).toMatchObject({ version: 1, wineryId: other.wineryId, items: [] });
    const read = (await (await get(mine.id)).json()) as CommerceSession;
    expect(read).toMatchObject({ customName: "mine", version: 1 });
    expect(read.items).toHaveLength(2);
  });

  it("answers 401 without a key", async () => {
    await expectProblem(await api(path(crypto.randomUUID())), 401, "UNAUTHENTICATED");
  });
});
