import { describe, expect, it } from "vitest";
import { decimalToCents } from "../../src/lib/money";
import { ExternalOrderSchema } from "../../src/schemas/orders";
import { ShopOrderDocumentSchema } from "../../src/schemas/shop-plugin";
import { dayOf, WooCommerceOrderSchema } from "../../src/schemas/woocommerce";
import { shopOrderToExternalOrder } from "../../src/services/orders/shop-order-document";
import {
  deriveVatPercentage,
  wooCommerceToExternalOrder,
} from "../../src/services/orders/woocommerce";
import { wooOrder } from "../helpers/woocommerce";

describe("decimalToCents", () => {
  it.each([
    ["19.99", 1999],
    [19.99, 1999],
    ["0.1", 10],
    [0.1, 10],
    ["0.29", 29],
    [0.29, 29],
    ["1.005", 101],
    ["1.004", 100],
    ["1.0049999", 100],
    ["2.675", 268],
    [2.675, 268], // the double is 2.67499999..., but its JSON text said 2.675
    ["1.015", 102],
    [33.333333333333336, 3333],
    [16.665, 1667],
    ["10", 1000],
    [10, 1000],
    ["007.50", 750],
    [" 5.00 ", 500],
    ["0", 0],
    ["0.00", 0],
    [1e-7, 0],
    ["-5.00", -500],
    ["-1.005", -101],
    ["-0.001", 0],
    ["9999999999999.99", 999999999999999],
  ])("%j -> %i", (input, cents) => {
    expect(decimalToCents(input)).toEqual({ ok: true, cents });
  });

  it.each([
    "19,99",
    "1e3",
    "1E3",
    "",
    " ",
    "abc",
    "1.2.3",
    "+5",
    ".5",
    "5.",
    "0x10",
    "€5",
    "1 000",
  ])("rejects %j", (input) => {
    expect(decimalToCents(input)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/decimal amount/),
    });
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY])("rejects the number %d", (input) => {
    expect(decimalToCents(input).ok).toBe(false);
  });

  it("rejects amounts past the safe-integer range of cents", () => {
    expect(decimalToCents("99999999999999")).toEqual({ ok: false, message: "is out of range" });
    expect(decimalToCents(1e21)).toMatchObject({ ok: false });
  });
});

describe("dayOf", () => {
  it.each([
    ["2026-05-01T10:00:00", "2026-05-01"],
    ["2026-05-01T23:30:00.123", "2026-05-01"],
    ["2026-05-01T00:30:00+02:00", "2026-04-30"],
    ["2026-04-30T23:30:00-01:00", "2026-05-01"],
    ["2024-02-29T12:00:00Z", "2024-02-29"],
    ["9999-12-31T23:59:59+01:00", "9999-12-31"],
    ["0001-01-01T00:30:00-01:00", "0001-01-01"],
    ["0050-03-01T10:00:00", "0050-03-01"],
  ])("%s -> %s", (input, day) => {
    expect(dayOf(input)).toBe(day);
  });

  it.each([
    "2026-02-30T10:00:00",
    "2025-02-29T10:00:00",
    "2026-05-01",
    "2026-05-01T24:00:00",
    "yesterday",
    "9999-12-31T23:59:59-01:00",
    "0100-02-29T10:00:00",
    "0001-01-01T00:30:00+01:00",
  ])("rejects %s", (input) => {
    expect(dayOf(input)).toBeUndefined();
  });
});

describe("deriveVatPercentage", () => {
  it.each([
    [5997, 1319, 22],
    [4050, 891, 22],
    [2500, 250, 10],
    [1000, 0, 0],
    [1000, 55, null], // 5.5%: no whole rate fits
    [5, 1, null], // too small to tell 10% from 20%
    [0, 0, null],
    [-300, -66, null],
    [100, 150, null],
  ])("net %i, tax %i -> %s", (net, tax, rate) => {
    expect(deriveVatPercentage(net, tax)).toBe(rate);
  });
});

