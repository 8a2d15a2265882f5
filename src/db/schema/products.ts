import {
  bigint,
  boolean,
  date,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { idColumn, timestampMs, timestamps } from "./columns";
import { salesChannels, wineries } from "./wineries";

type Translations = Record<string, string>;

/**
 * The catalogue: products and the rows hanging off them. Every child carries `winery_id` and points
 * at its parent through (winery_id, id), so a row can never join a product, category or attribute
 * of another winery, whatever the request says.
 */
export const products = pgTable(
  "products",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    /** The interface's `productId`: an id of the product in the winery's own systems. */
    productId: uuid(),
    variantMasterId: uuid(),
    fiscalNatureId: uuid(),
    pointOfSaleSuiteId: uuid(),
    active: boolean().notNull().default(true),
    status: text(),
    displayStatus: text(),
    typeId: text(),
    sku: text(),
    barcode: text(),
    nameEn: text(),
    nameIt: text(),
    descriptionEn: text(),
    descriptionIt: text(),
    nameTranslationId: text(),
    descriptionTranslationId: text(),
    shortDescriptionTranslationId: text(),
    metaTitleTranslationId: text(),
    metaDescriptionTranslationId: text(),
    posNameTranslationId: text(),
    nameTranslations: jsonb().$type<Translations>(),
    descriptionTranslations: jsonb().$type<Translations>(),
    posNameTranslations: jsonb().$type<Translations>(),
    priceCents: bigint({ mode: "number" }),
    variantMinPriceCents: bigint({ mode: "number" }),
    priceCurrency: text(),
    defaultVatRate: doublePrecision(),
    displayOrder: integer().notNull().default(0),
    inventoryQuantity: integer(),
    orderingAll: integer(),
    orderingCategory: integer(),
    unitsPerCase: integer(),
    variantCount: integer(),
    hasVariants: boolean().notNull().default(false),
    inventoryTrackingActive: boolean().notNull().default(false),
    isBundle: boolean().notNull().default(false),
    isGiftCard: boolean().notNull().default(false),
    showPos: boolean().notNull().default(true),
    showWebsite: boolean().notNull().default(true),
    publishedAt: timestampMs(),
    validityFrom: date({ mode: "string" }),
    validityTo: date({ mode: "string" }),
    weight: doublePrecision(),
    ...timestamps,
  },
  (t) => [
    unique("products_winery_id").on(t.wineryId, t.id),
    // E10 reads a winery's catalogue in this order.
    index("products_winery_display_order_idx").on(t.wineryId, t.displayOrder, t.id),
  ],
);

export const categories = pgTable(
  "categories",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    parentCategoryId: uuid(),
    nameEn: text(),
    nameIt: text(),
    nameTranslationId: text(),
    nameTranslations: jsonb().$type<Translations>(),
    descriptionTranslationId: text(),
    descriptionTranslations: jsonb().$type<Translations>(),
    priority: integer().notNull().default(0),
    ...timestamps,
  },
  (t) => [
    unique("categories_winery_id").on(t.wineryId, t.id),
    foreignKey({
      name: "categories_parent_fk",
      columns: [t.wineryId, t.parentCategoryId],
      foreignColumns: [t.wineryId, t.id],
    }).onDelete("set null"),
  ],
);

export const productCategories = pgTable(
  "product_categories",
  {
    wineryId: uuid().notNull(),
    productId: uuid().notNull(),
    categoryId: uuid().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.productId, t.categoryId] }),
    foreignKey({
      name: "product_categories_product_fk",
      columns: [t.wineryId, t.productId],
      foreignColumns: [products.wineryId, products.id],
    }).onDelete("cascade"),
    foreignKey({
      name: "product_categories_category_fk",
      columns: [t.wineryId, t.categoryId],
      foreignColumns: [categories.wineryId, categories.id],
    }).onDelete("cascade"),
    index("product_categories_category_idx").on(t.categoryId),
  ],
);

/** A product's price and limit on one of the winery's sales channels. */
export const productChannels = pgTable(
  "product_channels",
  {
    id: idColumn(),
    wineryId: uuid().notNull(),
    productId: uuid().notNull(),
    wineryChannelId: uuid()
      .notNull()
      .references(() => salesChannels.id),
    active: boolean().notNull().default(true),
    maxUnitsPerOrder: integer(),
    priceCents: bigint({ mode: "number" }).notNull(),
  },
  (t) => [
    foreignKey({
      name: "product_channels_product_fk",
      columns: [t.wineryId, t.productId],
      foreignColumns: [products.wineryId, products.id],
    }).onDelete("cascade"),
    unique("product_channels_product_channel").on(t.productId, t.wineryChannelId),
  ],
);

export const productMetadata = pgTable(
  "product_metadata",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    wineryId: uuid().notNull(),
    productId: uuid().notNull(),
    metadataName: text().notNull(),
    metadataValue: text(),
    active: boolean().notNull().default(true),
    validityFrom: date({ mode: "string" }),
    validityTo: date({ mode: "string" }),
    updatedAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: "product_metadata_product_fk",
      columns: [t.wineryId, t.productId],
      foreignColumns: [products.wineryId, products.id],
    }).onDelete("cascade"),
    index("product_metadata_product_idx").on(t.productId),
  ],
);

/**
 * Files (images, sheets) of a product. The interface shows them as free-form objects: `data` keeps
 * every member as sent; id, displayOrder and flags are columns because E12 updates them.
 */
export const productFiles = pgTable(
  "product_files",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    wineryId: uuid().notNull(),
    productId: uuid().notNull(),
    displayOrder: integer().notNull().default(0),
    flags: text(),
    data: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps,
  },
  (t) => [
    foreignKey({
      name: "product_files_product_fk",
      columns: [t.wineryId, t.productId],
      foreignColumns: [products.wineryId, products.id],
    }).onDelete("cascade"),
    index("product_files_product_idx").on(t.productId),
  ],
);
