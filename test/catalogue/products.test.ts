import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { attributes } from "../../src/db/schema";
import type { Product } from "../../src/schemas/products";
import { api, expectProblem } from "../helpers/api";
import {
  listProducts,
  putProduct,
  storedProduct,
  tenantChannels,
  wine,
} from "../helpers/catalogue";
import { testDb } from "../helpers/db";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
let channels: string[];
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
  channels = await tenantChannels(tenant, 2);
});

const getProduct = (t: TestTenant, id: string) =>
  api(`/v2/product-catalog/products/${id}`, { key: t.apiKey });

const fullProduct = (categoryId: string) =>
  wine({
    categories: [{ id: categoryId, nameIt: "Rossi", nameEn: "Reds", priority: 2 }],
    channels: [
      { wineryChannelId: channels[0], priceCents: 4500, maxUnitsPerOrder: 12 },
      { wineryChannelId: channels[1], priceCents: 3900, active: false },
    ],
    attributeAssignments: [],
    metadata: [{ metadataName: "denomination", metadataValue: "DOCG", validityFrom: "2026-01-01" }],
    files: [
      {
        url: "https://cdn.example.com/bru.jpg",
        mime: "image/jpeg",
        displayOrder: 1,
        flags: "MAIN",
      },
      { url: "https://cdn.example.com/bru.pdf", mime: "application/pdf" },
    ],
    publishedAt: "2026-03-01T10:00:00+01:00",
    validityFrom: "2026-01-01",
  });

