import { env } from "cloudflare:workers";
import { and, count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { orderItems, orders } from "../../src/db/schema";
import type { ExternalOrder, Order } from "../../src/schemas/orders";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createTenant, type TestTenant } from "../helpers/factories";
import { externalOrder } from "../helpers/orders";
import { countRoundTrips } from "../helpers/round-trips";
import { wooOrder } from "../helpers/woocommerce";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

interface PostOptions {
  tagName?: string | null;
  wineryId?: string | null;
  key?: string;
  headers?: Record<string, string>;
}

/** POSTs `body` as the JSON body as is; pass JSON.stringify(document) for a proper E19 call. */
function post(body: unknown, options: PostOptions = {}, target: TestTenant = tenant) {
  const query = new URLSearchParams();
  const tagName = options.tagName === undefined ? "woocommerce" : options.tagName;
  const wineryId = options.wineryId === undefined ? target.wineryId : options.wineryId;
  if (tagName !== null) query.set("tagName", tagName);
  if (wineryId !== null) query.set("wineryId", wineryId);
  return api(`/v2/shopplugin/orders?${query}`, {
    key: "key" in options ? options.key : target.apiKey,
    body,
    ...(options.headers && { headers: options.headers }),
  });
}

const postDocument = (document: unknown, options?: PostOptions, target?: TestTenant) =>
  post(JSON.stringify(document), options, target);

async function createdId(response: Response): Promise<string> {
  const text = await response.text();
  if (response.status !== 201) throw new Error(`expected 201, got ${response.status}: ${text}`);
  const id = JSON.parse(text) as unknown;
  expect(typeof id).toBe("string");
  expect(id).toMatch(/^[1-9]\d*$/);
  // Every 201, a replay included, says where the order is read.
  expect(response.headers.get("Location")).toBe(`/api/v4/orders/${id}`);
  return id as string;
}

async function getOrder(id: string, target: TestTenant = tenant): Promise<Order> {
  const response = await api(`/v4/orders/${id}`, { key: target.apiKey });
  expect(response.status).toBe(200);
  return (await response.json()) as Order;
}

async function storedCounts(wineryId: string, externalId: string) {
  const db = testDb();
  const [orderCount] = await db
    .select({ n: count() })
    .from(orders)
    .where(and(eq(orders.wineryId, wineryId), eq(orders.externalId, externalId)));
  const [itemCount] = await db
    .select({ n: count() })
    .from(orderItems)
    .innerJoin(orders, eq(orders.id, orderItems.orderId))
    .where(and(eq(orders.wineryId, wineryId), eq(orders.externalId, externalId)));
  return { orders: orderCount?.n ?? 0, items: itemCount?.n ?? 0 };
}

