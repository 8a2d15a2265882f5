import { z } from "@hono/zod-openapi";
import {
  CalendarDate,
  DateTime,
  FreeObject,
  Int32,
  Int64,
  Int64Id,
  keyLength,
  NonNegativeCents,
  ownKeysRecord,
  Uuid,
} from "./common";

const Text = z.string().max(10_000);
const ShortText = z.string().max(500);
const Translations = ownKeysRecord(z.string().min(1).max(35), Text).openapi({
  description: "Text by language key (it, en, de, ...).",
  ...keyLength(1, 35),
});
const Rate = z.number().min(0).max(100);

// ---- answers -------------------------------------------------------------------------------

export const CategorySchema = z
  .object({
    id: Uuid,
    categoryId: z.object({ id: Uuid }).openapi({ description: "The category's own id, wrapped." }),
    wineryId: Uuid,
    parentCategoryId: Uuid.nullable(),
    nameEn: z.string().nullable(),
    nameIt: z.string().nullable(),
    nameTranslationId: z.string().nullable(),
    nameTranslations: Translations.nullable(),
    descriptionTranslationId: z.string().nullable(),
    descriptionTranslations: Translations.nullable(),
    priority: Int32,
    productsCount: Int32.openapi({ description: "Products of the winery in this category." }),
  })
  .openapi("Category");

export const ChannelSchema = z
  .object({
    id: Uuid,
    wineryChannelId: Uuid,
    active: z.boolean(),
    maxUnitsPerOrder: Int32.nullable(),
    priceCents: NonNegativeCents,
  })
  .openapi("Channel");

export const AttributeAssignmentSchema = z
  .object({
    id: Int64,
    productId: Uuid,
    attributeId: Int64,
    attributeValueId: Int64,
    createdAt: DateTime,
  })
  .openapi("AttributeAssignment");

export const ProductMetadataSchema = z
  .object({
    id: Int64,
    productId: Uuid,
    metadataName: z.string(),
    metadataValue: z.string().nullable(),
    active: z.boolean(),
    validityFrom: CalendarDate.nullable(),
    validityTo: CalendarDate.nullable(),
    updatedAt: DateTime,
  })
  .openapi("ProductMetadata");

export const ProductFileSchema = FreeObject.openapi("ProductFile", {
  type: "object",
  additionalProperties: true,
  description:
    "Every member stored with the file, plus `id` (int64), `productId`, `displayOrder` (int32), `flags` (string or null) and `updatedAt`.",
  properties: {
    id: { type: "integer", format: "int64" },
    productId: { type: "string", format: "uuid" },
    displayOrder: { type: "integer", format: "int32" },
    flags: { type: ["string", "null"] },
    updatedAt: { type: "string", format: "date-time" },
  },
  required: ["id", "productId", "displayOrder", "flags", "updatedAt"],
});

const productFields = {
  productId: Uuid.nullable().openapi({
    description: "Stored as given: a reference the service does not resolve or check.",
  }),
  variantMasterId: Uuid.nullable().openapi({
    description:
      "Stored as given: a reference the service does not resolve or check (not required to name a product of this winery).",
  }),
  fiscalNatureId: Uuid.nullable(),
  pointOfSaleSuiteId: Uuid.nullable(),
  status: ShortText.nullable(),
  displayStatus: ShortText.nullable(),
  typeId: ShortText.nullable(),
  sku: ShortText.nullable(),
  barcode: ShortText.nullable(),
  nameEn: ShortText.nullable(),
  nameIt: ShortText.nullable(),
  descriptionEn: Text.nullable(),
  descriptionIt: Text.nullable(),
  nameTranslationId: ShortText.nullable(),
  descriptionTranslationId: ShortText.nullable(),
  shortDescriptionTranslationId: ShortText.nullable(),
  metaTitleTranslationId: ShortText.nullable(),
  metaDescriptionTranslationId: ShortText.nullable(),
  posNameTranslationId: ShortText.nullable(),
  nameTranslations: Translations.nullable(),
  descriptionTranslations: Translations.nullable(),
  posNameTranslations: Translations.nullable(),
  priceCents: NonNegativeCents.nullable(),
  variantMinPriceCents: NonNegativeCents.nullable(),
  priceCurrency: z.string().max(3).nullable(),
  defaultVatRate: Rate.nullable(),
  inventoryQuantity: Int32.nullable(),
  orderingAll: Int32.nullable(),
  orderingCategory: Int32.nullable(),
  unitsPerCase: Int32.nullable(),
  variantCount: Int32.nullable(),
  publishedAt: DateTime.nullable(),
  validityFrom: CalendarDate.nullable(),
  validityTo: CalendarDate.nullable(),
  weight: z.number().min(0).max(1e9).nullable(),
};

const productFlags = {
  active: z.boolean(),
  displayOrder: Int32,
  hasVariants: z.boolean(),
  inventoryTrackingActive: z.boolean(),
  isBundle: z.boolean(),
  isGiftCard: z.boolean(),
  showPos: z.boolean(),
  showWebsite: z.boolean(),
};

export const ProductSchema = z
  .object({
    id: Uuid,
    wineryId: Uuid,
    ...productFields,
    ...productFlags,
    categories: z.array(CategorySchema),
    channels: z.array(ChannelSchema),
    attributeAssignments: z.array(AttributeAssignmentSchema),
    metadata: z.array(ProductMetadataSchema),
    files: z.array(ProductFileSchema),
  })
  .openapi("ProductCatalogProduct");
export type Product = z.infer<typeof ProductSchema>;

// ---- requests ------------------------------------------------------------------------------

// Every filter takes null as not filtering, exactly as if left out (generated clients send a null
// for each unset field).
export const ListProductsRequestSchema = z
  .object({
    includeInactive: z.boolean().nullish().default(false),
    activeChannelsOnly: z.boolean().nullish().default(false),
    categoryId: Uuid.nullish(),
    statuses: z.array(ShortText).max(100).nullish(),
  })
  .openapi("ListProductsRequest");
export type ListProductsRequest = z.infer<typeof ListProductsRequestSchema>;

export const ProductWineryParamsSchema = z.object({
  wineryId: Uuid.openapi({ param: { name: "wineryId", in: "path" } }),
});
export const ProductIdParamsSchema = z.object({
  id: Uuid.openapi({ param: { name: "id", in: "path" } }),
});

export const UpdateFileMetadataRequestSchema = z
  .object({
    // null keeps the stored order, as left out does; flags null clears the flags.
    displayOrder: Int32.nullish(),
    flags: z.string().max(500).nullable().optional(),
  })
  .openapi("UpdateFileMetadataRequest");
export type UpdateFileMetadataRequest = z.infer<typeof UpdateFileMetadataRequestSchema>;

export const ProductFileParamsSchema = z.object({
  id: Uuid.openapi({ param: { name: "id", in: "path" } }),
  fileId: Int64Id.openapi({ param: { name: "fileId", in: "path" } }),
});