describe("PUT/GET /v2/product-catalog/products/{id}: happy", () => {
  it("creates a product with its children and reads it back the same", async () => {
    const id = crypto.randomUUID();
    const categoryId = crypto.randomUUID();
    const response = await putProduct(tenant, id, fullProduct(categoryId));
    expect(response.status).toBe(200);
    const product = (await response.json()) as Product;
    expect(product).toMatchObject({
      id,
      wineryId: tenant.wineryId,
      active: true,
      showWebsite: true,
      isBundle: false,
      priceCents: 4500,
      publishedAt: "2026-03-01T09:00:00.000Z",
      validityFrom: "2026-01-01",
      validityTo: null,
      barcode: null,
    });
    expect(product.categories).toEqual([
      expect.objectContaining({ id: categoryId, categoryId: { id: categoryId }, productsCount: 1 }),
    ]);
    expect(product.channels.map((c) => [c.wineryChannelId, c.priceCents, c.active])).toEqual(
      expect.arrayContaining([
        [channels[0], 4500, true],
        [channels[1], 3900, false],
      ]),
    );
    expect(product.metadata).toEqual([
      expect.objectContaining({
        metadataName: "denomination",
        metadataValue: "DOCG",
        active: true,
      }),
    ]);
    expect(product.files.map((f) => [f.url, f.displayOrder, f.flags])).toEqual([
      ["https://cdn.example.com/bru.pdf", 0, null],
      ["https://cdn.example.com/bru.jpg", 1, "MAIN"],
    ]);
    const read = await getProduct(tenant, id);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(product);
  });

  it("GET and PUT answer a product as E10 lists it: the same members in the same order, child lists and category counts included", async () => {
    const categoryId = crypto.randomUUID();
    const id = crypto.randomUUID();
    const put = await putProduct(tenant, id, fullProduct(categoryId));
    expect(put.status).toBe(200);
    // A second product in the category: productsCount 2 on both.
    const sibling = crypto.randomUUID();
    expect((await putProduct(tenant, sibling, fullProduct(categoryId))).status).toBe(200);
    const listed = (await (
      await listProducts(tenant, { includeInactive: true })
    ).json()) as Product[];
    const inList = listed.find((p) => p.id === id);
    expect(inList?.categories).toEqual([expect.objectContaining({ productsCount: 2 })]);
    const read = (await (await getProduct(tenant, id)).json()) as Product;
    // Member order matters to the bytes: JSON.stringify keeps what JSON.parse saw.
    expect(JSON.stringify(read)).toBe(JSON.stringify(inList));
    // And PUT answers what GET then reads, in the same order.
    const rePut = (await (await putProduct(tenant, id, fullProduct(categoryId))).json()) as Product;
    const reRead = (await (await getProduct(tenant, id)).json()) as Product;
    expect(JSON.stringify(rePut)).toBe(JSON.stringify(reRead));
    expect((await put.json()) as Product).toMatchObject({ categories: [{ productsCount: 1 }] });
  });

  it("replaces the product: files sent with their id keep it, the others are gone", async () => {
    const id = crypto.randomUUID();
    const first = (await (
      await putProduct(tenant, id, fullProduct(crypto.randomUUID()))
    ).json()) as Product;
    const kept = first.files.find((f) => f.flags === "MAIN");
    const response = await putProduct(
      tenant,
      id,
      wine({
        active: false,
        files: [
          { ...kept, displayOrder: 5, flags: "COVER" },
          { url: "https://cdn.example.com/new.jpg" },
        ],
      }),
    );
    expect(response.status).toBe(200);
    const second = (await response.json()) as Product;
    expect(second.active).toBe(false);
    expect(second.categories).toEqual([]);
    expect(second.channels).toEqual([]);
    expect(second.metadata).toEqual([]);
    expect(second.files).toHaveLength(2);
    expect(second.files[1]).toMatchObject({ id: kept?.id, displayOrder: 5, flags: "COVER" });
    expect(second.files[0]?.url).toBe("https://cdn.example.com/new.jpg");
  });

  it("replaces every field: one left out is stored as null, a flag left out takes its default", async () => {
    const id = crypto.randomUUID();
    const first = await putProduct(
      tenant,
      id,
      wine({ weight: 1.5, unitsPerCase: 6, barcode: "8001234567890", showPos: false }),
    );
    expect(first.status).toBe(200);
    const { weight: _, unitsPerCase: __, ...rest } = wine();
    const response = await putProduct(tenant, id, rest);
    expect(response.status).toBe(200);
    const replaced = (await response.json()) as Product;
    expect(replaced).toMatchObject({ weight: null, unitsPerCase: null, barcode: null });
    expect(replaced.showPos).toBe(true);
    expect(await (await getProduct(tenant, id)).json()).toEqual(replaced);
  });

  it("a category entry keeps the members it leaves out: `{ id }` alone links, a member sent replaces", async () => {
    const categoryId = crypto.randomUUID();
    const full = {
      nameEn: "Reds",
      nameIt: "Rossi",
      nameTranslationId: "cat.reds",
      nameTranslations: { en: "Reds", it: "Rossi" },
      descriptionTranslationId: "cat.reds.d",
      descriptionTranslations: { en: "Red wines" },
      priority: 4,
    };
    const first = await storedProduct(tenant, { categories: [{ id: categoryId, ...full }] });
    const { productsCount: _, ...stored } = first.categories[0] ?? {};
    expect(stored).toMatchObject(full);
    // Another product links the category by id alone: the category is as it was, for both.
    const second = await storedProduct(tenant, { categories: [{ id: categoryId }] });
    expect(second.categories).toEqual([{ ...stored, productsCount: 2 }]);
    const reread = (await (await getProduct(tenant, first.id)).json()) as Product;
    expect(reread.categories).toEqual([{ ...stored, productsCount: 2 }]);
    // Members sent replace (null clears); the others stay.
    const third = await storedProduct(tenant, {
      categories: [{ id: categoryId, nameEn: "Red wines", nameTranslations: null, priority: 0 }],
    });
    expect(third.categories[0]).toEqual({
      ...stored,
      nameEn: "Red wines",
      nameTranslations: null,
      priority: 0,
      productsCount: 3,
    });
    // A new category takes the defaults for what it leaves out.
    const fresh = crypto.randomUUID();
    const fourth = await storedProduct(tenant, { categories: [{ id: fresh, nameIt: "Bianchi" }] });
    expect(fourth.categories[0]).toMatchObject({
      id: fresh,
      nameIt: "Bianchi",
      nameEn: null,
      nameTranslations: null,
      parentCategoryId: null,
      priority: 0,
    });
  });

  it("keeps a __proto__ language key in the product's and its categories' translations", async () => {
    const translations = () => JSON.parse('{"__proto__":"Proto","it":"Rosso"}');
    const product = await storedProduct(tenant, {
      nameTranslations: translations(),
      posNameTranslations: translations(),
      categories: [{ id: crypto.randomUUID(), nameTranslations: translations() }],
    });
    for (const map of [
      product.nameTranslations,
      product.posNameTranslations,
      product.categories[0]?.nameTranslations,
    ]) {
      expect(Object.entries(map ?? {})).toEqual(
        expect.arrayContaining([
          ["__proto__", "Proto"],
          ["it", "Rosso"],
        ]),
      );
    }
    expect(await (await getProduct(tenant, product.id)).json()).toEqual(product);
    const problem = await expectProblem(
      await putProduct(
        tenant,
        crypto.randomUUID(),
        wine({ descriptionTranslations: JSON.parse('{"__proto__":null}') }),
      ),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["descriptionTranslations.__proto__"]);
  });

  it("assigns attribute values by text (created once) and by id", async () => {
    const code = `grape-${crypto.randomUUID().slice(0, 8)}`;
    const [attribute] = await testDb()
      .insert(attributes)
      .values({ wineryId: tenant.wineryId, code, names: { it: "Vitigno", en: "Grape" } })
      .returning();
    const attributeId = attribute?.id ?? 0;
    const a = await storedProduct(tenant, {
      attributeAssignments: [{ attributeId, value: "Sangiovese" }],
    });
    const valueId = a.attributeAssignments[0]?.attributeValueId;
    const b = await storedProduct(tenant, {
      attributeAssignments: [
        { attributeId, value: "Sangiovese" },
        { attributeId, attributeValueId: valueId },
      ],
    });
    expect(b.attributeAssignments.map((x) => [x.attributeId, x.attributeValueId])).toEqual([
      [attributeId, valueId],
      [attributeId, valueId],
    ]);
  });

  it("costs one round trip to write and one to read", async () => {
    const id = crypto.randomUUID();
    const write = await countRoundTrips(() =>
      putProduct(tenant, id, fullProduct(crypto.randomUUID())),
    );
    expect(write.result.status).toBe(200);
    expect(write.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    const read = await countRoundTrips(() => getProduct(tenant, id));
    expect(read.result.status).toBe(200);
    expect(read.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });
});

describe("PUT /v2/product-catalog/products/{id}: concurrent creates of one id", () => {
  // Two inserts of one new id can both pass ON CONFLICT's check before either has indexed its row;
  // the unique (winery_id, id) that the children's foreign keys need then refuses the later one
  // (23505, not the arbiter's conflict). Rounds of simultaneous creates, each with a new category
  // (whose table has the same pair of unique indexes): every one must be answered 200.
  it("answers every one 200 and stores one product with one category", async () => {
    for (let round = 0; round < 25; round++) {
      const id = crypto.randomUUID();
      const categoryId = crypto.randomUUID();
      const body = wine({ sku: `RACE-${round}`, categories: [{ id: categoryId, nameEn: "Reds" }] });
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => putProduct(tenant, id, body)),
      );
      const statuses = await Promise.all(
        answers.map(async (a) => (a.status === 200 ? 200 : `${a.status} ${await a.text()}`)),
      );
      expect(statuses).toEqual(Array(8).fill(200));
      const stored = (await (await getProduct(tenant, id)).json()) as Product;
      expect(stored.categories.map((c) => c.id)).toEqual([categoryId]);
    }
  });

  it("answers 200 to simultaneous creates of different products naming one new category", async () => {
    for (let round = 0; round < 25; round++) {
      const categoryId = crypto.randomUUID();
      const ids = Array.from({ length: 8 }, () => crypto.randomUUID());
      const answers = await Promise.all(
        ids.map((id, i) =>
          putProduct(
            tenant,
            id,
            wine({ sku: `CAT-${round}-${i}`, categories: [{ id: categoryId, nameEn: "Reds" }] }),
          ),
        ),
      );
      const statuses = await Promise.all(
        answers.map(async (a) => (a.status === 200 ? 200 : `${a.status} ${await a.text()}`)),
      );
      expect(statuses).toEqual(Array(8).fill(200));
    }
  });
});