describe("E19 POST /v2/shopplugin/orders: happy", () => {
  it("stores a WooCommerce order and answers its id as a JSON string", async () => {
    const document = wooOrder();
    const response = await postDocument(document);
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    const id = await createdId(response);

    const order = await getOrder(id);
    expect(order).toMatchObject({
      id: Number(id),
      externalId: String(document.id),
      channel: null,
      tagName: "woocommerce",
      sourceExternal: { id: String(document.id), type: "woocommerce" },
      status: "processing",
      date: "2026-05-01",
      buyerFirstname: "Giulia",
      buyerLastname: "Rossi",
      buyerEmail: "giulia.rossi@example.com",
      buyerPhone: "+39 055 123 4567",
      address: "Via Roma 1, Scala B",
      addressName: null,
      city: "Firenze",
      province: "FI",
      zipcode: "50123",
      countryIso: "IT",
      amountCents: 16593,
      amountVatCents: 2746,
      amountShipmentCents: 1220,
      amountDiscountCents: 549,
      amountVatPercentage: null,
      quantity: 6,
      paymentMethod: "stripe",
      notes: "Please ring twice.",
      userMetadata: null,
      totals: {
        subtotalCents: 15556,
        discountCents: 549,
        shipmentCents: 1220,
        taxCents: 2746,
        totalCents: 16593,
      },
    });
    expect(order.extraMetadata).toEqual({
      woocommerce: expect.objectContaining({
        currency: "EUR",
        number: String(document.id),
        meta_data: document.meta_data,
        shipping: document.shipping,
        coupon_lines: [{ id: 319, code: "brunello10" }],
        shipping_lines: [{ id: 318, method_id: "flat_rate", method_title: "Flat rate" }],
      }),
    });
    expect(order.items.map((i) => [i.externalId, i.type, i.sku, i.quantity])).toEqual([
      ["315", "product", "CHIANTI-2021", 3],
      ["316", "product", "BRUNELLO-2019", 1],
      ["317", "product", "VINSANTO-2018", 2],
      ["320", "fee", null, 1],
    ]);
    expect(order.items[0]).toMatchObject({
      name: "Chianti Classico 2021",
      unitPriceCents: 1999,
      amountCents: 5997 + 1319,
      amountDiscountCents: 0,
      vatPercentage: 22,
      pricingBreakdown: {
        subtotalCents: 5997,
        subtotalTaxCents: 1319,
        totalCents: 5997,
        totalTaxCents: 1319,
      },
      extraMetadata: {
        woocommerce: {
          product_id: 93,
          variation_id: 0,
          meta_data: [{ id: 2201, key: "bottle_size", value: "75cl" }],
        },
      },
    });
    expect(order.items[1]).toMatchObject({
      unitPriceCents: 4050,
      amountCents: 4941,
      amountDiscountCents: 549,
      vatPercentage: 22,
    });
    expect(order.items[2]).toMatchObject({
      unitPriceCents: 1250,
      amountCents: 2750,
      vatPercentage: 10,
    });
    expect(order.items[3]).toMatchObject({
      name: "Gift wrap",
      unitPriceCents: 300,
      amountCents: 366,
      vatPercentage: 22,
    });
  });

  it.each([
    ["a 50% coupon", "5.00", "1.10", 5],
    ["a 100% coupon", "0.00", "0.00", 0],
  ])(
    "stores an order with %s: a line discount above WooCommerce's discounted price × quantity",
    async (_, total, totalTax, price) => {
      // WooCommerce's `price` is the unit price after coupons, so its line discount (subtotal
      // less total, tax included) may exceed price × quantity: an E1 client may not send that.
      const document = wooOrder({
        discount_total: (10 - Number(total)).toFixed(2),
        discount_tax: (2.2 - Number(totalTax)).toFixed(2),
        shipping_total: "0.00",
        shipping_tax: "0.00",
        fee_lines: [],
        total: (Number(total) + Number(totalTax)).toFixed(2),
        total_tax: totalTax,
        line_items: [
          {
            id: 1,
            sku: "CHIANTI-2021",
            name: "Chianti",
            quantity: 1,
            price,
            subtotal: "10.00",
            subtotal_tax: "2.20",
            total,
            total_tax: totalTax,
          },
        ],
      });
      const order = await getOrder(await createdId(await postDocument(document)));
      const paid = Math.round((Number(total) + Number(totalTax)) * 100);
      expect(order.amountCents).toBe(paid);
      expect(order.items[0]).toMatchObject({
        unitPriceCents: price * 100,
        amountCents: paid,
        amountDiscountCents: 1220 - paid,
      });
    },
  );

  it("updates the same order on a re-post and replaces its items", async () => {
    const document = wooOrder();
    const id = await createdId(await postDocument(document));
    const first = await getOrder(id);

    const [chianti] = document.line_items;
    const changed = {
      ...document,
      status: "completed",
      date_completed_gmt: "2026-05-03T08:00:00",
      line_items: [
        {
          ...chianti,
          id: 400,
          quantity: 1,
          subtotal: "19.99",
          subtotal_tax: "4.40",
          total: "19.99",
          total_tax: "4.40",
        },
      ],
      fee_lines: [],
      discount_total: "0.00",
      discount_tax: "0.00",
      total: "36.59",
      total_tax: "6.60",
    };
    expect(await createdId(await postDocument(changed))).toBe(id);

    const second = await getOrder(id);
    expect(second).toMatchObject({
      status: "completed",
      amountCents: 3659,
      quantity: 1,
      amountDiscountCents: 0,
    });
    expect(second.items).toHaveLength(1);
    expect(second.items[0]).toMatchObject({
      externalId: "400",
      unitPriceCents: 1999,
      amountCents: 2439,
    });
    expect(second.createdAt).toBe(first.createdAt);
    expect(Date.parse(second.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));
    expect(await storedCounts(tenant.wineryId, String(document.id))).toEqual({
      orders: 1,
      items: 1,
    });
  });

  it("keeps back-office userMetadata that the storefront does not send", async () => {
    const document = wooOrder();
    const id = await createdId(await postDocument(document));
    const put = await api(`/v4/orders/${id}`, {
      key: tenant.apiKey,
      method: "PUT",
      body: { userMetadata: { giftWrapped: true } },
    });
    expect(put.status).toBe(200);
    await createdId(await postDocument({ ...document, status: "completed" }));
    expect(await getOrder(id)).toMatchObject({
      status: "completed",
      userMetadata: { giftWrapped: true },
    });
  });

  it("accepts the ExternalOrder shape and defaults sourceExternal to the tag", async () => {
    const { sourceExternal: _omitted, ...document }: ExternalOrder = externalOrder();
    const id = await createdId(await postDocument(document, { tagName: "Legacy-Shop" }));
    const order = await getOrder(id);
    expect(order).toMatchObject({
      externalId: document.id,
      tagName: "legacy-shop",
      sourceExternal: { id: document.id, type: "legacy-shop" },
      amountCents: document.amountCents,
      buyerEmail: document.buyerEmail,
      userMetadata: document.userMetadata,
    });
    expect(order.items.map((i) => i.sku)).toEqual(["BRUNELLO-2019", "ROSSO-2022"]);
    // Tag names are case-insensitive: this is the same order.
    expect(await createdId(await postDocument(document, { tagName: "legacy-shop" }))).toBe(id);
  });

  it("keys orders by tag: the same id from two plugins is two orders", async () => {
    const document = wooOrder();
    const woo = await createdId(await postDocument(document));
    const other = await createdId(await postDocument(document, { tagName: "woocommerce-eu" }));
    expect(other).not.toBe(woo);
  });

  it("replays the first answer for the same Idempotency-Key and document, writing nothing", async () => {
    const document = wooOrder();
    const headers = { "Idempotency-Key": `"${crypto.randomUUID()}"` };
    const first = await postDocument(document, { headers });
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const id = await createdId(first);
    const before = await storedCounts(tenant.wineryId, String(document.id));
    const again = await postDocument(document, { headers });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await createdId(again)).toBe(id);
    expect(await storedCounts(tenant.wineryId, String(document.id))).toEqual(before);
    expect(before).toEqual({ orders: 1, items: 4 });
  });

  it("replays the same document re-encoded (other whitespace and key order in the string)", async () => {
    const document = wooOrder();
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const id = await createdId(await postDocument(document, { headers }));
    const reordered = Object.fromEntries(Object.entries(document).reverse());
    const again = await post(JSON.stringify(reordered, null, 2), { headers });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await createdId(again)).toBe(id);
  });

  it("answers 422 for the same Idempotency-Key with another document", async () => {
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    await createdId(await postDocument(wooOrder(), { headers }));
    await expectProblem(await postDocument(wooOrder(), { headers }), 422, "IDEMPOTENCY_KEY_REUSED");
  });

  it("decides from Postgres when KV has no copy: a replay, or 422 for another order, unwritten", async () => {
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const document = wooOrder();
    const id = await createdId(await postDocument(document, { headers }));
    for (const { name } of (await env.IDEMPOTENCY.list()).keys) await env.IDEMPOTENCY.delete(name);
    const again = await postDocument(document, { headers });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await createdId(again)).toBe(id);
    const another = wooOrder();
    for (const { name } of (await env.IDEMPOTENCY.list()).keys) await env.IDEMPOTENCY.delete(name);
    await expectProblem(await postDocument(another, { headers }), 422, "IDEMPOTENCY_KEY_REUSED");
    expect(await storedCounts(tenant.wineryId, String(another.id))).toMatchObject({ orders: 0 });
  });

  it("costs one KV read and one database round trip with an Idempotency-Key: no session", async () => {
    await createdId(await postDocument(wooOrder()));
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const kvReads = vi.spyOn(env.IDEMPOTENCY, "get");
    const { result, trips } = await countRoundTrips(() => postDocument(wooOrder(), { headers }));
    await createdId(result);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    expect(kvReads).toHaveBeenCalledTimes(1);
    kvReads.mockRestore();
  });

  it("costs exactly one database round trip", async () => {
    await createdId(await postDocument(wooOrder())); // the key is verified once per isolate
    const { result, trips } = await countRoundTrips(() => postDocument(wooOrder()));
    await createdId(result);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it("converges 10 concurrent posts of one order on one row with one set of items", async () => {
    const document = wooOrder();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        postDocument({ ...document, customer_note: `post ${i}` }),
      ),
    );
    const ids = new Set<string>();
    for (const response of responses) ids.add(await createdId(response));
    expect(ids.size).toBe(1);
    expect(await storedCounts(tenant.wineryId, String(document.id))).toEqual({
      orders: 1,
      items: 4,
    });
  });
});

