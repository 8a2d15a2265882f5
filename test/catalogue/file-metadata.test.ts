import { beforeAll, describe, expect, it } from "vitest";
import type { Product } from "../../src/schemas/products";
import { api, expectProblem } from "../helpers/api";
import { storedProduct } from "../helpers/catalogue";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
let product: Product;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
  product = await storedProduct(tenant, {
    files: [
      { url: "https://cdn.example.com/a.jpg", alt: "Bottle", displayOrder: 1, flags: "MAIN" },
      { url: "https://cdn.example.com/b.jpg", displayOrder: 2 },
    ],
  });
});

const update = (t: TestTenant, productId: string, fileId: unknown, body: unknown) =>
  api(`/v2/product-catalog/products/${productId}/files/${fileId}`, {
    key: t.apiKey,
    method: "PUT",
    body,
  });
const fileId = (p: Product, i: number) => p.files[i]?.id as number;

describe("E12 PUT /v2/product-catalog/products/{id}/files/{fileId}", () => {
  it("updates displayOrder and flags and answers the file; the product shows it", async () => {
    const id = fileId(product, 0);
    const response = await update(tenant, product.id, id, { displayOrder: 9, flags: "COVER" });
    expect(response.status).toBe(200);
    const file = await response.json();
    expect(file).toMatchObject({
      id,
      productId: product.id,
      displayOrder: 9,
      flags: "COVER",
      url: "https://cdn.example.com/a.jpg",
      alt: "Bottle",
    });
    const read = (await (
      await api(`/v2/product-catalog/products/${product.id}`, { key: tenant.apiKey })
    ).json()) as Product;
    expect(read.files.at(-1)).toEqual(file);
  });

  it("keeps what is left out, clears flags with null, in one round trip", async () => {
    const id = fileId(product, 1);
    const { result, trips } = await countRoundTrips(() =>
      update(tenant, product.id, id, { flags: "GALLERY" }),
    );
    expect(await result.json()).toMatchObject({ displayOrder: 2, flags: "GALLERY" });
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    const cleared = await (await update(tenant, product.id, id, { flags: null })).json();
    expect(cleared).toMatchObject({ displayOrder: 2, flags: null });
  });

  it("keeps displayOrder when it is null, as when it is left out", async () => {
    const p = await storedProduct(tenant, {
      files: [{ url: "https://cdn.example.com/n.jpg", displayOrder: 4, flags: "MAIN" }],
    });
    const flagged = await update(tenant, p.id, fileId(p, 0), {
      displayOrder: null,
      flags: "COVER",
    });
    expect(flagged.status).toBe(200);
    expect(await flagged.json()).toMatchObject({ displayOrder: 4, flags: "COVER" });
    const kept = await update(tenant, p.id, fileId(p, 0), { displayOrder: null });
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ displayOrder: 4, flags: "COVER" });
  });

  it.each([
    ["displayOrder", { displayOrder: 1.5 }],
    ["displayOrder", { displayOrder: "4" }],
    ["flags", { flags: 3 }],
  ])("names the invalid field %s", async (path, body) => {
    const problem = await expectProblem(
      await update(tenant, product.id, fileId(product, 0), body),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("is 400 for malformed ids and 404 for a file of another product or unknown", async () => {
    await expectProblem(await update(tenant, product.id, "x", {}), 400, "VALIDATION_ERROR");
    await expectProblem(await update(tenant, "x", 1, {}), 400, "VALIDATION_ERROR");
    const another = await storedProduct(tenant, {
      files: [{ url: "https://cdn.example.com/c.jpg" }],
    });
    await expectProblem(await update(tenant, product.id, fileId(another, 0), {}), 404, "NOT_FOUND");
    await expectProblem(await update(tenant, product.id, 9_007_199_254_740, {}), 404, "NOT_FOUND");
  });

  it("another winery's file is 404 and stays as it was", async () => {
    const theirs = await storedProduct(other, {
      files: [{ url: "https://cdn.example.com/t.jpg", flags: "MAIN" }],
    });
    await expectProblem(
      await update(tenant, theirs.id, fileId(theirs, 0), { flags: "X" }),
      404,
      "NOT_FOUND",
    );
    const read = (await (
      await api(`/v2/product-catalog/products/${theirs.id}`, { key: other.apiKey })
    ).json()) as Product;
    expect(read.files[0]?.flags).toBe("MAIN");
  });
});