describe("PUT/GET /v2/product-catalog/products/{id}: errors", () => {
  it.each([
    ["priceCents", { priceCents: 1.5 }],
    // A price is never negative (an outside money audit: -5 was stored and listed by E10).
    ["priceCents", { priceCents: -5 }],
    ["variantMinPriceCents", { variantMinPriceCents: -7 }],
    [
      "channels[0].priceCents",
      { channels: [{ wineryChannelId: crypto.randomUUID(), priceCents: -9 }] },
    ],
    ["displayOrder", { displayOrder: 2 ** 31 }],
    ["validityFrom", { validityFrom: "2026-02-30" }],
    ["categories[0].id", { categories: [{ nameIt: "x" }] }],
    ["channels", { channels: [{ wineryChannelId: "" }] }],
    ["files[0].displayOrder", { files: [{ displayOrder: "first" }] }],
    ["attributeAssignments[0].attributeValueId", { attributeAssignments: [{ attributeId: 1 }] }],
    ["id", { id: crypto.randomUUID() }],
    ["validityTo", { validityFrom: "2027-12-31", validityTo: "2027-01-01" }],
    [
      "metadata[0].validityTo",
      { metadata: [{ metadataName: "a", validityFrom: "2026-02-01", validityTo: "2026-01-01" }] },
    ],
  ])("names the invalid field %s", async (path, override) => {
    const body = await expectProblem(
      await putProduct(tenant, crypto.randomUUID(), wine(override)),
      400,
      "VALIDATION_ERROR",
    );
    expect(body.errors?.map((e) => e.path).some((p) => p.startsWith(path))).toBe(true);
  });

  it("takes a body id equal to the path's (in any case), or null", async () => {
    const id = crypto.randomUUID();
    expect((await putProduct(tenant, id, wine({ id: id.toUpperCase() }))).status).toBe(200);
    expect((await putProduct(tenant, id, wine({ id: null }))).status).toBe(200);
    const sameDay = wine({ validityFrom: "2027-01-01", validityTo: "2027-01-01" });
    expect((await putProduct(tenant, id, sameDay)).status).toBe(200);
  });

  it("refuses a channel listed twice", async () => {
    const body = await expectProblem(
      await putProduct(
        tenant,
        crypto.randomUUID(),
        wine({
          channels: [channels[0], channels[0]].map((c) => ({ wineryChannelId: c, priceCents: 1 })),
        }),
      ),
      400,
      "VALIDATION_ERROR",
    );
    expect(body.errors?.[0]?.path).toBe("channels");
  });

  it("refuses an unknown attribute and writes nothing", async () => {
    const id = crypto.randomUUID();
    const body = await expectProblem(
      await putProduct(
        tenant,
        id,
        wine({ attributeAssignments: [{ attributeId: 9_007_199, value: "x" }] }),
      ),
      400,
      "VALIDATION_ERROR",
    );
    expect(body.errors?.[0]?.path).toBe("attributeAssignments");
    await expectProblem(await getProduct(tenant, id), 404, "NOT_FOUND");
  });

  it("answers 404 for an unknown product and 400 for a malformed id", async () => {
    await expectProblem(await getProduct(tenant, crypto.randomUUID()), 404, "NOT_FOUND");
    await expectProblem(await getProduct(tenant, "not-a-uuid"), 400, "VALIDATION_ERROR");
  });
});