describe("E19 POST /v2/shopplugin/orders: errors", () => {
  it("answers 400 for a body that is an object, not a JSON string", async () => {
    const problem = await expectProblem(await post(wooOrder()), 400, "VALIDATION_ERROR");
    expect(problem.errors?.[0]?.message).toMatch(/JSON string/);
  });

  it("answers 400 for a string that is not JSON", async () => {
    const problem = await expectProblem(await post("{not json"), 400, "VALIDATION_ERROR");
    expect(problem.errors).toEqual([{ path: "body", message: expect.stringMatching(/not JSON/) }]);
  });

  it.each([
    ["a number", 42],
    ["an array", [wooOrder()]],
    ["null", null],
  ])("answers 400 for a document that is %s", async (_, document) => {
    const problem = await expectProblem(await postDocument(document), 400, "VALIDATION_ERROR");
    expect(problem.errors?.[0]?.message).toMatch(/WooCommerce REST API order or an ExternalOrder/);
  });

  it("answers 400 naming an ExternalOrder item whose unit price × quantity is unsafe, and writes nothing", async () => {
    const document = externalOrder({
      items: [{ sku: "A", quantity: 9007199254740991, unitPriceCents: 2147483647, amountCents: 1 }],
    });
    const problem = await expectProblem(await postDocument(document), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toEqual(["items[0].unitPriceCents"]);
    expect(await storedCounts(tenant.wineryId, document.id)).toEqual({ orders: 0, items: 0 });
  });

  // An outside audit: E19 stored these (201) while E1 refused the same ExternalOrder.
  it.each([
    ["sent", { amountCents: 100 }],
    ["derived from totals.totalCents", { totals: { totalCents: 100 } }],
    ["derived from its items", { items: [{ sku: "A", quantity: 1, unitPriceCents: 100 }] }],
  ])(
    "answers 400 naming an ExternalOrder's amountVatCents above its amount (%s), as E1 does, and writes nothing",
    async (_, amount) => {
      const document = { id: `VAT-${crypto.randomUUID()}`, ...amount, amountVatCents: 200 };
      const problem = await expectProblem(await postDocument(document), 400, "VALIDATION_ERROR");
      expect(problem.errors).toEqual([
        {
          path: "amountVatCents",
          message: "exceeds the amount (100 cents): the receipt's net total would be negative",
        },
      ]);
      expect(await storedCounts(tenant.wineryId, document.id)).toEqual({ orders: 0, items: 0 });
    },
  );

  it("answers 400 naming total_tax above total in a WooCommerce order, in its terms, and writes nothing", async () => {
    const document = { id: wooOrder().id, total: "1.00", total_tax: "2.00", line_items: [] };
    const problem = await expectProblem(await postDocument(document), 400, "VALIDATION_ERROR");
    expect(problem.errors).toEqual([
      { path: "total_tax", message: "exceeds total (1.00): the order's tax is part of its total" },
    ]);
    expect(await storedCounts(tenant.wineryId, String(document.id))).toEqual({
      orders: 0,
      items: 0,
    });
  });

  /** The order with two lines (ids 1 and 2), each its first line with `fields(id)`. */
  const twoLines = (d: ReturnType<typeof wooOrder>, fields: (id: number) => object) => ({
    ...d,
    line_items: [1, 2].map((id) => ({ ...d.line_items[0], id, ...fields(id) })),
  });
  const FREE_LINE = {
    price: "0.00",
    subtotal: "0.00",
    subtotal_tax: "0.00",
    total: "0.00",
    total_tax: "0.00",
  };

  it("takes a VAT equal to the amount (a net total of 0), WooCommerce or ExternalOrder", async () => {
    const woo = { id: wooOrder().id, total: "1.00", total_tax: "1.00", line_items: [] };
    const wooStored = await getOrder(await createdId(await postDocument(woo)));
    expect(wooStored).toMatchObject({ amountCents: 100, amountVatCents: 100 });
    const external = { id: `VAT-${crypto.randomUUID()}`, amountCents: 100, amountVatCents: 100 };
    const stored = await getOrder(await createdId(await postDocument(external)));
    expect(stored).toMatchObject({ amountCents: 100, amountVatCents: 100 });
  });

  it("answers 400 naming the paths of a JSON object that is not an order", async () => {
    const problem = await expectProblem(
      await postDocument({ hello: "world", amountCents: "12" }),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(
      expect.arrayContaining(["id", "amountCents"]),
    );
  });

  it.each([
    [
      "line_items[0].total",
      (d: ReturnType<typeof wooOrder>) => ({
        ...d,
        line_items: [{ ...d.line_items[0], total: "19,99" }],
      }),
    ],
    [
      "line_items[1].quantity",
      (d: ReturnType<typeof wooOrder>) => ({
        ...d,
        line_items: [d.line_items[0], { ...d.line_items[1], quantity: "three" }],
      }),
    ],
    [
      "line_items[0].price",
      (d: ReturnType<typeof wooOrder>) => ({
        ...d,
        line_items: [{ ...d.line_items[0], price: "1e3" }],
      }),
    ],
    [
      "line_items[0].price",
      (d: ReturnType<typeof wooOrder>) => ({
        ...d,
        line_items: [{ ...d.line_items[0], price: "21474836.47", quantity: 2 ** 40 }],
      }),
    ],
    ["shipping_total", (d: ReturnType<typeof wooOrder>) => ({ ...d, shipping_total: "-5.00" })],
    ["total", (d: ReturnType<typeof wooOrder>) => ({ ...d, total: undefined })],
    ["id", (d: ReturnType<typeof wooOrder>) => ({ ...d, id: -3 })],
    [
      "date_created_gmt",
      (d: ReturnType<typeof wooOrder>) => ({ ...d, date_created_gmt: "2026-02-30T10:00:00" }),
    ],
    [
      // Its UTC instant is in year 10000 (it used to be a 500 from Postgres).
      "date_created_gmt",
      (d: ReturnType<typeof wooOrder>) => ({
        ...d,
        date_created_gmt: "9999-12-31T23:59:59-01:00",
      }),
    ],
    [
      "date_created",
      (d: ReturnType<typeof wooOrder>) => ({ ...d, date_created: "0001-01-01T00:30:00+01:00" }),
    ],
    [
      // An instant of year 1, written on a day of year 0, which the order would take as its date
      // without date_created_gmt (it used to be a 400 naming nothing).
      "date_created",
      (d: ReturnType<typeof wooOrder>) => ({
        ...d,
        date_created: "0000-12-31T23:00:00-02:00",
        date_created_gmt: undefined,
      }),
    ],
    [
      // Totals is int32 (service-interface.md): each amount fits, their sum does not.
      "shipping_tax",
      (d: ReturnType<typeof wooOrder>) => ({
        ...d,
        shipping_total: "21474836.47",
        shipping_tax: "21474836.47",
      }),
    ],
    [
      "discount_tax",
      (d: ReturnType<typeof wooOrder>) => ({
        ...d,
        discount_total: "21474836.47",
        discount_tax: "0.01",
      }),
    ],
    [
      "line_items",
      (d: ReturnType<typeof wooOrder>) =>
        twoLines(d, () => ({
          subtotal: "21474836.47",
          subtotal_tax: "0",
          total: "21474836.47",
          total_tax: "0",
          price: 21474836.47,
          quantity: 1,
        })),
    ],
    [
      // The order's quantity is the lines' sum: each fits the safe-integer range, the sum does not.
      "line_items",
      (d: ReturnType<typeof wooOrder>) => ({
        ...twoLines(d, (id) => ({
          ...FREE_LINE,
          quantity: id === 1 ? Number.MAX_SAFE_INTEGER : 2,
        })),
        total: "0.00",
        total_tax: "0.00",
      }),
    ],
    [
      "billing.country",
      (d: ReturnType<typeof wooOrder>) => ({ ...d, billing: { ...d.billing, country: "Italy" } }),
    ],
  ])("answers 400 naming %s in a WooCommerce order, and writes nothing", async (path, spoil) => {
    const document = spoil(wooOrder());
    const problem = await expectProblem(await postDocument(document), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toEqual([path]);
    expect(problem.detail).toContain(path);
    expect(await storedCounts(tenant.wineryId, String(document.id))).toEqual({
      orders: 0,
      items: 0,
    });
  });

  it.each([
    ["tagName", { tagName: null }],
    ["tagName", { tagName: "" }],
    ["tagName", { tagName: "woo commerce" }],
    ["wineryId", { wineryId: null }],
  ])("answers 400 naming %s", async (path, options: PostOptions) => {
    const problem = await expectProblem(
      await postDocument(wooOrder(), options),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual([path]);
  });

  it("answers 400 for a malformed Idempotency-Key", async () => {
    const response = await postDocument(wooOrder(), {
      headers: { "Idempotency-Key": "x".repeat(256) },
    });
    const problem = await expectProblem(response, 400, "VALIDATION_ERROR");
    expect(problem.errors?.[0]?.path).toBe("Idempotency-Key");
  });

  it("answers MALFORMED_JSON for a body that is not JSON at all", async () => {
    const response = await api(
      `/v2/shopplugin/orders?tagName=woocommerce&wineryId=${tenant.wineryId}`,
      {
        key: tenant.apiKey,
        method: "POST",
        rawBody: "{not json",
        headers: { "Content-Type": "application/json" },
      },
    );
    await expectProblem(response, 400, "MALFORMED_JSON");
  });
});

describe("E19 POST /v2/shopplugin/orders: security", () => {
  it.each([
    ["a document that is not an order", JSON.stringify({ hello: "world" })],
    ["a body that is not a JSON string", { id: 1 }],
    ["a WooCommerce order with a bad total", JSON.stringify({ ...wooOrder(), total: "1,00" })],
  ])("answers 403 for another winery's wineryId before reading %s", async (_, body) => {
    const other = await createTenant();
    await expectProblem(await post(body, { wineryId: other.wineryId }), 403, "FORBIDDEN");
    // A wineryId that names no winery is not the key's either.
    await expectProblem(await post(body, { wineryId: "not-a-uuid" }), 403, "FORBIDDEN");
    await expectProblem(
      await post(body, { wineryId: other.wineryId, tagName: "not a tag" }),
      403,
      "FORBIDDEN",
    );
  });

  it("answers 403 for a wineryId that is not the key's winery, and writes nothing", async () => {
    const other = await createTenant();
    const document = wooOrder();
    await expectProblem(
      await postDocument(document, { wineryId: other.wineryId }),
      403,
      "FORBIDDEN",
    );
    expect(await storedCounts(other.wineryId, String(document.id))).toEqual({
      orders: 0,
      items: 0,
    });
    expect(await storedCounts(tenant.wineryId, String(document.id))).toEqual({
      orders: 0,
      items: 0,
    });
  });

  it("answers 403 for another winery's wineryId inside the document, as E1 does for its body", async () => {
    const other = await createTenant();
    const order = externalOrder({ id: `E19-FOREIGN-${crypto.randomUUID()}` });
    const foreign = { ...order, wineryId: other.wineryId };
    const inFreeForm = { ...order, extraMetadata: { wineryId: other.wineryId } };
    // E1 refuses the same documents as bodies.
    for (const document of [foreign, inFreeForm]) {
      const e1 = api(`/v4/order-import/${tenant.apiChannelKey}`, {
        key: tenant.apiKey,
        body: document,
      });
      await expectProblem(await e1, 403, "FORBIDDEN");
    }
    const texts = [
      JSON.stringify(foreign),
      JSON.stringify(inFreeForm),
      // Behind a \u escape in the document's text.
      JSON.stringify(foreign).replace('"wineryId"', '"winery\\u0049d"'),
      // In a document that is otherwise invalid: 403 before its 400.
      JSON.stringify({ id: 5, wineryId: other.wineryId }),
    ];
    for (const text of texts) await expectProblem(await post(text), 403, "FORBIDDEN");
    expect(await storedCounts(tenant.wineryId, order.id)).toEqual({ orders: 0, items: 0 });
    // The key's own wineryId in the document is accepted.
    expect((await post(JSON.stringify({ ...order, wineryId: tenant.wineryId }))).status).toBe(201);
  });

  it("answers 401 without a key", async () => {
    await expectProblem(await postDocument(wooOrder(), { key: undefined }), 401, "UNAUTHENTICATED");
  });

  it("keeps wineries apart: one WooCommerce id is two orders, each invisible to the other", async () => {
    const other = await createTenant();
    const document = wooOrder();
    const mine = await createdId(await postDocument(document));
    const theirs = await createdId(
      await postDocument({ ...document, status: "on-hold" }, {}, other),
    );
    expect(theirs).not.toBe(mine);
    expect((await getOrder(mine)).status).toBe("processing");
    expect((await getOrder(theirs, other)).status).toBe("on-hold");
    await expectProblem(await api(`/v4/orders/${mine}`, { key: other.apiKey }), 404, "NOT_FOUND");
  });
});
