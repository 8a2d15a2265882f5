import { z } from "@hono/zod-openapi";
import {
  Cents,
  DateTime,
  Int32,
  Int64,
  NonBlank,
  NonNegativeCents,
  NullableFreeObject,
  SafeString,
  Uuid,
} from "./common";

const text = (max = 200) => z.string().max(max).nullish();

export const CouponCodeParamsSchema = z.object({
  code: SafeString.trim()
    .regex(/\S/, "must not be blank")
    .max(100)
    .openapi({ param: { name: "code", in: "path" }, example: "SUMMER10" }),
});

export const CouponRuleInputSchema = z
  .object({
    entityType: text(100).openapi({
      description: "The sale entity type it admits (case-insensitive); null admits any type.",
    }),
    entityId: text(200).openapi({ description: "The entity id it admits; null admits any id." }),
    rules: NullableFreeObject.optional().openapi({ description: "Free-form, stored as given." }),
  })
  .openapi("CouponRuleInput");

export const CouponInputSchema = z
  .object({
    active: z.boolean().default(true),
    type: text(100).openapi({
      description:
        "The purchase type it is for (e.g. RESERVATION); null fits any. Compared case-insensitively with purchaseType.",
    }),
    discountType: z.enum(["percent", "fixed"]),
    discountPercent: Int32.min(0).max(100).nullish(),
    discountCents: NonNegativeCents.nullish(),
    startAt: DateTime.nullish(),
    endAt: DateTime.nullish(),
    minimumOrderCents: NonNegativeCents.nullish(),
    useMax: Int32.min(0).nullish(),
    useMaxByEmail: Int32.min(0).nullish(),
    couponRules: z.array(CouponRuleInputSchema).max(1000).nullish(),
  })
  .superRefine((c, ctx) => {
    if (c.discountType === "percent" && c.discountPercent == null) {
      ctx.addIssue({
        code: "custom",
        path: ["discountPercent"],
        message: "is required for percent",
      });
    }
    if (c.discountType === "fixed" && c.discountCents == null) {
      ctx.addIssue({ code: "custom", path: ["discountCents"], message: "is required for fixed" });
    }
    if (c.startAt && c.endAt && Date.parse(c.startAt) > Date.parse(c.endAt)) {
      ctx.addIssue({ code: "custom", path: ["endAt"], message: "must not be before startAt" });
    }
  })
  .openapi("CouponInput");

export type CouponInput = z.infer<typeof CouponInputSchema>;

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

export const CouponRuleSchema = z
  .object({
    coupon: z.null().openapi({ description: "Always null here: the rule is inside its coupon." }),
    createdAt: DateTime,
    entityId: nullable(z.string()),
    entityType: nullable(z.string()),
    id: Uuid,
    rules: NullableFreeObject,
    updatedAt: DateTime,
  })
  .openapi("CouponRule");

export const CouponSchema = z
  .object({
    active: z.boolean(),
    code: z.string(),
    couponRules: z.array(CouponRuleSchema),
    createdAt: DateTime,
    discountCents: nullable(Cents),
    discountPercent: nullable(Int32),
    discountType: z.enum(["percent", "fixed"]),
    endAt: nullable(DateTime),
    id: Uuid,
    minimumOrderCents: nullable(Cents),
    startAt: nullable(DateTime),
    type: nullable(z.string()),
    updatedAt: DateTime,
    useCount: Int32.openapi({ description: "Recorded uses so far." }),
    useMax: nullable(Int32),
    useMaxByEmail: nullable(Int32),
    winery: z.object({ createdAt: DateTime, id: Uuid, name: z.string(), updatedAt: DateTime }),
  })
  .openapi("Coupon");

export type Coupon = z.infer<typeof CouponSchema>;

/**
 * A CouponRule a client sends with E5 (ConsumeOrValidateCouponRequest.couponRule): typed as the
 * interface types it, every member optional, then ignored (the stored rules apply). decisions.md
 * enforces types in every field, read or not: a `createdAt` of 2026-02-30 or an `id` that is not a
 * uuid is a 400 naming it, as E3 and E11 answer for the fields they ignore. Its coupon's own
 * couponRules (the interface's recursion) are objects, not typed further.
 */
