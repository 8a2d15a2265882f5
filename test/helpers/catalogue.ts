import { eq } from "drizzle-orm";
import { salesChannels } from "../../src/db/schema";
import type { Product } from "../../src/schemas/products";
import { api } from "./api";
import { testDb } from "./db";
import type { TestTenant } from "./factories";

/** `count` more sales channels of the tenant's winery; answers their ids (the first is the tenant's). */
export async function tenantChannels(tenant: TestTenant, count = 0): Promise<string[]> {
  const db = testDb();
  const [first] = await db
    .select({ id: salesChannels.id })
    .from(salesChannels)
    .where(eq(salesChannels.apiChannelKey, tenant.apiChannelKey));
  if (!first) throw new Error("tenant has no channel");
  const more =
    count === 0
      ? []
      : await db
          .insert(salesChannels)
          .values(
            Array.from({ length: count }, (_, i) => ({
              wineryId: tenant.wineryId,
              name: `Channel ${i + 2}`,
              apiChannelKey: `ch_${crypto.randomUUID().replaceAll("-", "")}`,
            })),
          )
          .returning({ id: salesChannels.id });
  return [first.id, ...more.map((c) => c.id)];
}

/** A realistic wine with overrides; `id` is fresh. */
export function wine(overrides: Record<string, unknown> = {}) {
  return {
    nameIt: "Brunello di Montalcino 2019",
    nameEn: "Brunello di Montalcino 2019",
    sku: `BRU-${crypto.randomUUID().slice(0, 8)}`,
    status: "PUBLISHED",
    priceCents: 4500,
    priceCurrency: "EUR",
    defaultVatRate: 22,
    unitsPerCase: 6,
    weight: 1.5,
    nameTranslations: { it: "Brunello di Montalcino 2019", en: "Brunello di Montalcino 2019" },
    ...overrides,
  };
}

export function putProduct(tenant: TestTenant, id: string, body: unknown) {
  return api(`/v2/product-catalog/products/${id}`, { key: tenant.apiKey, method: "PUT", body });
}

export async function storedProduct(
  tenant: TestTenant,
  body: Record<string, unknown> = {},
  id: string = crypto.randomUUID(),
): Promise<Product> {
  const response = await putProduct(tenant, id, wine(body));
  if (response.status !== 200)
    throw new Error(`PUT product ${response.status}: ${await response.text()}`);
  return (await response.json()) as Product;
}

export function listProducts(tenant: TestTenant, body: unknown = {}, wineryId = tenant.wineryId) {
  return api(`/v2/product-catalog/products/winery/${wineryId}/query`, { key: tenant.apiKey, body });
}
