// Every answer's totals carry the seven members of the interface's Totals (null where unknown),
// whatever members the import sent: E1 stored exactly the members sent, E19's WooCommerce mapping
// five of them (an outside audit). An order without totals answers null.
import { beforeAll, describe, expect, it } from "vitest";
import type { Order } from "../../src/schemas/orders";
import { api } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import { externalOrder, importOrder } from "../helpers/orders";
import { wooOrder } from "../helpers/woocommerce";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

const NO_TOTALS = {
  discountCents: null,
  discounts: null,
  extraMetadata: null,
  shipmentCents: null,
  subtotalCents: null,
  taxCents: null,
  totalCents: null,
};

async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

const get = (id: number | string) => api(`/v4/orders/${id}`, { key: tenant.apiKey });

/** The order as GET, E2 (a no-op change) and E20 (its day alone) answer it, each compared with E1's. */
async function everyAnswerOf(order: Order): Promise<Order[]> {
  const read = await json<Order>(await get(order.id));
  const updated = await json<Order>(
    await api(`/v4/orders/${order.id}`, { key: tenant.apiKey, method: "PUT", body: {} }),
  );
  const page = await json<{ orders: Order[] }>(
    await api("/v4/orders/query", {
      key: tenant.apiKey,
      body: { dateFrom: `${order.date}T00:00:00Z`, dateTo: `${order.date}T00:00:00Z` },
    }),
  );
  const listed = page.orders.find((o) => o.id === order.id);
  if (!listed) throw new Error("E20 did not list the order");
  return [read, updated, listed];
}

describe("an order's totals in every answer", () => {
  it("E1: all seven members, null where the import left them out, in E1's answer, GET, E2 and E20", async () => {
    const input = {
      id: `TOT-${crypto.randomUUID()}`,
      date: "2026-07-01",
      totals: { totalCents: 100 },
    };
    const imported = await json<Order>(await importOrder(tenant, input));
    const expected = { ...NO_TOTALS, totalCents: 100 };
    expect(imported.totals).toStrictEqual(expected);
    for (const answer of await everyAnswerOf(imported))
      expect(answer.totals).toStrictEqual(expected);
  });

  it("E1: keeps every member sent, the free-form ones as sent (`__proto__` included)", async () => {
    const totals = {
      discountCents: 500,
      discounts: { coupon: "SPRING" },
      extraMetadata: { source: "pos" },
      shipmentCents: 990,
      subtotalCents: 6990,
      taxCents: 1349,
      totalCents: 7480,
    };
    const text = JSON.stringify(externalOrder({ totals })).replace(
      '"coupon":"SPRING"',
      '"coupon":"SPRING","__proto__":{"x":1}',
    );
    const imported = await json<Order>(
      await api(`/v4/order-import/${tenant.apiChannelKey}`, {
        key: tenant.apiKey,
        method: "POST",
        rawBody: text,
        headers: { "Content-Type": "application/json" },
      }),
    );
    const { discounts, ...members } = imported.totals ?? {};
    expect(JSON.stringify(discounts)).toBe('{"coupon":"SPRING","__proto__":{"x":1}}');
    const { discounts: _, ...sent } = totals;
    expect(members).toStrictEqual(sent);
  });

  it.each([
    ["without totals", {}],
    ["with totals null", { totals: null }],
  ])("E1: an order %s answers totals null", async (_, totals) => {
    const imported = await json<Order>(
      await importOrder(tenant, {
        id: `TOT-${crypto.randomUUID()}`,
        date: "2026-07-02",
        ...totals,
      }),
    );
    expect(imported.totals).toBeNull();
    for (const answer of await everyAnswerOf(imported)) expect(answer.totals).toBeNull();
  });

  it("E19: a WooCommerce order's totals have all seven members (discounts and extraMetadata null)", async () => {
    const response = await api(
      `/v2/shopplugin/orders?tagName=woocommerce&wineryId=${tenant.wineryId}`,
      { key: tenant.apiKey, body: JSON.stringify(wooOrder()) },
    );
    const id = await json<string>(response);
    const read = await json<Order>(await get(id));
    expect(read.totals).toStrictEqual({
      discountCents: 549,
      discounts: null,
      extraMetadata: null,
      shipmentCents: 1220,
      subtotalCents: 15556,
      taxCents: 2746,
      totalCents: 16593,
    });
  });

  it("E19: an ExternalOrder's totals likewise", async () => {
    const document = { id: `TOT-${crypto.randomUUID()}`, totals: { taxCents: 18 } };
    const id = await json<string>(
      await api(`/v2/shopplugin/orders?tagName=shop&wineryId=${tenant.wineryId}`, {
        key: tenant.apiKey,
        body: JSON.stringify(document),
      }),
    );
    expect((await json<Order>(await get(id))).totals).toStrictEqual({ ...NO_TOTALS, taxCents: 18 });
  });
});
