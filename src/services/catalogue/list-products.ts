import type { HttpDb } from "../../db/client";
import { rawQuery } from "../../db/raw-batch";
import { NotFoundError } from "../../lib/errors";
import type { ListProductsRequest } from "../../schemas/products";
import { productJsonStatement, productsJsonRaw } from "./product-json";

/** E10: the JSON array text of the winery's products passing the filter. One round trip. */
export async function listProducts(
  db: HttpDb,
  wineryId: string,
  input: ListProductsRequest,
): Promise<string> {
  const [text, parameters] = productsJsonRaw(wineryId, input);
  const rows = await rawQuery(db, text, parameters);
  const body = rows[0]?.body;
  return typeof body === "string" ? body : "[]";
}

/** One product of the winery as JSON text (inactive ones too). One round trip. */
export async function getProduct(db: HttpDb, wineryId: string, productId: string): Promise<string> {
  const result = await db.execute<{ body: string }>(productJsonStatement(wineryId, productId));
  const body = result.rows[0]?.body;
  if (!body) throw new NotFoundError("Product", productId);
  return body;
}
