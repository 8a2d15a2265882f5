import type { HttpDb } from "../../db/client";
import { NotFoundError } from "../../lib/errors";
import type { Coupon } from "../../schemas/coupons";
import { findCouponStatement, toCoupon } from "./coupon-record";

/** GET /v2/coupons/{code}: one round trip; another winery's coupon is NOT_FOUND. */
export async function getCoupon(db: HttpDb, wineryId: string, code: string): Promise<Coupon> {
  const [row] = (await findCouponStatement(db, wineryId, code)).rows;
  if (!row) throw new NotFoundError("Coupon", code);
  return toCoupon(row);
}
