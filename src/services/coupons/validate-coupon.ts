import type { HttpDb } from "../../db/client";
import { type FieldError, ValidationError } from "../../lib/errors";
import { multiplyCents, sumCents } from "../../lib/money";
import type {
  Coupon,
  CouponUtilizationResult,
  CouponValidationRequest,
  SaleEntity,
} from "../../schemas/coupons";
import { type CouponDiscount, entityOutcomes, type MathEntity } from "./coupon-math";
import { findCouponStatement, toCoupon } from "./coupon-record";

/** The stable reasons, in the order they are checked (decisions.md). */
export type CouponRefusal =
  | "NOT_FOUND"
  | "INACTIVE"
  | "NOT_YET_VALID"
  | "EXPIRED"
  | "TYPE_MISMATCH"
  | "MIN_ORDER_NOT_MET"
  | "USE_MAX_REACHED"
  | "USE_MAX_BY_EMAIL_REACHED"
  | "NOT_APPLICABLE";

const REASON_TEXT: Record<CouponRefusal, string> = {
  NOT_FOUND: "no coupon of this winery has this code",
  INACTIVE: "the coupon is not active",
  NOT_YET_VALID: "the coupon's validity has not started",
  EXPIRED: "the coupon's validity has ended",
  TYPE_MISMATCH: "the coupon is not for this purchase type",
  MIN_ORDER_NOT_MET: "the total is below the coupon's minimum order",
  USE_MAX_REACHED: "the coupon has been used as many times as it allows",
  USE_MAX_BY_EMAIL_REACHED: "this email has used the coupon as many times as it allows",
  NOT_APPLICABLE: "no sale entity is eligible for the coupon",
};

type Entity = MathEntity & {
  perUnitCents: number | null;
  entityId: string | null;
  entityType: string | null;
};

