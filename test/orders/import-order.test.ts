import {
  createExecutionContext,
  createScheduledController,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  idempotencyKeys,
  orders,
  receiptLines,
  receiptPayments,
  receipts,
} from "../../src/db/schema";
import worker from "../../src/index";
import { NotFoundError } from "../../src/lib/errors";
import type { Order } from "../../src/schemas/orders";
import { writeOrder } from "../../src/services/orders/import-order";
import { api, expectProblem } from "../helpers/api";
import { testDatabase, testDb } from "../helpers/db";
import { createTenant, type TestTenant } from "../helpers/factories";
import { externalOrder, importOrder } from "../helpers/orders";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;

async function clearReplayCache() {
  for (const { name } of (await env.IDEMPOTENCY.list()).keys) await env.IDEMPOTENCY.delete(name);
}
beforeAll(async () => {
  tenant = await createTenant();
});

async function ordersWithExternalId(wineryId: string, externalId: string) {
  return testDb()
    .select()
    .from(orders)
    .where(eq(orders.externalId, externalId))
    .then((rows) => rows.filter((r) => r.wineryId === wineryId));
}

async function receiptCount(orderId: number) {
  const [row] = await testDb()
    .select({ n: count() })
    .from(receipts)
    .where(eq(receipts.orderId, orderId));
  return row?.n ?? 0;
}

/**
 * Imports another order into a winery whose only receipt is `orderId`'s, and expects the winery's
 * receipts numbered 1 (that order) and 2 (the new one): nothing in between took a number.
 */
async function expectNextReceiptAfter(tenant: TestTenant, orderId: number) {
  const next = (await (await importOrder(tenant, externalOrder())).json()) as Order;
  const numbers = await testDb()
    .select({ order: receipts.orderId, n: receipts.progressiveNumber })
    .from(receipts)
    .where(eq(receipts.wineryId, tenant.wineryId));
  expect(numbers.sort((a, b) => a.n - b.n)).toEqual([
    { order: orderId, n: 1 },
    { order: next.id, n: 2 },
  ]);
}

