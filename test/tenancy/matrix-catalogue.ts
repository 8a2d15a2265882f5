import { and, eq } from "drizzle-orm";
import { expect } from "vitest";
import { attributes } from "../../src/db/schema";
import type { CreationResponse } from "../../src/schemas/attributes";
import type { CustomerClass } from "../../src/schemas/customer-classes";
import { api } from "../helpers/api";
import { storedProduct, wine } from "../helpers/catalogue";
import { testDb } from "../helpers/db";
import type { TestTenant } from "../helpers/factories";
import { type MatrixEntry, okJson, readOk, record, unique } from "./matrix-entry";

async function productOfA(a: TestTenant) {
  const product = await storedProduct(a, {
    nameIt: `Anfora ${unique()}`,
    files: [{ url: "https://cdn.example.com/a.jpg", displayOrder: 1 }],
  });
  const fileId = record(product.files[0]).id;
  return {
    ids: { productId: product.id, fileId: String(fileId) },
    marks: [product.id, product.sku ?? "none", product.nameIt ?? "none"],
  };
}

async function attributeOfA(a: TestTenant) {
  const code = `a-grape-${unique()}`;
  const response = await api("/v2/product-catalog/attributes", {
    key: a.apiKey,
    body: { code, names: { it: "Vitigno" }, isVisible: true },
  });
  const { id } = await okJson<CreationResponse>(response);
  return { ids: { attributeId: id, code } };
}

const attributeRow = (ids: { attributeId?: string }, a: TestTenant) =>
  testDb()
    .select()
    .from(attributes)
    .where(and(eq(attributes.wineryId, a.wineryId), eq(attributes.id, Number(ids.attributeId))));

const wineClub = {
  className: "Club Brunello",
  classType: "WINE_CLUB",
  discountRate: 10,
  isActive: true,
  price: 240,
  priceType: "YEARLY",
};

async function classOf(t: TestTenant) {
  const className = `Club ${unique()}`;
  const response = await api("/v2/customerclass", {
    key: t.apiKey,
    body: { ...wineClub, className },
  });
  const created = await okJson<CustomerClass>(response, 201);
  return { ids: { classId: created.id, wineryId: t.wineryId }, marks: [className] };
}

const productPath = (id = "") => `/v2/product-catalog/products/${id}`;

