import type { HttpDb } from "../../db/client";
import { NotFoundError } from "../../lib/errors";
import type { ListProductsRequest } from "../../schemas/products";
import { productJsonStatement, productsJsonStatement } from "./product-json";

/** E10: the JSON array text of the winery's products passing the filter. One round trip. */
export async function listProducts(
  db: HttpDb,
  wineryId: string,
  input: ListProductsRequest,
): Promise<string> {
  const result = await db.execute<{ body: string }>(productsJsonStatement(wineryId, input));
  return result.rows[0]?.body ?? "[]";
}

/** One product of the winery as JSON text (inactive ones too). One round trip. */
export async function getProduct(db: HttpDb, wineryId: string, productId: string): Promise<string> {
  const result = await db.execute<{ body: string }>(productJsonStatement(wineryId, productId));
  const body = result.rows[0]?.body;
  if (!body) throw new NotFoundError("Product", productId);
  return body;
}