/** The sale entities with their amounts resolved; an amount out of the safe range is a 400. */
function resolveEntities(request: CouponValidationRequest, coupon: Coupon | null) {
  const problems: FieldError[] = [];
  const entities: Entity[] = (request.saleEntities ?? []).map((e, index) => {
    const quantity = e.quantity ?? 1;
    let amount = e.amountCentsBeforeDiscount;
    if (amount == null) {
      amount = multiplyCents(e.amountCentsPerUnitBeforeDiscount ?? 0, quantity);
      if (amount === undefined) {
        problems.push({
          path: `saleEntities[${index}].amountCentsPerUnitBeforeDiscount`,
          message: "times quantity is out of range",
        });
      }
    }
    return {
      entityId: e.entityId ?? null,
      entityType: e.entityType ?? null,
      quantity,
      amountCents: amount ?? 0,
      perUnitCents: e.amountCentsPerUnitBeforeDiscount ?? null,
      eligible: isEligible(coupon, e.entityType ?? null, e.entityId ?? null),
    };
  });
  const entitiesTotal = sumCents(entities.map((e) => e.amountCents));
  if (entitiesTotal === undefined) {
    problems.push({ path: "saleEntities", message: "the amounts sum out of range" });
  }
  const total = request.totalAmountCentsBeforeDiscount ?? entitiesTotal ?? 0;
  if (entitiesTotal !== undefined && total < entitiesTotal) {
    problems.push({
      path: "totalAmountCentsBeforeDiscount",
      message: `must not be below the sale entities' sum ${entitiesTotal}`,
    });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return { entities, total };
}

/** No rules: every entity. Otherwise an entity matching any rule (null parts match anything). */
function isEligible(coupon: Coupon | null, type: string | null, id: string | null): boolean {
  const rules = coupon?.couponRules ?? [];
  if (rules.length === 0) return true;
  return rules.some(
    (rule) =>
      (rule.entityType == null || rule.entityType.toLowerCase() === type?.toLowerCase()) &&
      (rule.entityId == null || rule.entityId === id),
  );
}

function refusalOf(
  coupon: Coupon,
  request: CouponValidationRequest,
  counts: { emailUses: number },
  applicable: boolean,
  total: number,
  now: number,
): CouponRefusal | undefined {
  if (!coupon.active) return "INACTIVE";
  if (coupon.startAt && Date.parse(coupon.startAt) > now) return "NOT_YET_VALID";
  if (coupon.endAt && Date.parse(coupon.endAt) < now) return "EXPIRED";
  if (
    coupon.type != null &&
    request.purchaseType != null &&
    coupon.type.toLowerCase() !== request.purchaseType.toLowerCase()
  ) {
    return "TYPE_MISMATCH";
  }
  if (coupon.minimumOrderCents != null && total < coupon.minimumOrderCents) {
    return "MIN_ORDER_NOT_MET";
  }
  if (coupon.useMax != null && coupon.useCount >= coupon.useMax) return "USE_MAX_REACHED";
  if (coupon.useMaxByEmail != null && request.email != null) {
    if (counts.emailUses >= coupon.useMaxByEmail) return "USE_MAX_BY_EMAIL_REACHED";
  }
  if (!applicable) return "NOT_APPLICABLE";
  return undefined;
}

/**
 * E5. One round trip (the coupon with its rules and use counts in one statement), then pure math.
 * Nothing is written: validation never consumes a use.
 */
export async function validateCoupon(
  db: HttpDb,
  wineryId: string,
  request: CouponValidationRequest,
  options: { now?: Date } = {},
): Promise<CouponUtilizationResult> {
  const [row] = (await findCouponStatement(db, wineryId, request.code, request.email ?? null)).rows;
  const coupon = row ? toCoupon(row) : null;
  const { entities, total } = resolveEntities(request, coupon);

  const discount: CouponDiscount =
    coupon?.discountType === "fixed"
      ? { type: "fixed", cents: coupon.discountCents ?? 0 }
      : { type: "percent", percent: coupon?.discountPercent ?? 0 };
  // Without sale entities, a coupon without rules applies to the total itself.
  const base: Entity[] =
    entities.length === 0 && (coupon?.couponRules.length ?? 0) === 0
      ? [
          {
            entityId: null,
            entityType: null,
            quantity: 1,
            amountCents: total,
            perUnitCents: null,
            eligible: true,
          },
        ]
      : entities;
  const applicable = base.some((e) => e.eligible && e.quantity > 0 && e.amountCents > 0);
  const reason = coupon
    ? refusalOf(
        coupon,
        request,
        { emailUses: row?.email_use_count ?? 0 },
        applicable,
        total,
        (options.now ?? new Date()).getTime(),
      )
    : "NOT_FOUND";

  const outcomes = entityOutcomes(base, reason ? { type: "fixed", cents: 0 } : discount);
  const discountTotalCents = outcomes.reduce((sum, o) => sum + o.discountCents, 0);
  const saleEntities: SaleEntity[] =
    entities.length === 0
      ? []
      : entities.map((e, index) => {
          const o = outcomes[index];
          if (!o) throw new Error("an outcome per entity");
          return {
            entityId: e.entityId,
            entityType: e.entityType,
            quantity: e.quantity,
            amountCentsBeforeDiscount: e.amountCents,
            amountCentsPerUnitBeforeDiscount: o.amountCentsPerUnitBeforeDiscount,
            discountCents: o.discountCents,
            amountCentsAfterDiscount: o.amountCentsAfterDiscount,
            amountCentsPerUnitAfterDiscount: o.amountCentsPerUnitAfterDiscount,
          };
        });
  return {
    coupon,
    couponCode: request.code,
    discountTotalCents,
    message: reason ? `${reason}: ${REASON_TEXT[reason]}` : "OK: the coupon applies",
    saleEntities,
    success: reason === undefined,
    totalAmountCentsAfterDiscount: total - discountTotalCents,
    totalAmountCentsBeforeDiscount: total,
    wineryId,
  };
}
