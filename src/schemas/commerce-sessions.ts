import { z } from "@hono/zod-openapi";
import { multiplyCents, PRODUCT_OUT_OF_RANGE } from "../lib/money";
import { Cents, DateTime, FreeObject, Int32, NullableFreeObject, Uuid } from "./common";

const text = (max = 500) => z.string().max(max).nullish();
const uuid = () => Uuid.nullish();

export const CommerceSessionItemInputSchema = z
  .object({
    id: uuid().openapi({ description: "The item's id; a new uuid when absent." }),
    attributes: NullableFreeObject.optional(),
    bookingCompId: text(),
    component: text(),
    editable: z.boolean().nullish(),
    experienceId: uuid(),
    itemType: text(100),
    lineIndex: Int32.nullish(),
    locked: z.boolean().nullish(),
    name: text(),
    productId: text(),
    qty: Int32.min(0).nullish(),
    reservationId: uuid(),
    unitPriceCents: Cents.nullish().openapi({
      description: "With qty, their product must stay within ±(2^53-1) cents (else 400).",
    }),
    vatPercent: Int32.min(0).max(100).nullish(),
  })
  .superRefine((item, ctx) => {
    // decisions.md, "Hostile input": a unit price times its quantity stays a safe amount.
    if (item.unitPriceCents != null && item.qty != null) {
      if (multiplyCents(item.unitPriceCents, item.qty) === undefined) {
        ctx.addIssue({ code: "custom", path: ["unitPriceCents"], message: PRODUCT_OUT_OF_RANGE });
      }
    }
  })
  .openapi("CommerceSessionItemInput");

export const CommerceSessionInputSchema = z
  .object({
    id: uuid().openapi({ description: "When present, must equal the path's sessionId." }),
    cartMode: text(100),
    channel: text(200),
    customName: text(),
    status: text(100),
    contacts: z.array(FreeObject).max(1000).nullish(),
    discounts: NullableFreeObject.optional(),
    metadata: NullableFreeObject.optional(),
    guests: Int32.min(0).nullish(),
    items: z.array(CommerceSessionItemInputSchema).max(1000).nullish().openapi({
      description: "Replaces every stored item; absent or null stores none.",
    }),
    pointOfSaleId: uuid(),
    roomId: uuid(),
    tableId: uuid(),
    wineryId: uuid().openapi({ description: "When present, must be the API key's winery (403)." }),
    sourceExperienceId: uuid(),
    sourceReservationId: uuid(),
    version: Int32.min(0).nullish().openapi({
      description:
        "The version the caller read. When present and the stored session has another one: 409 STALE_UPDATE with currentVersion. Not compared on create.",
    }),
    createdAt: DateTime.nullish().openapi({ description: "Ignored: the server keeps its own." }),
    updatedAt: DateTime.nullish().openapi({ description: "Ignored: the server keeps its own." }),
  })
  .superRefine((session, ctx) => {
    const seen = new Set<string>();
    session.items?.forEach((item, index) => {
      const id = item.id;
      if (id == null) return;
      if (seen.has(id)) {
        ctx.addIssue({ code: "custom", path: ["items", index, "id"], message: "appears twice" });
      }
      seen.add(id);
    });
  })
  .openapi("CommerceSessionInput");

export type CommerceSessionInput = z.infer<typeof CommerceSessionInputSchema>;

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

export const CommerceSessionItemSchema = z
  .object({
    id: Uuid,
    attributes: NullableFreeObject,
    bookingCompId: nullable(z.string()),
    component: nullable(z.string()),
    editable: nullable(z.boolean()),
    experienceId: nullable(Uuid),
    itemType: nullable(z.string()),
    lineIndex: nullable(Int32),
    locked: nullable(z.boolean()),
    name: nullable(z.string()),
    productId: nullable(z.string()),
    qty: nullable(Int32),
    reservationId: nullable(Uuid),
    unitPriceCents: nullable(Cents),
    vatPercent: nullable(Int32),
  })
  .openapi("CommerceSessionItem");

export const CommerceSessionSchema = z
  .object({
    id: Uuid,
    cartMode: nullable(z.string()),
    channel: nullable(z.string()),
    customName: nullable(z.string()),
    status: nullable(z.string()),
    contacts: nullable(z.array(FreeObject)),
    discounts: NullableFreeObject,
    metadata: NullableFreeObject,
    guests: nullable(Int32),
    items: z.array(CommerceSessionItemSchema),
    pointOfSaleId: nullable(Uuid),
    roomId: nullable(Uuid),
    tableId: nullable(Uuid),
    wineryId: Uuid,
    sourceExperienceId: nullable(Uuid),
    sourceReservationId: nullable(Uuid),
    version: Int32.openapi({ description: "1 on create, +1 on every replace." }),
    createdAt: DateTime.openapi({ description: "Set on create; a replace keeps it." }),
    updatedAt: DateTime,
  })
  .openapi("CommerceSession");

export type CommerceSession = z.infer<typeof CommerceSessionSchema>;

export const SessionIdParamsSchema = z.object({
  sessionId: Uuid.openapi({ param: { name: "sessionId", in: "path" } }),
});
