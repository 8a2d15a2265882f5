import { sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { NotFoundError } from "../../lib/errors";
import type { UpdateFileMetadataRequest } from "../../schemas/products";
import { FILE_JSON } from "./product-json";

/**
 * E12. One UPDATE of a file of a product of the winery, answering the file as E10 shows it (JSON
 * text built by Postgres). A file of another product, or of another winery's, is NOT_FOUND.
 * Fields left out keep their stored values, and so does `displayOrder: null`; `flags: null` clears
 * the flags.
 */
export async function updateFileMetadata(
  db: HttpDb,
  wineryId: string,
  ids: { productId: string; fileId: number },
  input: UpdateFileMetadataRequest,
): Promise<string> {
  const result = await db.execute<{ body: string }>(sql`
    update product_files f set
      display_order = ${input.displayOrder == null ? sql`f.display_order` : input.displayOrder},
      flags = ${input.flags === undefined ? sql`f.flags` : input.flags},
      updated_at = now()
    where f.id = ${ids.fileId} and f.product_id = ${ids.productId} and f.winery_id = ${wineryId}
    returning (${sql.raw(FILE_JSON("f"))})::text as body`);
  const body = result.rows[0]?.body;
  if (!body) throw new NotFoundError("File", ids.fileId);
  return body;
}
