import type { ExternalOrder, Order } from "../../src/schemas/orders";
import { api } from "./api";
import type { TestTenant } from "./factories";

/** A realistic legacy order with a unique external id. */
export function externalOrder(overrides: Partial<ExternalOrder> = {}): ExternalOrder {
  return {
    id: `LEG-${crypto.randomUUID().slice(0, 12)}`,
    date: "2026-05-14",
    status: "PAID",
    schemaVersion: "3",
    buyerEmail: "marco.bianchi@example.com",
    buyerFirstname: "Marco",
    buyerLastname: "Bianchi",
    buyerPhone: "+39 333 1234567",
    address: "Via del Corso 12",
    city: "Roma",
    zipcode: "00186",
    province: "RM",
    countryIso: "IT",
    amountCents: 7480,
    amountDiscountCents: 500,
    amountShipmentCents: 990,
    // The VAT at 22% of the amount: an amountCents override brings its own (E1 refuses VAT over
    // the amount).
    amountVatCents:
      overrides.amountCents != null ? Math.round((overrides.amountCents * 22) / 122) : 1349,
    amountVatPercentage: 22,
    paymentMethod: "card",
    marketingManual: false,
    quantity: 4,
    sourceExternal: { id: "POS-7", type: "POS_TERMINAL" },
    sourceSyncedAt: "2026-05-14T09:30:00.000Z",
    userMetadata: { tableNumber: 4 },
    extraMetadata: { importer: "legacy-v3" },
    totals: {
      subtotalCents: 6990,
      shipmentCents: 990,
      discountCents: 500,
      taxCents: 1349,
      totalCents: 7480,
    },
    items: [
      {
        sku: "BRUNELLO-2019",
        name: "Brunello di Montalcino 2019",
        quantity: 1,
        unitPriceCents: 4500,
        amountCents: 4500,
        vatPercentage: 22,
        type: "PRODUCT",
      },
      {
        sku: "ROSSO-2022",
        name: "Rosso di Montalcino 2022",
        quantity: 3,
        unitPriceCents: 830,
        amountCents: 2490,
        vatPercentage: 22,
        type: "PRODUCT",
      },
    ],
    ...overrides,
  };
}

export function importOrder(
  tenant: TestTenant,
  order: unknown,
  headers: Record<string, string> = {},
) {
  return api(`/v4/order-import/${tenant.apiChannelKey}`, {
    key: tenant.apiKey,
    body: order,
    headers,
  });
}

export async function importedOrder(
  tenant: TestTenant,
  overrides: Partial<ExternalOrder> = {},
): Promise<Order> {
  const response = await importOrder(tenant, externalOrder(overrides));
  if (response.status !== 200)
    throw new Error(`import failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as Order;
}