describe("E1 POST /v4/order-import/{apiChannelKey}: happy", () => {
  it("stores the order with its items and answers it", async () => {
    const input = externalOrder();
    const response = await importOrder(tenant, input);
    expect(response.status).toBe(200);
    expect(response.headers.get("Idempotent-Replayed")).toBeNull();
    const order = (await response.json()) as Order;
    const { items, id: externalId, date, ...fields } = input;
    expect(order).toMatchObject({ ...fields, externalId, date, channel: tenant.apiChannelKey });
    expect(Number.isSafeInteger(order.id)).toBe(true);
    expect(order.items).toHaveLength(2);
    expect(order.items[0]).toMatchObject({ ...items?.[0], id: expect.any(Number) });
    expect(order.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(order.updatedAt).toBe(order.createdAt);
  });

  it("issues the fiscal receipt in the same transaction", async () => {
    const order = (await (await importOrder(tenant, externalOrder())).json()) as Order;
    const [receipt] = await testDb().select().from(receipts).where(eq(receipts.orderId, order.id));
    expect(receipt).toMatchObject({
      wineryId: tenant.wineryId,
      receiptType: "ORDER",
      fiscalOperation: "RECEIPT",
      status: "CREATED",
      authorityCommunicationState: "TODO",
      saleDocumentState: "NONE",
      totalCents: 7480,
      vatAmountCents: 1349,
      totalNoVatCents: 7480 - 1349,
      discountTotalCents: 500,
      customerName: "Marco Bianchi",
    });
    const lines = await testDb()
      .select()
      .from(receiptLines)
      .where(eq(receiptLines.receiptId, receipt?.id ?? ""));
    expect(lines.map((l) => l.saleRowId).sort()).toEqual(order.items.map((i) => i.id).sort());
    expect(receipt?.externalEntityId).toBeTruthy();
    expect(lines.map((l) => [l.lineNumber, l.entityId, l.quantity, l.unitPriceCents])).toEqual([
      [1, "BRUNELLO-2019", 1, 4500],
      [2, "ROSSO-2022", 3, 830],
    ]);
    const payments = await testDb()
      .select()
      .from(receiptPayments)
      .where(eq(receiptPayments.receiptId, receipt?.id ?? ""));
    expect(payments).toMatchObject([{ grossTotalCents: 7480, paymentNumber: 1, method: "card" }]);
  });

  it("numbers receipts progressively per winery, without gaps under concurrency", async () => {
    const fresh = await createTenant();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => importOrder(fresh, externalOrder())),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const rows = await testDb()
      .select({ n: receipts.progressiveNumber })
      .from(receipts)
      .where(eq(receipts.wineryId, fresh.wineryId));
    expect(rows.map((r) => r.n).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("derives amountCents when the payload leaves it out", async () => {
    const input = externalOrder({
      amountCents: undefined,
      totals: undefined,
      amountShipmentCents: 990,
      amountDiscountCents: 500,
    });
    const order = (await (await importOrder(tenant, input)).json()) as Order;
    expect(order.amountCents).toBe(4500 + 2490 + 990 - 500);
  });

  it("accepts a minimal order", async () => {
    const response = await importOrder(tenant, { id: `MIN-${crypto.randomUUID()}` });
    expect(response.status).toBe(200);
    const order = (await response.json()) as Order;
    expect(order).toMatchObject({
      amountCents: 0,
      items: [],
      sourceExternal: null,
      date: new Date().toISOString().slice(0, 10),
    });
  });
});

describe("E1 idempotency", () => {
  it("replays the first response with Idempotent-Replayed and writes nothing more", async () => {
    const input = externalOrder();
    const key = crypto.randomUUID();
    const first = await importOrder(tenant, input, { "Idempotency-Key": key });
    const firstBody = await first.text();
    const again = await importOrder(tenant, input, { "Idempotency-Key": `"${key}"` });
    expect(again.status).toBe(200);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(firstBody);
    expect(await ordersWithExternalId(tenant.wineryId, input.id)).toHaveLength(1);
  });

  it("treats a reordered but equal payload as the same request", async () => {
    const input = externalOrder();
    const key = crypto.randomUUID();
    await importOrder(tenant, input, { "Idempotency-Key": key });
    const reordered = Object.fromEntries(Object.entries(input).reverse());
    const again = await importOrder(tenant, reordered, { "Idempotency-Key": key });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
  });

  it("answers 422 for the same key with a different payload", async () => {
    const key = crypto.randomUUID();
    await importOrder(tenant, externalOrder(), { "Idempotency-Key": key });
    await expectProblem(
      await importOrder(tenant, externalOrder(), { "Idempotency-Key": key }),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    );
  });

  it("replays a refusal of the import (DUPLICATE_ORDER) with its status and members, from KV and from Postgres", async () => {
    const input = externalOrder();
    const imported = (await (await importOrder(tenant, input)).json()) as Order;
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const first = await importOrder(tenant, input, headers);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const refused = await expectProblem(first, 409, "DUPLICATE_ORDER");
    expect(refused.orderId).toBe(imported.id);
    for (const clear of [false, true]) {
      if (clear) await clearReplayCache();
      const again = await importOrder(tenant, input, headers);
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      const replayed = await expectProblem(again, 409, "DUPLICATE_ORDER");
      // The same problem, answered to this request: its requestId is this request's.
      expect({ ...replayed, requestId: refused.requestId }).toEqual(refused);
      expect(replayed.requestId).toBe(again.headers.get("X-Request-Id"));
      expect(replayed.requestId).not.toBe(refused.requestId);
    }
    await expectProblem(
      await importOrder(tenant, { ...input, notes: "other" }, headers),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    );
    expect(await ordersWithExternalId(tenant.wineryId, input.id)).toHaveLength(1);
  });

  it("keeps nothing for a request refused before the import ran: the key stays free", async () => {
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const input = externalOrder();
    await expectProblem(
      await importOrder(tenant, { ...input, date: "2026-02-30" }, headers),
      400,
      "VALIDATION_ERROR",
    );
    const corrected = await importOrder(tenant, input, headers);
    expect(corrected.status).toBe(200);
    expect(corrected.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("still replays when the KV cache is empty: Postgres holds the truth", async () => {
    const input = externalOrder();
    const key = crypto.randomUUID();
    const first = await (await importOrder(tenant, input, { "Idempotency-Key": key })).text();
    await clearReplayCache();
    // The batch's claim fails, and one read of the key's record answers: no WebSocket session.
    const { result: again, trips } = await countRoundTrips(() =>
      importOrder(tenant, input, { "Idempotency-Key": key }),
    );
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(first);
    expect(trips).toEqual({ httpRequests: 2, wsSessions: 0 });
    await clearReplayCache();
    const reused = await countRoundTrips(() =>
      importOrder(tenant, { ...input, notes: "changed" }, { "Idempotency-Key": key }),
    );
    await expectProblem(reused.result, 422, "IDEMPOTENCY_KEY_REUSED");
    expect(reused.trips).toEqual({ httpRequests: 2, wsSessions: 0 });
    // Another order under the same key: refused by the key, not by the order's own unique id.
    const another = externalOrder();
    await clearReplayCache();
    await expectProblem(
      await importOrder(tenant, another, { "Idempotency-Key": key }),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    );
    expect(await ordersWithExternalId(tenant.wineryId, another.id)).toHaveLength(0);
  });

  it("executes exactly once under 20 concurrent calls with one key and one body", async () => {
    const input = externalOrder();
    const key = crypto.randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => importOrder(tenant, input, { "Idempotency-Key": key })),
    );
    const ids = new Set<number>();
    for (const answer of answers) {
      if (answer.status === 409) {
        const problem = await expectProblem(answer, 409, "IDEMPOTENCY_KEY_IN_USE");
        expect(answer.headers.get("Retry-After")).toBeTruthy();
        expect(problem.requestId).toBeTruthy();
      } else {
        expect(answer.status).toBe(200);
        ids.add(((await answer.json()) as Order).id);
      }
    }
    expect(ids.size).toBe(1);
    const stored = await ordersWithExternalId(tenant.wineryId, input.id);
    expect(stored).toHaveLength(1);
    expect(await receiptCount(stored[0]?.id ?? 0)).toBe(1);
  });

  it("costs one database round trip without a key: one atomic batch", async () => {
    const { result, trips } = await countRoundTrips(() => importOrder(tenant, externalOrder()));
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it("costs one KV read and one database round trip with a key: one batch, no session", async () => {
    const kvReads = vi.spyOn(env.IDEMPOTENCY, "get");
    const input = externalOrder();
    const { result, trips } = await countRoundTrips(() =>
      importOrder(tenant, input, { "Idempotency-Key": crypto.randomUUID() }),
    );
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    expect(kvReads).toHaveBeenCalledTimes(1);
    kvReads.mockRestore();
    // The answer is the stored order as every other read of it answers it, byte for byte.
    const text = await result.text();
    const id = (JSON.parse(text) as Order).id;
    expect(await (await api(`/v4/orders/${id}`, { key: tenant.apiKey })).text()).toBe(text);
    expect(await receiptCount(id)).toBe(1);
  });

  it("with a key, answers what the same import answers without one, byte for byte", async () => {
    const input = externalOrder();
    const keyed = await importOrder(tenant, input, { "Idempotency-Key": crypto.randomUUID() });
    const other = await createTenant();
    const plain = await api(`/v4/order-import/${other.apiChannelKey}`, {
      key: other.apiKey,
      body: input,
    });
    // What differs between two wineries' imports of one order: ids, channel key, timestamps.
    const strip = (text: string) => {
      const { id: _, createdAt: _c, updatedAt: _u, items, ...rest } = JSON.parse(text) as Order;
      return JSON.stringify({
        ...rest,
        channel: null,
        items: items.map(({ id: _i, ...item }) => item),
      });
    };
    expect(strip(await keyed.text())).toBe(strip(await plain.text()));
  });

  it("lets a key be used afresh once its record has expired, and the cron purges expired records", async () => {
    const key = crypto.randomUUID();
    await importOrder(tenant, externalOrder(), { "Idempotency-Key": key });
    const expire = () =>
      testDb()
        .update(idempotencyKeys)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(idempotencyKeys.key, key));
    await expire();
    await clearReplayCache(); // KV expires its copy at the same time
    const fresh = await importOrder(tenant, externalOrder(), { "Idempotency-Key": key });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("Idempotent-Replayed")).toBeNull();

    await expire();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController(), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(
      await testDb().select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key)),
    ).toEqual([]);
  });

  it("keeps records for 24 hours", async () => {
    const key = crypto.randomUUID();
    await importOrder(tenant, externalOrder(), { "Idempotency-Key": key });
    const [record] = await testDb()
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, key));
    const hours =
      ((record?.expiresAt.getTime() ?? 0) - (record?.createdAt.getTime() ?? 0)) / 3_600_000;
    expect(hours).toBeGreaterThanOrEqual(24);
  });
});

