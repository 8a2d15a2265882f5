import { relations, type SQL, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { idColumn, timestampMs, timestamps } from "./columns";
import { orders } from "./orders";
import { wineries } from "./wineries";

/**
 * Coupons of a winery (E5, PUT/GET /v2/coupons/{code}). The code matches case-insensitively within
 * the winery: `codeKey` (lower(trim(code))) carries the unique key.
 */
export const coupons = pgTable(
  "coupons",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    code: text().notNull(),
    codeKey: text()
      .notNull()
      .generatedAlwaysAs((): SQL => sql`lower(trim(${coupons.code}))`),
    active: boolean().notNull(),
    type: text(),
    /** `percent` (discountPercent) or `fixed` (discountCents). */
    discountType: text().notNull(),
    discountPercent: integer(),
    discountCents: bigint({ mode: "number" }),
    startAt: timestampMs(),
    endAt: timestampMs(),
    minimumOrderCents: bigint({ mode: "number" }),
    useMax: integer(),
    useMaxByEmail: integer(),
    ...timestamps,
  },
  (t) => [
    unique("coupons_winery_code_key").on(t.wineryId, t.codeKey),
    check(
      "coupons_discount",
      sql`(${t.discountType} = 'percent' and ${t.discountPercent} between 0 and 100)
        or (${t.discountType} = 'fixed' and ${t.discountCents} >= 0)`,
    ),
  ],
);

/** Rules restricting which sale entities a coupon applies to (none: every entity). */
export const couponRules = pgTable(
  "coupon_rules",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    couponId: uuid()
      .notNull()
      .references(() => coupons.id, { onDelete: "cascade" }),
    position: integer().notNull(),
    entityType: text(),
    entityId: text(),
    rules: jsonb().$type<Record<string, unknown>>(),
    ...timestamps,
  },
  (t) => [index("coupon_rules_coupon_idx").on(t.couponId, t.position)],
);

/**
 * Recorded uses of a coupon: what `useMax` and `useMaxByEmail` count. Validation (E5) never writes
 * here; a use is recorded by whatever consumes the coupon (an order naming it, the demo seed).
 */
export const couponUses = pgTable(
  "coupon_uses",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    couponId: uuid()
      .notNull()
      .references(() => coupons.id, { onDelete: "cascade" }),
    email: text(),
    emailKey: text().generatedAlwaysAs((): SQL => sql`lower(trim(${couponUses.email}))`),
    orderId: bigint({ mode: "number" }).references(() => orders.id),
    purchaseId: text(),
    usedAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [index("coupon_uses_coupon_email_idx").on(t.couponId, t.emailKey)],
);

export const couponsRelations = relations(coupons, ({ many }) => ({
  couponRules: many(couponRules),
}));

export const couponRulesRelations = relations(couponRules, ({ one }) => ({
  coupon: one(coupons, { fields: [couponRules.couponId], references: [coupons.id] }),
}));
