import { type SQL, sql } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import { NeonHttpDatabase } from "drizzle-orm/neon-http";
import { rowsOf, runAtomically } from "../../db/atomic";
import type { HttpDb } from "../../db/client";
import { postgresError } from "../../db/errors";
import { columnList, rowJson } from "../../db/json-row";
import { type RawStatement, rawBatch, renderedOnce } from "../../db/raw-batch";
import type { AnyDb } from "../../db/types";
import { NotFoundError, ValidationError } from "../../lib/errors";
import {
  PRODUCT_CHILDREN,
  type ProductInput,
  ProductInputSchema,
} from "../../schemas/product-input";
import { CHILD_PARAMS, type ChildParams, childParams, childTemplates } from "./product-children";
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

/**
 * Every column field of the body, each null: a PUT replaces the whole product, so a field the
 * body leaves out is stored as null (a flag as its PRODUCT_DEFAULTS value), not kept from before.
 * From the schema's keys, not the body's: Zod leaves an absent optional key out of its output.
 */
const ALL_NULL: Record<string, null> = Object.fromEntries(
  Object.keys(ProductInputSchema.shape)
    .filter(
      (key) =>
        key !== "id" &&
        key !== "wineryId" &&
        !(PRODUCT_CHILDREN as readonly string[]).includes(key),
    )
    .map((key) => [key, null]),
);

/** The product's columns that a PUT writes: every column field of the body. */
const PRODUCT_COLUMNS = Object.keys(ALL_NULL);

/** Every value PUT's statements bind: the children's, and the product row as one JSON text. */
const PUT_PARAMS = [...CHILD_PARAMS, "product"] as const;
type PutParams = ChildParams & { product: unknown };

/**
 * PUT's statements, of fixed text whatever the body (every value a parameter, the row as one
 * jsonb parameter read by jsonb_populate_record): the upsert of the product, which updates only a
 * row of this winery (setting every column, so a replace clears what the body left out), the
 * children's (product-children.ts), and the stored product's document (GET's).
 */
function putTemplates(p: PutParams): SQL[] {
  const set = PRODUCT_COLUMNS.map((c) => `${toSnakeCase(c)} = excluded.${toSnakeCase(c)}`);
  return [
    sql`insert into products (id, winery_id, ${sql.raw(columnList(PRODUCT_COLUMNS))})
      select ${p.productId}, ${p.wineryId}, ${sql.raw(columnList(PRODUCT_COLUMNS, "r."))}
      from jsonb_populate_record(null::products, ${p.product}::jsonb) r
      on conflict (id) do update set ${sql.raw(set.join(", "))}, updated_at = now()
      where products.winery_id = ${p.wineryId}`,
    ...childTemplates(p),
    productJsonStatement(p.wineryId, p.productId),
  ];
}

/** putTemplates rendered once per isolate, statement by statement (renderedOnce). */
let renderedPut: ((values: PutParams) => RawStatement)[] | undefined;

function putStatements(p: PutParams): RawStatement[] {
  renderedPut ??= putTemplates(p).map((_, i) =>
    renderedOnce(PUT_PARAMS, (m) => putTemplates(m)[i] as SQL),
  );
  return renderedPut.map((render) => render(p));
}

/**
 * PUT product: creates the product with this id, or replaces the winery's product with it, with
 * its categories (upserted by id, members left out kept), channels, attribute assignments, metadata and files, and reads
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
  const p: PutParams = {
    ...childParams(wineryId, productId, {
      categories,
      channels,
      attributeAssignments,
      metadata,
      files,
    }),
    product: JSON.stringify(rowJson(values, PRODUCT_COLUMNS)),
  };
  for (let attempt = 1; ; attempt++) {
    let body: unknown;
    try {
      if (db instanceof NeonHttpDatabase) {
        // One HTTP batch of fixed text: one round trip, one transaction.
        body = (await rawBatch(db as HttpDb, putStatements(p))).at(-1)?.[0]?.body;
      } else {
        const [first, ...more] = putTemplates(p);
        const results = await runAtomically(db, (h) => [
          h.execute(first as SQL),
          ...more.map((statement) => h.execute(statement)),
        ]);
        body = rowsOf<{ body?: unknown }>(results.at(-1))[0]?.body;
      }
    } catch (error) {
      if (attempt < MAX_ATTEMPTS && lostCreateRace(error)) continue;
      throw explain(error, productId) ?? error;
    }
    if (typeof body !== "string") throw new NotFoundError("Product", productId);
    return body;
  }
}

/**
 * Attempts of one PUT: the first, and again after each lost race to create a row or a deadlock
 * (each run is one transaction, rolled back whole, so running it again writes nothing twice).
 */
const MAX_ATTEMPTS = 3;

/**
 * Postgres's deadlock_detected: it broke a cycle of waits by aborting this transaction. The same
 * race as lostCreateRace's, when each insert has found the other's entry in the primary key: one
 * waits on the other's speculative insert there, while the other waits on the first's entry in
 * the second unique index (test/catalogue/products.test.ts, eight simultaneous creates). Run
 * again, the upsert finds the committed row.
 */
const DEADLOCK = "40P01";

/**
 * The unique (winery_id, id) of products and categories, which their children's foreign keys
 * reference, beside the primary key that the upserts' ON CONFLICT (id) arbitrates on.
 */
const WINERY_ID_UNIQUES = new Set(["products_winery_id", "categories_winery_id"]);

/**
 * Whether the batch lost a race to create a product or category that a concurrent PUT created
 * with the same id: a unique violation, or the deadlock (DEADLOCK) the same race can end in. Two
 * inserts of one new id can both pass ON CONFLICT's check before either has indexed its row;
 * Postgres then settles the arbiter (the primary key) by retrying the later insert as an update,
 * but the other unique index refuses it (23505) once the first commits. Run again, the upsert
 * finds the committed row and updates it, as if the two had come in turn.
 */
function lostCreateRace(error: unknown): boolean {
  const pg = postgresError(error);
  if (pg?.code === DEADLOCK) return true;
  return (
    pg?.code === "23505" && pg.constraint !== undefined && WINERY_ID_UNIQUES.has(pg.constraint)
  );
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
    message:
      "a category id that is not one of this winery's and cannot be given to a new category: use another id",
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
