import {
  bigint,
  boolean,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { timestampMs, timestamps } from "./columns";
import { products } from "./products";
import { wineries } from "./wineries";

/**
 * Product attributes (grape, vintage, ...) of a winery. `code` is the attribute's identity within
 * its winery (E6 updates by code), and (winery_id, id) is unique so that values and assignments can
 * reference an attribute *of the same winery* through a composite foreign key: tenancy held by
 * Postgres, not by a read before the write.
 */
export const attributes = pgTable(
  "attributes",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    code: text().notNull(),
    names: jsonb().$type<Record<string, string>>().notNull().default({}),
    applicableToTypes: text().array().notNull().default([]),
    displayOrder: integer().notNull().default(0),
    isVisible: boolean().notNull().default(true),
    valueType: text().notNull().default("TEXT"),
    ...timestamps,
  },
  (t) => [
    unique("attributes_winery_code").on(t.wineryId, t.code),
    unique("attributes_winery_id").on(t.wineryId, t.id),
  ],
);

/** The values an attribute takes (Sangiovese, 2019, ...), one row per distinct value. */
export const attributeValues = pgTable(
  "attribute_values",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    wineryId: uuid().notNull(),
    attributeId: bigint({ mode: "number" }).notNull(),
    value: text().notNull(),
    createdAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: "attribute_values_attribute_fk",
      columns: [t.wineryId, t.attributeId],
      foreignColumns: [attributes.wineryId, attributes.id],
    }).onDelete("cascade"),
    unique("attribute_values_attribute_value").on(t.attributeId, t.value),
    unique("attribute_values_attribute_id").on(t.attributeId, t.id),
  ],
);

/**
 * A product's value of an attribute. The composite keys make it impossible to assign another
 * winery's attribute, or a value of a different attribute than the one named.
 */
export const productAttributeAssignments = pgTable(
  "product_attribute_assignments",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    wineryId: uuid().notNull(),
    productId: uuid().notNull(),
    attributeId: bigint({ mode: "number" }).notNull(),
    attributeValueId: bigint({ mode: "number" }).notNull(),
    createdAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: "product_attribute_assignments_attribute_fk",
      columns: [t.wineryId, t.attributeId],
      foreignColumns: [attributes.wineryId, attributes.id],
    }).onDelete("cascade"),
    foreignKey({
      name: "product_attribute_assignments_value_fk",
      columns: [t.attributeId, t.attributeValueId],
      foreignColumns: [attributeValues.attributeId, attributeValues.id],
    }).onDelete("cascade"),
    foreignKey({
      name: "product_attribute_assignments_product_fk",
      columns: [t.wineryId, t.productId],
      foreignColumns: [products.wineryId, products.id],
    }).onDelete("cascade"),
    index("product_attribute_assignments_product_idx").on(t.productId),
  ],
);
