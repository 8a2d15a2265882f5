import { createRoute, z } from "@hono/zod-openapi";
import { jsonRequestBody, jsonResponse } from "../../lib/openapi";
import { errorResponses, readErrorResponses } from "../../schemas/problem";
import { ProductInputSchema } from "../../schemas/product-input";
import {
  ListProductsRequestSchema,
  ProductFileParamsSchema,
  ProductFileSchema,
  ProductIdParamsSchema,
  ProductSchema,
  ProductWineryParamsSchema,
  UpdateFileMetadataRequestSchema,
} from "../../schemas/products";

export const listProductsRoute = createRoute({
  method: "post",
  path: "/product-catalog/products/winery/{wineryId}/query",
  tags: ["Product catalogue"],
  operationId: "listProducts",
  summary: "E10. List products with filters for integration",
  description:
    "The winery's products with their categories, channels, attribute assignments, metadata and files, built by one SQL statement whatever their number, ordered by displayOrder then id; a product in several categories appears once. Filters: `includeInactive` (default false) false hides inactive products; `statuses` (non-empty) keeps products whose status is listed; `categoryId` keeps products in that category; `activeChannelsOnly` (default false) keeps products with an active channel and lists only their active channels. A filter sent as null does not filter, exactly as one left out. A wineryId other than the API key's is 403.",
  request: {
    params: ProductWineryParamsSchema,
    body: jsonRequestBody(ListProductsRequestSchema),
  },
  responses: {
    200: jsonResponse(z.array(ProductSchema), "The products."),
    ...errorResponses("FORBIDDEN"),
  },
});

export const putProductRoute = createRoute({
  method: "put",
  path: "/product-catalog/products/{id}",
  tags: ["Product catalogue"],
  operationId: "putProduct",
  summary: "Create or replace a product",
  description:
    "Creates the product with this id, or replaces the winery's product with it, atomically with its children; answers the stored product as E10 lists it. Fields left out are stored as null (flags take their defaults: active, showPos, showWebsite true; the others false; displayOrder 0). `categories` are upserted by id and linked: a member an entry sends replaces the category's (null clears it, for every product in that category), a member it leaves out keeps the stored value (so `{ \"id\": ... }` alone links an existing category unchanged), and a new category takes null for the members left out (priority 0); `channels` must name sales channels of the winery (one entry per channel); `attributeAssignments` name an attribute of the winery and either an `attributeValueId` of that attribute or a `value` text (created on first use); the product's `channels`, `attributeAssignments` and `metadata` rows are replaced by those sent, each with a new id on every PUT; `files` are free-form objects kept as sent: one carrying the `id` of a file of this product is updated in place and keeps its id, any other is added with a new id, and the product's files not sent are removed. An id of another winery's product is 404; a category, attribute or channel of another winery is 400 naming the field; a body `wineryId` other than the key's is 403; a body `id` other than the path's is 400 (null or absent: the path's); a `validityTo` before `validityFrom` is 400.",
  request: { params: ProductIdParamsSchema, body: jsonRequestBody(ProductInputSchema) },
  responses: {
    200: jsonResponse(ProductSchema, "The stored product."),
    ...errorResponses("FORBIDDEN", "NOT_FOUND"),
  },
});

export const getProductRoute = createRoute({
  method: "get",
  path: "/product-catalog/products/{id}",
  tags: ["Product catalogue"],
  operationId: "getProduct",
  summary: "Read a product",
  description:
    "One product of the winery (inactive ones too) in E10's shape, with every channel. One SQL statement.",
  request: { params: ProductIdParamsSchema },
  responses: {
    200: jsonResponse(ProductSchema, "The product."),
    ...readErrorResponses("NOT_FOUND"),
  },
});

export const updateFileMetadataRoute = createRoute({
  method: "put",
  path: "/product-catalog/products/{id}/files/{fileId}",
  tags: ["Product catalogue"],
  operationId: "updateFileMetadata",
  summary: "E12. Update product file metadata",
  description:
    "Updates displayOrder and flags of a file of a product of the winery, in one statement; fields left out keep their values, and so does `displayOrder: null`; `flags: null` clears the flags. Answers the updated file as E10 lists it (the interface does not show a body): its stored members plus id, productId, displayOrder, flags and updatedAt. A file that is not a file of this product of the winery is 404.",
  request: {
    params: ProductFileParamsSchema,
    body: jsonRequestBody(UpdateFileMetadataRequestSchema),
  },
  responses: {
    200: jsonResponse(ProductFileSchema, "The updated file."),
    ...errorResponses("NOT_FOUND"),
  },
});