describe("wooCommerceToExternalOrder", () => {
  const mapped = () => {
    const document = wooOrder({ id: 4711 });
    return wooCommerceToExternalOrder(WooCommerceOrderSchema.parse(document), "woocommerce");
  };

  it("maps the order to a valid ExternalOrder with exact cents", () => {
    const order = mapped();
    expect(ExternalOrderSchema.safeParse(order).success).toBe(true);
    expect(order).toMatchObject({
      id: "4711",
      sourceExternal: { id: "4711", type: "woocommerce" },
      date: "2026-05-01",
      amountCents: 16593,
      amountVatCents: 2746,
      amountShipmentCents: 1220,
      amountDiscountCents: 549,
      quantity: 6,
      countryIso: "IT",
      addressName: null,
    });
    expect(
      order.items?.map((i) => [i.unitPriceCents, i.amountCents, i.amountDiscountCents]),
    ).toEqual([
      [1999, 7316, 0],
      [4050, 4941, 549],
      [1250, 2750, 0],
      [300, 366, undefined],
    ]);
    const itemsTotal = (order.items ?? []).reduce((sum, i) => sum + (i.amountCents ?? 0), 0);
    expect(itemsTotal + (order.amountShipmentCents ?? 0)).toBe(order.amountCents);
  });

  it("keeps only the named WooCommerce fields in extraMetadata", () => {
    const woocommerce = mapped().extraMetadata?.woocommerce as Record<string, unknown>;
    expect(Object.keys(woocommerce).sort()).toEqual(
      [
        "coupon_lines",
        "currency",
        "customer_id",
        "date_created",
        "date_created_gmt",
        "date_paid_gmt",
        "meta_data",
        "number",
        "order_key",
        "payment_method_title",
        "prices_include_tax",
        "shipping",
        "shipping_lines",
        "transaction_id",
      ].sort(),
    );
  });

  it("reads a string id, a missing GMT date and a minimal order", () => {
    const parsed = WooCommerceOrderSchema.parse({
      id: "12",
      line_items: [{ quantity: 2, total: "10.00" }],
      total: "10.00",
      date_created: "2026-06-30T23:59:00",
    });
    const order = wooCommerceToExternalOrder(parsed, "woo");
    expect(order).toMatchObject({
      id: "12",
      date: "2026-06-30",
      amountCents: 1000,
      buyerEmail: null,
    });
    expect(order.items?.[0]).toMatchObject({
      unitPriceCents: null,
      amountCents: 1000,
      vatPercentage: 0,
    });
  });
});

describe("ShopOrderDocumentSchema", () => {
  const parse = (text: string, tagName: string) => {
    const result = ShopOrderDocumentSchema.safeParse(text);
    if (!result.success) throw new Error(result.error.message);
    return shopOrderToExternalOrder(result.data, tagName);
  };
  const fieldPaths = (text: string) => {
    const result = ShopOrderDocumentSchema.safeParse(text);
    if (result.success) throw new Error("expected a validation error");
    return result.error.issues.map((issue) => issue.path.join("."));
  };

  it("tells WooCommerce from ExternalOrder documents", () => {
    expect(parse(JSON.stringify(wooOrder({ id: 9 })), "woocommerce").id).toBe("9");
    const external = parse(JSON.stringify({ id: "A-1", amountCents: 100 }), "pos");
    expect(external).toMatchObject({
      id: "A-1",
      amountCents: 100,
      sourceExternal: { id: "A-1", type: "pos" },
    });
  });

  it("names paths inside the document", () => {
    const document = wooOrder();
    document.line_items[0] = { ...document.line_items[0], total: "19,99" } as never;
    expect(fieldPaths(JSON.stringify(document))).toEqual(["line_items.0.total"]);
    expect(fieldPaths('{"id": 5}')).toEqual(["id"]); // an ExternalOrder id is a string
  });

  it.each(["", "{", "[1]", "7", '"text"', "null"])("rejects %j at the document root", (text) => {
    expect(fieldPaths(text)).toEqual([""]);
  });

  it("applies the hostile-input rules inside the document", () => {
    expect(fieldPaths(JSON.stringify({ id: "A-1", notes: "a\u0000b" }))).toEqual(["notes"]);
    expect(fieldPaths(JSON.stringify({ id: "A-1", notes: "\ud800" }))).toEqual(["notes"]);
  });
});
