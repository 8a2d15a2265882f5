import { sql } from "drizzle-orm";
import { rowsOf, runAtomically } from "../../db/atomic";
import { postgresError } from "../../db/errors";
import { products } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import { NotFoundError, ValidationError } from "../../lib/errors";
import { type ProductInput, ProductInputSchema } from "../../schemas/product-input";
import { childStatements } from "./product-children";
import { productJsonStatement } from "./product-json";

/** What PUT stores for a flag the body leaves out (a PUT replaces the whole product). */
const PRODUCT_DEFAULTS = {
  active: true,
  displayOrder: 0,
  hasVariants: false,
  inventoryTrackingActive: false,
  isBundle: false,
  isGiftCard: false,
  showPos: true,
  showWebsite: true,
};

/** The body's children, written by childStatements rather than as columns of the product. */
const CHILDREN = ["categories", "channels", "attributeAssignments", "metadata", "files"];

/**
 * Every column field of the body, each null: a PUT replaces the whole product, so a field the
 * body leaves out is stored as null (a flag as its PRODUCT_DEFAULTS value), not kept from before.
 * From the schema's keys, not the body's: Zod leaves an absent optional key out of its output.
 */
const ALL_NULL: Record<string, null> = Object.fromEntries(
  Object.keys(ProductInputSchema.shape)
    .filter((key) => key !== "wineryId" && !CHILDREN.includes(key))
    .map((key) => [key, null]),
);

/**
 * PUT product: creates the product with this id, or replaces the winery's product with it, with
 * its categories (upserted by id), channels, attribute assignments, metadata and files, and reads
 * it back — all in one atomic batch (one round trip on Neon HTTP). Tenancy is held by Postgres:
 * the upsert only updates a row of this winery, and every child points at (winery_id, product_id),
 * so an id of another winery's product fails its foreign key (404), and a category, attribute or
 * sales channel of another winery fails its own (400 naming the field).
 */
export async function putProduct(
  db: AnyDb,
  wineryId: string,
  productId: string,
  input: ProductInput,
): Promise<string> {
  // The path names the product and the key the winery: a body wineryId was checked at the edge.
  const {
    categories,
    channels,
    attributeAssignments,
    metadata,
    files,
    wineryId: _,
    ...rest
  } = input;
  const fields = { ...rest, publishedAt: toDate(rest.publishedAt) };
  const values = { ...ALL_NULL, ...PRODUCT_DEFAULTS, ...defined(fields) };
  let results: unknown[];
  try {
    results = await runAtomically(db, (h) => [
      h
        .insert(products)
        .values({ ...values, id: productId, wineryId })
        .onConflictDoUpdate({
          target: products.id,
          set: { ...values, updatedAt: sql`now()` },
          setWhere: sql`${products.wineryId} = ${wineryId}`,
        }),
      ...childStatements(h, wineryId, productId, {
        categories,
        channels,
        attributeAssignments,
        metadata,
        files,
      }),
      h.execute(productJsonStatement(wineryId, productId)),
    ]);
  } catch (error) {
    throw explain(error, productId) ?? error;
  }
  const body = rowsOf<{ body: string }>(results.at(-1))[0]?.body;
  if (!body) throw new NotFoundError("Product", productId);
  return body;
}

function toDate(value: string | null | undefined): Date | null | undefined {
  return value == null ? value : new Date(value);
}

function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

const FIELD_OF_CONSTRAINT: Record<string, { path: string; message: string }> = {
  product_categories_category_fk: {
    path: "categories",
    message: "a category id belongs to another winery",
  },
  categories_parent_fk: {
    path: "categories",
    message: "parentCategoryId is not a category of this winery",
  },
  attribute_values_attribute_fk: {
    path: "attributeAssignments",
    message: "attributeId is not an attribute of this winery",
  },
  product_attribute_assignments_attribute_fk: {
    path: "attributeAssignments",
    message: "attributeId is not an attribute of this winery",
  },
  product_attribute_assignments_value_fk: {
    path: "attributeAssignments",
    message: "attributeValueId is not a value of that attribute",
  },
};

/** A foreign key that refused the write, said in the interface's terms. */
function explain(error: unknown, productId: string): Error | undefined {
  const pg = postgresError(error);
  if (!pg) return undefined;
  if (pg.code === "23503" && pg.constraint?.endsWith("_product_fk")) {
    return new NotFoundError("Product", productId);
  }
  const field = pg.code === "23503" && pg.constraint && FIELD_OF_CONSTRAINT[pg.constraint];
  if (field) return new ValidationError([field]);
  if (pg.code === "23502" && pg.column === "winery_channel_id") {
    return new ValidationError([
      { path: "channels", message: "wineryChannelId is not a sales channel of this winery" },
    ]);
  }
  return undefined;
}
