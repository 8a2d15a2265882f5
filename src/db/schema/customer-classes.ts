import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  doublePrecision,
  integer,
  pgTable,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { idColumn, timestampMs, timestamps } from "./columns";
import { wineries } from "./wineries";

/**
 * Customer classes (wine clubs, trade classes). `classId` is numbered per winery (1, 2, 3, ...)
 * from the winery_counters row 'customer_class', advanced in the INSERT itself.
 */
export const customerClasses = pgTable(
  "customer_classes",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    classId: integer().notNull(),
    className: text().notNull(),
    classType: text().notNull(),
    caseDiscountRate: doublePrecision().notNull().default(0),
    discountRate: doublePrecision().notNull().default(0),
    isActive: boolean().notNull().default(true),
    isPaid: boolean().notNull().default(false),
    price: doublePrecision().notNull().default(0),
    priceType: text().notNull(),
    validityDate: timestampMs(),
    ...timestamps,
  },
  (t) => [
    unique("customer_classes_winery_class_id").on(t.wineryId, t.classId),
    check(
      "customer_classes_rates",
      sql`${t.discountRate} between 0 and 100 and ${t.caseDiscountRate} between 0 and 100`,
    ),
    check(
      "customer_classes_price_type",
      sql`${t.priceType} in ('MONTHLY', 'YEARLY', 'UNA_TANTUM')`,
    ),
  ],
);
