import { assertBodyIdIsPathId } from "../../lib/path-id";
import { assertOwnWinery } from "../../lib/tenancy";
import { getProduct, listProducts } from "../../services/catalogue/list-products";
import { putProduct } from "../../services/catalogue/put-product";
import { updateFileMetadata } from "../../services/catalogue/update-file-metadata";
import { jsonText, typedBy } from "./json-text";
import type {
  getProductRoute,
  listProductsRoute,
  putProductRoute,
  updateFileMetadataRoute,
} from "./products.routes";

export const listProductsHandler = typedBy<typeof listProductsRoute>(async (c) => {
  assertOwnWinery(c, c.req.valid("param").wineryId);
  const body = await listProducts(
    c.get("db").http,
    c.get("principal").wineryId,
    c.req.valid("json"),
  );
  return jsonText(c, body);
});

export const putProductHandler = typedBy<typeof putProductRoute>(async (c) => {
  const { id, ...input } = c.req.valid("json");
  const pathId = c.req.valid("param").id;
  assertBodyIdIsPathId(id, pathId);
  const body = await putProduct(c.get("db").http, c.get("principal").wineryId, pathId, input);
  return jsonText(c, body);
});

export const getProductHandler = typedBy<typeof getProductRoute>(async (c) =>
  jsonText(
    c,
    await getProduct(c.get("db").http, c.get("principal").wineryId, c.req.valid("param").id),
  ),
);

export const updateFileMetadataHandler = typedBy<typeof updateFileMetadataRoute>(async (c) => {
  const { id, fileId } = c.req.valid("param");
  const body = await updateFileMetadata(
    c.get("db").http,
    c.get("principal").wineryId,
    { productId: id, fileId },
    c.req.valid("json"),
  );
  return jsonText(c, body);
});