export const catalogue: MatrixEntry[] = [
  {
    operation: "GET /api/v2/product-catalog/products/{id}",
    case: "A's product id is 404",
    arrangeA: productOfA,
    requestAsB: (ids) => ({ path: productPath(ids.productId) }),
    expected: 404,
  },
  {
    operation: "PUT /api/v2/product-catalog/products/{id}",
    case: "A's product id is 404 and the product is unchanged",
    arrangeA: productOfA,
    requestAsB: (ids) => ({ path: productPath(ids.productId), method: "PUT", body: wine() }),
    expected: 404,
    readAsA: (ids, a) => readOk(a, productPath(ids.productId)),
  },
  {
    operation: "PUT /api/v2/product-catalog/products/{id}",
    case: "A's wineryId in the body is 403",
    arrangeA: async (a) => ({ ids: { wineryId: a.wineryId } }),
    requestAsB: (ids) => ({
      path: productPath(crypto.randomUUID()),
      method: "PUT",
      body: wine({ wineryId: ids.wineryId }),
    }),
    expected: 403,
  },
  {
    operation: "PUT /api/v2/product-catalog/products/{id}",
    case: "A's category id in B's product is 400 naming categories; A's category is unchanged",
    arrangeA: async (a) => {
      const nameIt = `Rossi ${unique()}`;
      const product = await storedProduct(a, { categories: [{ id: crypto.randomUUID(), nameIt }] });
      const categoryId = record(product.categories[0]).id as string;
      return { ids: { productId: product.id, categoryId }, marks: [nameIt] };
    },
    requestAsB: (ids) => ({
      path: productPath(crypto.randomUUID()),
      method: "PUT",
      body: wine({ categories: [{ id: ids.categoryId, nameIt: "Renamed by B" }] }),
    }),
    expected: 400,
    checkAnswer: (body) =>
      expect(record(body).errors).toEqual([expect.objectContaining({ path: "categories" })]),
    readAsA: (ids, a) => readOk(a, productPath(ids.productId)),
  },
  {
    operation: "PUT /api/v2/product-catalog/products/{id}/files/{fileId}",
    case: "A's product and file ids are 404 and the file is unchanged",
    arrangeA: productOfA,
    requestAsB: (ids) => ({
      path: `${productPath(ids.productId)}/files/${ids.fileId}`,
      method: "PUT",
      body: { displayOrder: 9, flags: "B" },
    }),
    expected: 404,
    readAsA: (ids, a) => readOk(a, productPath(ids.productId)),
  },
  {
    operation: "PUT /api/v2/product-catalog/products/{id}/files/{fileId}",
    case: "A's file id under B's own product is 404 and the file is unchanged",
    arrangeA: productOfA,
    requestAsB: async (ids, b) => ({
      path: `${productPath((await storedProduct(b)).id)}/files/${ids.fileId}`,
      method: "PUT",
      body: { displayOrder: 9, flags: "B" },
    }),
    expected: 404,
    readAsA: (ids, a) => readOk(a, productPath(ids.productId)),
  },
  {
    operation: "POST /api/v2/product-catalog/products/winery/{wineryId}/query",
    case: "A's wineryId in the path is 403",
    arrangeA: async (a) => ({ ids: { wineryId: a.wineryId } }),
    requestAsB: (ids) => ({ path: `${productPath()}winery/${ids.wineryId}/query`, body: {} }),
    expected: 403,
  },
  {
    operation: "POST /api/v2/product-catalog/products/winery/{wineryId}/query",
    case: "B's own list holds none of A's products",
    arrangeA: productOfA,
    requestAsB: (_, b) => ({
      path: `${productPath()}winery/${b.wineryId}/query`,
      body: { includeInactive: true },
    }),
    expected: 200,
  },
  {
    operation: "POST /api/v2/product-catalog/attributes",
    case: "A's attributeId is 404 and the attribute is unchanged",
    arrangeA: attributeOfA,
    requestAsB: (ids) => ({
      path: "/v2/product-catalog/attributes",
      body: { attributeId: Number(ids.attributeId), code: `b-${unique()}`, isVisible: false },
    }),
    expected: 404,
    readAsA: attributeRow,
  },
  {
    // Codes are unique per winery: B's upsert of A's code makes B's own attribute.
    operation: "POST /api/v2/product-catalog/attributes",
    case: "A's code makes B's own attribute; A's is unchanged",
    arrangeA: attributeOfA,
    requestAsB: (ids) => ({
      path: "/v2/product-catalog/attributes",
      body: { code: ids.code, names: { it: "B" }, isVisible: false },
    }),
    expected: 200,
    checkAnswer: (body, ids) =>
      expect(body).toMatchObject({
        status: "CREATED",
        id: expect.not.stringMatching(`^${ids.attributeId}$`),
      }),
    readAsA: attributeRow,
  },
  {
    operation: "POST /api/v2/product-catalog/attributes/{id}/toggle-visibility",
    case: "A's attribute id is 404 and its visibility is unchanged",
    arrangeA: attributeOfA,
    requestAsB: (ids) => ({
      path: `/v2/product-catalog/attributes/${ids.attributeId}/toggle-visibility`,
      body: { isVisible: false },
    }),
    expected: 404,
    readAsA: attributeRow,
  },
  {
    operation: "POST /api/v2/customerclass",
    case: "A's wineryId in the body is 403",
    arrangeA: async (a) => ({ ids: { wineryId: a.wineryId } }),
    requestAsB: (ids) => ({
      path: "/v2/customerclass",
      body: { ...wineClub, wineryId: ids.wineryId },
    }),
    expected: 403,
  },
  {
    operation: "GET /api/v2/customerclass/{id}",
    case: "A's class id is 404",
    arrangeA: classOf,
    requestAsB: (ids) => ({ path: `/v2/customerclass/${ids.classId}` }),
    expected: 404,
  },
  {
    operation: "PUT /api/v2/customerclass/{id}",
    case: "A's class id is 404 and the class is unchanged",
    arrangeA: classOf,
    requestAsB: (ids) => ({
      path: `/v2/customerclass/${ids.classId}`,
      method: "PUT",
      body: { ...wineClub, className: "Taken by B" },
    }),
    expected: 404,
    readAsA: (ids, a) => readOk(a, `/v2/customerclass/${ids.classId}`),
  },
  {
    operation: "PUT /api/v2/customerclass/{id}",
    case: "A's wineryId in the body of B's own class is 403",
    arrangeA: async (a) => ({ ids: { wineryId: a.wineryId } }),
    requestAsB: async (ids, b) => ({
      path: `/v2/customerclass/${(await classOf(b)).ids.classId}`,
      method: "PUT",
      body: { ...wineClub, wineryId: ids.wineryId },
    }),
    expected: 403,
  },
];