describe("PUT/GET /v2/product-catalog/products/{id}: tenancy", () => {
  it("another winery's product is 404 to read and to write, and stays as it was", async () => {
    const theirs = await storedProduct(other, { nameIt: "Loro" });
    await expectProblem(await getProduct(tenant, theirs.id), 404, "NOT_FOUND");
    await expectProblem(
      await putProduct(tenant, theirs.id, wine({ nameIt: "Mio" })),
      404,
      "NOT_FOUND",
    );
    await expectProblem(
      await putProduct(tenant, theirs.id, fullProduct(crypto.randomUUID())),
      404,
      "NOT_FOUND",
    );
    const after = (await (await getProduct(other, theirs.id)).json()) as Product;
    expect(after).toEqual(theirs);
  });

  it("another winery's product named with its own categories is 404 too, and creates nothing", async () => {
    const theirCategory = crypto.randomUUID();
    const theirs = await storedProduct(other, {
      categories: [{ id: theirCategory, nameIt: "Loro" }],
    });
    // A link that winery has must not answer first (a 409 would tell which categories it uses).
    await expectProblem(
      await putProduct(tenant, theirs.id, wine({ categories: [{ id: theirCategory }] })),
      404,
      "NOT_FOUND",
    );
    // A new category, and nothing else that could fail: the 404 comes from the read-back, so the
    // category must not have been written.
    const newCategory = crypto.randomUUID();
    await expectProblem(
      await putProduct(tenant, theirs.id, wine({ categories: [{ id: newCategory, nameEn: "X" }] })),
      404,
      "NOT_FOUND",
    );
    const created = await testDb().execute(
      sql`select count(*)::int as n from categories where id = ${newCategory}`,
    );
    expect(created.rows[0]).toEqual({ n: 0 });
    expect((await (await getProduct(other, theirs.id)).json()) as Product).toEqual(theirs);
  });

  it("another winery's category, channel or attribute is 400 and changes nothing", async () => {
    const theirs = await storedProduct(other, {
      categories: [{ id: crypto.randomUUID(), nameIt: "Loro" }],
    });
    const theirCategory = theirs.categories[0];
    const [theirChannel] = await tenantChannels(other);
    const cases = [
      ["categories", { categories: [{ id: theirCategory?.id, nameIt: "Presa" }] }],
      ["channels", { channels: [{ wineryChannelId: theirChannel, priceCents: 1 }] }],
    ] as const;
    for (const [path, override] of cases) {
      const body = await expectProblem(
        await putProduct(tenant, crypto.randomUUID(), wine(override)),
        400,
        "VALIDATION_ERROR",
      );
      expect(body.errors?.[0]?.path).toBe(path);
    }
    const after = (await (await getProduct(other, theirs.id)).json()) as Product;
    expect(after.categories[0]?.nameIt).toBe("Loro");
  });

  it("a body wineryId other than the key's is 403", async () => {
    await expectProblem(
      await putProduct(tenant, crypto.randomUUID(), wine({ wineryId: other.wineryId })),
      403,
      "FORBIDDEN",
    );
  });
});
