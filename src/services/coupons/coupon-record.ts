import { sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import type { Coupon } from "../../schemas/coupons";

type Json = Record<string, unknown>;

export type CouponRow = {
  coupon: Json;
  rules: Json[];
  winery: Json;
  use_count: number;
  email_use_count: number;
};

/**
 * One coupon of the winery by code (case-insensitive), with its rules, its winery, its recorded
 * uses and those of one email (lower(trim)) — one SQL statement.
 */
export function findCouponStatement(
  db: HttpDb,
  wineryId: string,
  code: string,
  email: string | null = null,
) {
  return db.execute<CouponRow>(sql`
    select to_json(c) as coupon,
      (select coalesce(json_agg(to_json(r) order by r.position), '[]')
         from coupon_rules r where r.coupon_id = c.id) as rules,
      json_build_object('id', w.id, 'name', w.name, 'created_at', w.created_at,
        'updated_at', w.updated_at) as winery,
      (select count(*) from coupon_uses u where u.coupon_id = c.id)::int as use_count,
      (select count(*) from coupon_uses u
         where u.coupon_id = c.id and u.email_key = lower(trim(${email}::text)))::int
        as email_use_count
    from coupons c join wineries w on w.id = c.winery_id
    where c.winery_id = ${wineryId} and c.code_key = lower(trim(${code}::text))`);
}

const iso = (value: unknown) => new Date(value as string).toISOString();
const isoOrNull = (value: unknown) => (value == null ? null : iso(value));

export function toCoupon(row: CouponRow): Coupon {
  const c = row.coupon;
  return {
    active: c.active as boolean,
    code: c.code as string,
    couponRules: row.rules.map((r) => ({
      coupon: null,
      createdAt: iso(r.created_at),
      entityId: (r.entity_id ?? null) as string | null,
      entityType: (r.entity_type ?? null) as string | null,
      id: r.id as string,
      rules: (r.rules ?? null) as Json | null,
      updatedAt: iso(r.updated_at),
    })),
    createdAt: iso(c.created_at),
    discountCents: (c.discount_cents ?? null) as number | null,
    discountPercent: (c.discount_percent ?? null) as number | null,
    discountType: c.discount_type as Coupon["discountType"],
    endAt: isoOrNull(c.end_at),
    id: c.id as string,
    minimumOrderCents: (c.minimum_order_cents ?? null) as number | null,
    startAt: isoOrNull(c.start_at),
    type: (c.type ?? null) as string | null,
    updatedAt: iso(c.updated_at),
    useCount: row.use_count,
    useMax: (c.use_max ?? null) as number | null,
    useMaxByEmail: (c.use_max_by_email ?? null) as number | null,
    winery: {
      createdAt: iso(row.winery.created_at),
      id: row.winery.id as string,
      name: row.winery.name as string,
      updatedAt: iso(row.winery.updated_at),
    },
  };
}
