import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { getCoupon } from "../../services/coupons/get-coupon";
import { putCoupon } from "../../services/coupons/put-coupon";
import { validateCoupon } from "../../services/coupons/validate-coupon";
import type { getCouponRoute, putCouponRoute, validateCouponRoute } from "./coupons.routes";

export const validateCouponHandler: RouteHandler<typeof validateCouponRoute, AppEnv> = async (
  c,
) => {
  const request = c.req.valid("json");
  return c.json(await validateCoupon(c.get("db").http, c.get("principal").wineryId, request), 200);
};

export const putCouponHandler: RouteHandler<typeof putCouponRoute, AppEnv> = async (c) => {
  const coupon = await putCoupon(
    c.get("db").http,
    c.get("principal").wineryId,
    c.req.valid("param").code,
    c.req.valid("json"),
  );
  return c.json(coupon, 200);
};

export const getCouponHandler: RouteHandler<typeof getCouponRoute, AppEnv> = async (c) =>
  c.json(
    await getCoupon(c.get("db").http, c.get("principal").wineryId, c.req.valid("param").code),
    200,
  );
