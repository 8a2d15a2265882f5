import { sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { coupons } from "../../db/schema";
import type { Coupon, CouponInput } from "../../schemas/coupons";
import { findCouponStatement, toCoupon } from "./coupon-record";

const excluded = (column: string) => sql.raw(`excluded."${column}"`);

/**
 * PUT /v2/coupons/{code}: creates or replaces the winery's coupon and all its rules in one round
 * trip (a Neon HTTP batch, one transaction). The upsert on (winery, lower(trim(code))) takes the
 * coupon's row lock, so concurrent replaces apply one after the other and the rules left are
 * exactly those of the last one; the id, createdAt and recorded uses survive a replace.
 */
export async function putCoupon(
  db: HttpDb,
  wineryId: string,
  code: string,
  input: CouponInput,
): Promise<Coupon> {
  const values = {
    wineryId,
    code,
    active: input.active,
    type: input.type ?? null,
    discountType: input.discountType,
    discountPercent: input.discountType === "percent" ? (input.discountPercent ?? null) : null,
    discountCents: input.discountType === "fixed" ? (input.discountCents ?? null) : null,
    startAt: input.startAt ? new Date(input.startAt) : null,
    endAt: input.endAt ? new Date(input.endAt) : null,
    minimumOrderCents: input.minimumOrderCents ?? null,
    useMax: input.useMax ?? null,
    useMaxByEmail: input.useMaxByEmail ?? null,
  };
  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  for (const [key, column] of Object.entries({
    code: "code",
    active: "active",
    type: "type",
    discountType: "discount_type",
    discountPercent: "discount_percent",
    discountCents: "discount_cents",
    startAt: "start_at",
    endAt: "end_at",
    minimumOrderCents: "minimum_order_cents",
    useMax: "use_max",
    useMaxByEmail: "use_max_by_email",
  })) {
    set[key] = excluded(column);
  }
  const couponId = sql`(select id from ${coupons}
    where winery_id = ${wineryId} and code_key = lower(trim(${code}::text)))`;
  const rules = (input.couponRules ?? []).map((rule, position) => ({
    position,
    entity_type: rule.entityType ?? null,
    entity_id: rule.entityId ?? null,
    rules: rule.rules ?? null,
  }));

  const [, , , found] = await db.batch([
    db
      .insert(coupons)
      .values(values)
      .onConflictDoUpdate({ target: [coupons.wineryId, coupons.codeKey], set }),
    db.execute(sql`delete from coupon_rules where coupon_id = ${couponId}`),
    db.execute(sql`
      insert into coupon_rules (winery_id, coupon_id, position, entity_type, entity_id, rules)
      select ${wineryId}, ${couponId}, r.position, r.entity_type, r.entity_id, r.rules
      from jsonb_to_recordset(${JSON.stringify(rules)}::jsonb)
        as r(position int, entity_type text, entity_id text, rules jsonb)`),
    findCouponStatement(db, wineryId, code),
  ]);
  const [row] = found.rows;
  if (!row) throw new Error("coupon upsert left no row");
  return toCoupon(row);
}