/** The receipt E1 issued for an order, with its lines. */
async function receiptOf(orderId: number) {
  const db = testDb();
  const [receipt] = await db.select().from(receipts).where(eq(receipts.orderId, orderId));
  const lines = receipt
    ? await db.select().from(receiptLines).where(eq(receiptLines.receiptId, receipt.id))
    : [];
  return { receipt, lines };
}

describe("E1's receipt: discounts and VAT", () => {
  const importing = async (override: Partial<ReturnType<typeof externalOrder>>) => {
    const input = {
      ...externalOrder(),
      amountCents: undefined,
      amountVatCents: undefined,
      amountShipmentCents: undefined,
      amountDiscountCents: undefined,
      totals: undefined,
      ...override,
    };
    const response = await importOrder(tenant, input);
    expect(response.status).toBe(200);
    const order = (await response.json()) as Order;
    return { order, ...(await receiptOf(order.id)) };
  };

  it("takes an item's own discount from unitPriceCents × quantity, on the order and its receipt line", async () => {
    const { order, receipt, lines } = await importing({
      items: [
        {
          sku: "A",
          quantity: 2,
          unitPriceCents: 1000,
          vatPercentage: 22,
          amountDiscountCents: 1500,
        },
      ],
    });
    expect(order.amountCents).toBe(500);
    expect(lines).toMatchObject([
      { unitPriceCents: 1000, discountAmountCents: 1500, vatAmountCents: 90, netTotalCents: 410 },
    ]);
    expect(receipt).toMatchObject({
      totalCents: 500,
      vatAmountCents: 90,
      totalNoVatCents: 410,
      discountTotalCents: 1500,
    });
  });

  it("figures the VAT on what was paid when the order's discount takes most of the items (never a negative net)", async () => {
    const { order, receipt, lines } = await importing({
      amountDiscountCents: 1900,
      items: [{ sku: "A", quantity: 2, unitPriceCents: 1000, vatPercentage: 22 }],
    });
    expect(order.amountCents).toBe(100);
    // The line keeps its VAT on its own gross; the receipt's is that VAT × 100 / 2000.
    expect(lines).toMatchObject([{ vatAmountCents: 361, netTotalCents: 1639 }]);
    expect(receipt).toMatchObject({
      totalCents: 100,
      vatAmountCents: 18,
      totalNoVatCents: 82,
      discountTotalCents: 1900,
    });
  });

  it("leaves shipment out of the paid share, and an amount above the items unscaled", async () => {
    const items = [
      { sku: "A", quantity: 1, unitPriceCents: 1220, vatPercentage: 22 },
      { sku: "B", quantity: 1, unitPriceCents: 1100, vatPercentage: 10 },
    ];
    const discounted = await importing({
      amountCents: 1660 + 500,
      amountShipmentCents: 500,
      items,
    });
    // Lines' VAT 220 + 100 = 320 on 2320 of gross; 1660 of it paid: 320 × 1660 / 2320 = 228.97.
    expect(discounted.receipt).toMatchObject({ vatAmountCents: 229, totalNoVatCents: 2160 - 229 });
    const whole = await importing({ amountCents: 2320 + 500, amountShipmentCents: 500, items });
    expect(whole.receipt).toMatchObject({ vatAmountCents: 320, totalNoVatCents: 2820 - 320 });
  });

  it("takes a credit line (a negative amount) and sums it, with no discount asked of it", async () => {
    const { order, receipt } = await importing({
      items: [
        { sku: "A", quantity: 2, unitPriceCents: 1000, vatPercentage: 22 },
        { sku: "CREDIT", quantity: 1, unitPriceCents: -500, amountCents: -500, vatPercentage: 22 },
      ],
    });
    expect(order.amountCents).toBe(1500);
    expect(receipt).toMatchObject({ totalCents: 1500, vatAmountCents: 361 - 90 });
  });

  it("takes a negative shipment as a discount: the VAT falls with what was paid for the goods", async () => {
    const { order, receipt } = await importing({
      amountShipmentCents: -200,
      items: [{ sku: "A", quantity: 1, unitPriceCents: 1000, vatPercentage: 22 }],
    });
    expect(order.amountCents).toBe(800);
    // 180 of VAT on 1000 of goods; 800 paid: 144, as with a discount of 200.
    expect(receipt).toMatchObject({ totalCents: 800, vatAmountCents: 144, totalNoVatCents: 656 });
  });

  it("uses amountVatPercentage for an order without items and for items without a rate, on the line too", async () => {
    const bare = await importing({ amountCents: 5000, amountVatPercentage: 22, items: [] });
    expect(bare.receipt).toMatchObject({ totalCents: 5000, vatAmountCents: 902 });
    const rated = await importing({
      amountVatPercentage: 10,
      items: [{ sku: "A", quantity: 2, unitPriceCents: 1000 }],
    });
    expect(rated.lines).toMatchObject([{ vatPercent: 10, vatAmountCents: 182 }]);
    expect(rated.receipt).toMatchObject({ vatAmountCents: 182 });
  });

  it("keeps a 100% discount at zero VAT", async () => {
    const { receipt } = await importing({
      amountDiscountCents: 2000,
      items: [{ sku: "A", quantity: 2, unitPriceCents: 1000, vatPercentage: 22 }],
    });
    expect(receipt).toMatchObject({ totalCents: 0, vatAmountCents: 0, totalNoVatCents: 0 });
  });
});

