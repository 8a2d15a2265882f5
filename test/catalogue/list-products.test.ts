import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Product } from "../../src/schemas/products";
import { expectProblem } from "../helpers/api";
import { listProducts, storedProduct, tenantChannels } from "../helpers/catalogue";
import { testDb } from "../helpers/db";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

const ids = async (response: Response) => {
  expect(response.status).toBe(200);
  return ((await response.json()) as Product[]).map((p) => p.id);
};

/** `count` products of the winery in one statement, each in the category on every channel. */
async function insertProducts(
  tenant: TestTenant,
  count: number,
  categoryId: string,
  channelIds: string[],
) {
  const db = testDb();
  await db.execute(sql`
    with p as (
      insert into products (winery_id, name_it, sku, status, price_cents, display_order)
      select ${tenant.wineryId}, 'Vino ' || g, 'BULK-' || g, 'PUBLISHED', 1000 + g, g
      from generate_series(1, ${count}) g returning id
    ), c as (
      insert into product_categories (winery_id, product_id, category_id)
      select ${tenant.wineryId}, p.id, ${categoryId} from p
    )
    insert into product_channels (winery_id, product_id, winery_channel_id, price_cents)
    select ${tenant.wineryId}, p.id, ch::uuid, 999
    from p, jsonb_array_elements_text(${JSON.stringify(channelIds)}::jsonb) ch`);
}

describe("E10 POST /v2/product-catalog/products/winery/{wineryId}/query: happy", () => {
  let tenant: TestTenant;
  let channels: string[];
  const red = crypto.randomUUID();
  const white = crypto.randomUUID();
  let byName: Record<string, Product>;
  beforeAll(async () => {
    tenant = await createTenant();
    channels = await tenantChannels(tenant, 2);
    const [c1, c2, c3] = channels;
    const categories = [
      { id: red, nameIt: "Rossi" },
      { id: white, nameIt: "Bianchi" },
    ];
    byName = {
      both: await storedProduct(tenant, {
        nameIt: "both",
        displayOrder: 2,
        categories,
        channels: [c1, c2, c3].map((wineryChannelId) => ({ wineryChannelId, priceCents: 100 })),
      }),
      inactive: await storedProduct(tenant, { nameIt: "inactive", displayOrder: 1, active: false }),
      draft: await storedProduct(tenant, {
        nameIt: "draft",
        displayOrder: 1,
        status: "DRAFT",
        categories: [categories[0]],
        channels: [{ wineryChannelId: c1, priceCents: 1, active: false }],
      }),
      first: await storedProduct(tenant, {
        nameIt: "first",
        displayOrder: 0,
        channels: [
          { wineryChannelId: c1, priceCents: 1, active: false },
          { wineryChannelId: c2, priceCents: 2 },
        ],
      }),
    };
  });

  it("lists active products once each, ordered by displayOrder then id, fully nested", async () => {
    const response = await listProducts(tenant);
    const products = (await response.json()) as Product[];
    expect(products.map((p) => p.nameIt)).toEqual(["first", "draft", "both"]);
    expect(products.map((p) => p.id)).toEqual(["first", "draft", "both"].map((n) => byName[n]?.id));
    const both = products[2];
    expect(both?.categories.map((c) => c.id).sort()).toEqual([red, white].sort());
    expect(both?.categories.find((c) => c.id === red)?.productsCount).toBe(2);
    expect(both?.channels.map((c) => c.wineryChannelId).sort()).toEqual([...channels].sort());
    // The listing is the product as PUT answered it, but for the category counts since grown.
    expect({ ...both, categories: [] }).toEqual({ ...byName.both, categories: [] });
  });

  it.each([
    ["includeInactive", { includeInactive: true }, ["first", "draft", "inactive", "both"]],
    ["statuses", { statuses: ["DRAFT"] }, ["draft"]],
    ["statuses (several)", { statuses: ["DRAFT", "PUBLISHED"] }, ["first", "draft", "both"]],
    ["categoryId", { categoryId: red }, ["draft", "both"]],
    ["categoryId (other)", { categoryId: white }, ["both"]],
    ["activeChannelsOnly", { activeChannelsOnly: true }, ["first", "both"]],
    ["combined", { categoryId: red, activeChannelsOnly: true, statuses: ["PUBLISHED"] }, ["both"]],
  ])("filters by %s", async (_, filter, expected) => {
    const products = (await (await listProducts(tenant, filter)).json()) as Product[];
    // Two products share displayOrder 1: the expected order is (displayOrder, id).
    const order = (names: string[]) =>
      names
        .map((n) => byName[n] as Product)
        .sort((a, b) => a.displayOrder - b.displayOrder || (a.id < b.id ? -1 : 1))
        .map((p) => p.nameIt);
    expect(products.map((p) => p.nameIt)).toEqual(order(expected));
  });

  it("a filter sent as null does not filter, exactly as one left out", async () => {
    const unset = {
      includeInactive: null,
      activeChannelsOnly: null,
      statuses: null,
      categoryId: null,
    };
    const response = await listProducts(tenant, unset);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(await (await listProducts(tenant)).json());
    // One null among set filters leaves the others filtering.
    const some = (await (
      await listProducts(tenant, { ...unset, categoryId: red, includeInactive: true })
    ).json()) as Product[];
    expect(some.map((p) => p.nameIt)).toEqual(["draft", "both"]);
  });

  it("activeChannelsOnly lists only the active channels", async () => {
    const products = (await (
      await listProducts(tenant, { activeChannelsOnly: true })
    ).json()) as Product[];
    expect(products[0]?.channels.map((c) => [c.wineryChannelId, c.active])).toEqual([
      [channels[1], true],
    ]);
  });

  it("costs one round trip for 1 product and for 500", async () => {
    const small = await createTenant();
    await storedProduct(small);
    const one = await countRoundTrips(() => listProducts(small));
    expect(await ids(one.result)).toHaveLength(1);
    expect(one.trips).toEqual({ httpRequests: 1, wsSessions: 0 });

    const big = await createTenant();
    const bigChannels = await tenantChannels(big, 2);
    const category = (await storedProduct(big, { categories: [{ id: crypto.randomUUID() }] }))
      .categories[0]?.id as string;
    await insertProducts(big, 500, category, bigChannels);
    const many = await countRoundTrips(() => listProducts(big));
    const products = (await many.result.json()) as Product[];
    expect(products).toHaveLength(501);
    expect(products[500]?.channels).toHaveLength(3);
    expect(products[500]?.categories[0]?.productsCount).toBe(501);
    expect(many.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });
});

describe("E10: errors and tenancy", () => {
  let tenant: TestTenant;
  let other: TestTenant;
  beforeAll(async () => {
    [tenant, other] = await Promise.all([createTenant(), createTenant()]);
  });

  it.each([
    ["includeInactive", { includeInactive: "yes" }],
    ["categoryId", { categoryId: "red" }],
    ["statuses", { statuses: "DRAFT" }],
    ["activeChannelsOnly", { includeInactive: null, activeChannelsOnly: 0 }],
  ])("names the invalid field %s", async (path, body) => {
    const problem = await expectProblem(await listProducts(tenant, body), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("a wineryId other than the key's is 403, a malformed one 400", async () => {
    await expectProblem(await listProducts(tenant, {}, other.wineryId), 403, "FORBIDDEN");
    await expectProblem(await listProducts(tenant, {}, "winery"), 400, "VALIDATION_ERROR");
  });

  it("never lists another winery's products", async () => {
    await storedProduct(other);
    const mine = await storedProduct(tenant);
    expect(await ids(await listProducts(tenant))).toEqual([mine.id]);
  });
});
