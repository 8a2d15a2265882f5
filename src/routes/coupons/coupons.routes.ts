import { createRoute } from "@hono/zod-openapi";
import { jsonRequestBody, jsonResponse } from "../../lib/openapi";
import {
  CouponCodeParamsSchema,
  CouponInputSchema,
  CouponSchema,
  CouponUtilizationResultSchema,
  CouponValidationRequestSchema,
} from "../../schemas/coupons";
import { errorResponses, readErrorResponses } from "../../schemas/problem";

export const validateCouponRoute = createRoute({
  method: "post",
  path: "/coupons/validate",
  tags: ["Coupons"],
  operationId: "validateCoupon",
  summary: "E5. Validate coupon",
  description: [
    "Checks the winery's coupon with this code (case-insensitive) against a purchase and computes the discount. Writes nothing: validation never consumes a use.",
    "A coupon that does not apply is 200 with `success: false`, no discount, and a `message` starting with the first failing reason, checked in this order: NOT_FOUND, INACTIVE, NOT_YET_VALID (now < startAt), EXPIRED (now > endAt), TYPE_MISMATCH (coupon `type` and `purchaseType` both set and different, case-insensitive), MIN_ORDER_NOT_MET (total < minimumOrderCents), USE_MAX_REACHED (recorded uses >= useMax), USE_MAX_BY_EMAIL_REACHED (recorded uses of lower(trim(email)) >= useMaxByEmail; only checked when an email is sent), NOT_APPLICABLE (no eligible entity with quantity > 0 and an amount > 0). A coupon that applies answers `success: true` and a message starting with OK.",
    "Eligibility: a coupon without rules applies to every sale entity; otherwise to the entities matching any rule (entityType case-insensitive, entityId exact; a null part matches anything). Without saleEntities, a coupon without rules applies to the total itself.",
    "Money, integer cents: an entity's amount is amountCentsBeforeDiscount, else amountCentsPerUnitBeforeDiscount × quantity (quantity defaults to 1). Percent: each eligible entity gets round-half-up(amount × percent / 100). Fixed (`discountCents`): capped at the eligible total and spread over the eligible entities in proportion to their amounts by largest remainder, so the parts sum exactly. Entities without units get no discount. Per unit after discount = amount after / quantity, rounded half up (unchanged when the entity has no discount). totalAmountCentsBeforeDiscount defaults to the entities' sum and must not be below it (400); after = before - discountTotalCents.",
    "`couponRule` in the request is ignored (the stored rules apply); the computed members of saleEntities sent in are ignored. `wineryId`, when present, must be the key's winery (403).",
  ].join("\n\n"),
  request: { body: jsonRequestBody(CouponValidationRequestSchema) },
  responses: {
    200: jsonResponse(CouponUtilizationResultSchema, "The outcome, applied or refused."),
    ...errorResponses("FORBIDDEN"),
  },
});

export const putCouponRoute = createRoute({
  method: "put",
  path: "/coupons/{code}",
  tags: ["Coupons"],
  operationId: "putCoupon",
  summary: "Create or replace a coupon",
  description:
    "Not part of the original interface, which has no write for coupons: creates the winery's coupon with this code (matched case-insensitively, stored as written in the path less the white space around it: `%20SP1` is `SP1`, as everywhere a code is matched), or replaces it with its rules, in one transaction. The coupon id, createdAt and its recorded uses survive a replace. `discountType` percent needs `discountPercent` (0..100), fixed needs `discountCents`; the other one is stored as null. Uses are recorded in the coupon_uses table by whatever consumes a coupon (the demo seed records some); `useCount` is their number. The path `/coupons/validate` (lower case) is E5's, which takes POST only: GET or PUT there is 405; a coupon with that code is addressed in another case (`VALIDATE`).",
  request: { params: CouponCodeParamsSchema, body: jsonRequestBody(CouponInputSchema) },
  responses: {
    200: jsonResponse(CouponSchema, "The stored coupon."),
    ...errorResponses(),
  },
});

export const getCouponRoute = createRoute({
  method: "get",
  path: "/coupons/{code}",
  tags: ["Coupons"],
  operationId: "getCoupon",
  summary: "Coupon with its rules and use count",
  description:
    "The winery's coupon with this code (case-insensitive), its rules and `useCount`. The path `/coupons/validate` (lower case) is E5's, which takes POST only: GET or PUT there is 405; a coupon with that code is addressed in another case (`VALIDATE`).",
  request: { params: CouponCodeParamsSchema },
  responses: {
    200: jsonResponse(CouponSchema, "The coupon."),
    ...readErrorResponses("NOT_FOUND"),
  },
});