describe("E1 errors", () => {
  it("answers DUPLICATE_ORDER with the existing orderId for a second import, in one request with or without a key, taking no receipt number", async () => {
    const fresh = await createTenant();
    const input = externalOrder();
    const first = (await (await importOrder(fresh, input)).json()) as Order;
    const plain = await countRoundTrips(() => importOrder(fresh, input));
    const keyed = await countRoundTrips(() =>
      importOrder(fresh, input, { "Idempotency-Key": crypto.randomUUID() }),
    );
    for (const { result, trips } of [plain, keyed]) {
      expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
      expect(result.headers.get("Idempotent-Replayed")).toBeNull();
    }
    const problem = await expectProblem(plain.result, 409, "DUPLICATE_ORDER");
    expect(problem.orderId).toBe(first.id);
    const kept = await expectProblem(keyed.result, 409, "DUPLICATE_ORDER");
    expect({ ...kept, requestId: problem.requestId }).toEqual(problem);
    expect(await receiptCount(first.id)).toBe(1);
    expect(await ordersWithExternalId(fresh.wineryId, input.id)).toHaveLength(1);
    // The refusals took no number: the next import's receipt follows the first's.
    await expectNextReceiptAfter(fresh, first.id);
  });

  it("imports one order of 10 concurrent imports of one external id, keyed or not: the others are DUPLICATE_ORDER of it, and the receipts have no gap", async () => {
    const fresh = await createTenant();
    const input = externalOrder();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        importOrder(fresh, input, i % 2 ? { "Idempotency-Key": crypto.randomUUID() } : {}),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const stored = await ordersWithExternalId(fresh.wineryId, input.id);
    expect(stored).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status === 409)) {
      expect((await expectProblem(answer, 409, "DUPLICATE_ORDER")).orderId).toBe(stored[0]?.id);
    }
    await expectNextReceiptAfter(fresh, stored[0]?.id ?? 0);
  });

  it.each([
    ["id", { id: undefined }],
    ["amountCents", { amountCents: 12.5 }],
    ["amountVatCents", { amountVatCents: 2 ** 31 }],
    ["amountCents", { amountCents: 2 ** 53 }],
    ["date", { date: "2026-02-30" }],
    ["sourceSyncedAt", { sourceSyncedAt: "2026-05-14 09:30" }],
    [
      "items[1].quantity",
      {
        items: [
          { sku: "A", quantity: 1 },
          { sku: "B", quantity: "two" },
        ],
      },
    ],
    ["sourceExternal.type", { sourceExternal: { id: "x" } }],
    // decisions.md "Hostile input": unit price × quantity must be a safe amount, amountCents or not.
    [
      "items[0].unitPriceCents",
      {
        items: [
          { sku: "A", quantity: 9007199254740991, unitPriceCents: 2147483647, amountCents: 100 },
        ],
      },
    ],
    [
      "items[0].unitPriceCents",
      { items: [{ sku: "A", quantity: 2 ** 40, unitPriceCents: -(2 ** 20), amountCents: 0 }] },
    ],
    // No negative derived total: the receipt's net total is the amount less its VAT.
    ["amountVatCents", { amountCents: 100, amountVatCents: 500 }],
    ["amountVatCents", { amountCents: 1000, amountVatCents: -100 }],
    // Discounts are not negative (a negative discountTotalCents on the receipt).
    ["amountDiscountCents", { amountDiscountCents: -200 }],
    ["items[0].amountDiscountCents", { items: [{ sku: "A", amountDiscountCents: -1 }] }],
    // An item's discount beyond unitPriceCents × quantity, amountCents sent or not.
    [
      "items[0].amountDiscountCents",
      {
        items: [
          {
            sku: "A",
            quantity: 1,
            unitPriceCents: 500,
            amountCents: 400,
            amountDiscountCents: 900,
          },
        ],
      },
    ],
    // An item's own discount is taken from unitPriceCents × quantity: not beyond it.
    [
      "items[0].amountDiscountCents",
      {
        amountCents: undefined,
        amountVatCents: undefined,
        totals: undefined,
        items: [{ sku: "A", quantity: 2, unitPriceCents: 1000, amountDiscountCents: 2001 }],
      },
    ],
    ["amountVatCents", { amountCents: undefined, amountVatCents: 2 ** 31 - 1 }],
  ])("names the invalid field %s and writes nothing", async (path, override) => {
    const input = { ...externalOrder(), ...override };
    const keys: Record<string, string>[] = [{}, { "Idempotency-Key": crypto.randomUUID() }];
    for (const headers of keys) {
      const response = await importOrder(tenant, input, headers);
      const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
      expect(problem.errors?.map((e) => e.path)).toContain(path);
      if (input.id) expect(await ordersWithExternalId(tenant.wineryId, input.id)).toHaveLength(0);
    }
  });

  it.each([
    ["sent", { amountCents: 100 }],
    ["derived from totals.totalCents", { totals: { totalCents: 100 } }],
    ["derived from its items", { items: [{ sku: "A", quantity: 1, unitPriceCents: 100 }] }],
  ])("refuses an amountVatCents above the amount (%s), saying why", async (_, amount) => {
    const input = { id: `VAT-${crypto.randomUUID()}`, ...amount, amountVatCents: 200 };
    const problem = await expectProblem(await importOrder(tenant, input), 400, "VALIDATION_ERROR");
    expect(problem.errors).toEqual([
      {
        path: "amountVatCents",
        message: "exceeds the amount (100 cents): the receipt's net total would be negative",
      },
    ]);
    expect(await ordersWithExternalId(tenant.wineryId, input.id)).toHaveLength(0);
  });

  it("documents totals.totalCents as not negative and refuses a negative one, naming it", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      components: { schemas: Record<string, { properties: Record<string, { minimum?: number }> }> };
    };
    expect(doc.components.schemas.Totals?.properties.totalCents?.minimum).toBe(0);
    const input = externalOrder({ totals: { totalCents: -1 } });
    const problem = await expectProblem(await importOrder(tenant, input), 400, "VALIDATION_ERROR");
    expect(problem.errors).toEqual([
      { path: "totals.totalCents", message: "must not be negative" },
    ]);
  });

  it("refuses more than 1,000 items", async () => {
    const items = Array.from({ length: 1001 }, (_, i) => ({ sku: `S${i}`, quantity: 1 }));
    const problem = await expectProblem(
      await importOrder(tenant, externalOrder({ items })),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.[0]?.path).toBe("items");
  });

  it("refuses a malformed Idempotency-Key", async () => {
    const problem = await expectProblem(
      await importOrder(tenant, externalOrder(), { "Idempotency-Key": "x".repeat(256) }),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.[0]?.path).toBe("Idempotency-Key");
  });

  it("answers 404 for an unknown channel in one request, with or without a key, and keeps it with the key", async () => {
    const input = externalOrder();
    const send = (headers: Record<string, string> = {}) =>
      api("/v4/order-import/no-such-channel", { key: tenant.apiKey, body: input, headers });
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const plain = await countRoundTrips(() => send());
    const keyed = await countRoundTrips(() => send(headers));
    const problems = [];
    for (const { result, trips } of [plain, keyed]) {
      expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
      problems.push(await expectProblem(result, 404, "NOT_FOUND"));
    }
    expect(problems.map((p) => p.detail)).toEqual([
      "Sales channel no-such-channel not found.",
      "Sales channel no-such-channel not found.",
    ]);
    const again = await send(headers);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    await expectProblem(again, 404, "NOT_FOUND");
    expect(await ordersWithExternalId(tenant.wineryId, input.id)).toHaveLength(0);
  });

  it("on a transaction's handle (the keyed fallback, the seed), an unknown channel is the same 404 and writes nothing", async () => {
    const input = externalOrder();
    const refused = await testDatabase()
      .transaction((tx) => writeOrder(tx, tenant.wineryId, "no-such-channel", input))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(NotFoundError);
    expect((refused as NotFoundError).message).toBe("Sales channel no-such-channel not found.");
    expect(await ordersWithExternalId(tenant.wineryId, input.id)).toHaveLength(0);
  });
});

describe("E1 security", () => {
  it("answers 401 without a key", async () => {
    await expectProblem(
      await api(`/v4/order-import/${tenant.apiChannelKey}`, { body: externalOrder() }),
      401,
      "UNAUTHENTICATED",
    );
  });

  it("answers 404 for another winery's channel, and writes nothing", async () => {
    const other = await createTenant();
    const input = externalOrder();
    const response = await api(`/v4/order-import/${other.apiChannelKey}`, {
      key: tenant.apiKey,
      body: input,
    });
    await expectProblem(response, 404, "NOT_FOUND");
    expect(await ordersWithExternalId(other.wineryId, input.id)).toHaveLength(0);
  });

  it("scopes idempotency keys by winery", async () => {
    const other = await createTenant();
    const key = crypto.randomUUID();
    const mine = (await (
      await importOrder(tenant, externalOrder(), { "Idempotency-Key": key })
    ).json()) as Order;
    const theirs = await importOrder(other, externalOrder(), { "Idempotency-Key": key });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("Idempotent-Replayed")).toBeNull();
    expect(((await theirs.json()) as Order).id).not.toBe(mine.id);
  });
});