const sent = <T extends z.ZodType>(schema: T) => schema.nullish();
const CouponAsSentSchema = z
  .object({
    active: sent(z.boolean()),
    code: sent(z.string()),
    couponRules: sent(z.array(NullableFreeObject)),
    createdAt: sent(DateTime),
    discountCents: sent(Int64),
    discountPercent: sent(Int32),
    discountType: sent(z.string()),
    endAt: sent(DateTime),
    id: sent(Uuid),
    minimumOrderCents: sent(Int64),
    startAt: sent(DateTime),
    type: sent(z.string()),
    updatedAt: sent(DateTime),
    useCount: sent(Int32),
    useMax: sent(Int32),
    useMaxByEmail: sent(Int32),
    winery: sent(
      z.object({
        createdAt: sent(DateTime),
        id: sent(Uuid),
        name: sent(z.string()),
        updatedAt: sent(DateTime),
      }),
    ),
  })
  .openapi("CouponAsSent");
const CouponRuleAsSentSchema = z
  .object({
    coupon: sent(CouponAsSentSchema),
    createdAt: sent(DateTime),
    entityId: sent(z.string()),
    entityType: sent(z.string()),
    id: sent(Uuid),
    rules: NullableFreeObject.optional(),
    updatedAt: sent(DateTime),
  })
  .openapi("CouponRuleAsSent", {
    description:
      "A CouponRule as a client may send it: each member optional and type-checked (400 naming it), then ignored.",
  });

export const SaleEntityInputSchema = z
  .object({
    entityId: text(200),
    entityType: text(100),
    quantity: Int32.min(0).nullish().openapi({ description: "Units (default 1)." }),
    amountCentsBeforeDiscount: NonNegativeCents.nullish().openapi({
      description:
        "The entity's amount; when absent (or null), amountCentsPerUnitBeforeDiscount × quantity. One of the two is required: without either, 400 naming amountCentsBeforeDiscount.",
    }),
    amountCentsPerUnitBeforeDiscount: NonNegativeCents.nullish().openapi({
      description:
        "The price of one unit; used when amountCentsBeforeDiscount is absent (one of the two is required).",
    }),
    amountCentsAfterDiscount: Cents.nullish().openapi({ description: "Ignored (computed)." }),
    amountCentsPerUnitAfterDiscount: Cents.nullish().openapi({
      description: "Ignored (computed).",
    }),
    discountCents: Cents.nullish().openapi({ description: "Ignored (computed)." }),
  })
  .superRefine((e, ctx) => {
    if (e.amountCentsBeforeDiscount == null && e.amountCentsPerUnitBeforeDiscount == null) {
      ctx.addIssue({
        code: "custom",
        path: ["amountCentsBeforeDiscount"],
        message: "or amountCentsPerUnitBeforeDiscount is required",
      });
    }
  })
  .openapi("SaleEntityInput");

export const CouponValidationRequestSchema = z
  .object({
    code: NonBlank(100),
    couponRule: sent(CouponRuleAsSentSchema).openapi({
      description: "Type-checked, then ignored: the stored rules apply.",
    }),
    email: z.string().max(320).nullish(),
    purchaseId: text(200),
    purchaseType: text(100),
    saleEntities: z.array(SaleEntityInputSchema).max(1000).nullish(),
    totalAmountCentsBeforeDiscount: NonNegativeCents.nullish(),
    wineryId: Uuid.nullish(),
  })
  .openapi("ConsumeOrValidateCouponRequest");

export type CouponValidationRequest = z.infer<typeof CouponValidationRequestSchema>;

export const SaleEntitySchema = z
  .object({
    amountCentsAfterDiscount: Cents,
    amountCentsBeforeDiscount: Cents,
    amountCentsPerUnitAfterDiscount: Cents,
    amountCentsPerUnitBeforeDiscount: Cents,
    discountCents: Cents,
    entityId: nullable(z.string()),
    entityType: nullable(z.string()),
    quantity: Int32,
  })
  .openapi("SaleEntity");

export type SaleEntity = z.infer<typeof SaleEntitySchema>;

export const CouponUtilizationResultSchema = z
  .object({
    coupon: CouponSchema.nullable().openapi({ description: "Null when no coupon has the code." }),
    couponCode: z.string(),
    discountTotalCents: Cents,
    message: z.string(),
    saleEntities: z.array(SaleEntitySchema),
    success: z.boolean(),
    totalAmountCentsAfterDiscount: Cents,
    totalAmountCentsBeforeDiscount: Cents,
    wineryId: Uuid,
  })
  .openapi("CouponUtilizationResult");

export type CouponUtilizationResult = z.infer<typeof CouponUtilizationResultSchema>;
