import { z } from "@hono/zod-openapi";
import { explainedIssues } from "../lib/problem";
import { CalendarDate, FreeObject, Int32, Int64, NonNegativeCents, Uuid } from "./common";
import { CategorySchema, ProductSchema } from "./products";

const optional = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** A category is created or updated (by id) with the product that lists it. */
const CategoryInputSchema = CategorySchema.omit({
  categoryId: true,
  wineryId: true,
  productsCount: true,
})
  .partial()
  .required({ id: true })
  .extend({ priority: Int32.optional() })
  .openapi("CategoryInput");

const ChannelInputSchema = z
  .object({
    wineryChannelId: Uuid,
    priceCents: NonNegativeCents,
    active: z.boolean().optional(),
    maxUnitsPerOrder: optional(Int32.min(1)),
  })
  .openapi("ChannelInput");

const AttributeAssignmentInputSchema = z
  .object({
    attributeId: Int64.min(1),
    attributeValueId: Int64.min(1).optional(),
    value: z.string().min(1).max(500).optional(),
  })
  .refine((a) => (a.attributeValueId === undefined) !== (a.value === undefined), {
    message: "give exactly one of attributeValueId and value",
    path: ["attributeValueId"],
  })
  .openapi("AttributeAssignmentInput");

const MetadataInputSchema = z
  .object({
    metadataName: z.string().min(1).max(200),
    metadataValue: optional(z.string().max(10_000)),
    active: z.boolean().optional(),
    validityFrom: optional(CalendarDate),
    validityTo: optional(CalendarDate),
  })
  .refine((m) => m.validityFrom == null || m.validityTo == null || m.validityFrom <= m.validityTo, {
    path: ["validityTo"],
    message: "must not be before validityFrom",
  })
  .openapi("ProductMetadataInput");

const FileMembers = z.object({
  id: Int64.min(1).optional(),
  displayOrder: Int32.optional(),
  flags: optional(z.string().max(500)),
});

/** A file is free-form; the members the service reads are checked, the rest is kept as sent. */
const FileInputSchema = FreeObject.superRefine((file, ctx) => {
  const result = FileMembers.safeParse(file);
  if (result.success) return;
  for (const issue of explainedIssues(result.error)) {
    ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
  }
}).openapi("ProductFileInput", {
  type: "object",
  additionalProperties: true,
  properties: {
    id: { type: "integer", format: "int64", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    displayOrder: {
      type: "integer",
      format: "int32",
      minimum: -(2 ** 31),
      maximum: 2 ** 31 - 1,
    },
    flags: { type: ["string", "null"], maxLength: 500 },
  },
});

/** An array refinement: no two elements share a key. */
const unique =
  <T>(key: (item: T, index: number) => unknown) =>
  (items: T[]) =>
    new Set(items.map(key)).size === items.length;

const productShape = ProductSchema.shape;

/** A product's children: lists in its body, rows of their own tables (not product columns). */
export const PRODUCT_CHILDREN = [
  "categories",
  "channels",
  "attributeAssignments",
  "metadata",
  "files",
] as const;
const NOT_INPUT_COLUMNS: readonly string[] = ["id", ...PRODUCT_CHILDREN];

export const ProductInputSchema = z
  .object(
    Object.fromEntries(
      Object.entries(productShape)
        .filter(([key]) => !NOT_INPUT_COLUMNS.includes(key))
        .map(([key, schema]) => [key, (schema as z.ZodType).optional()]),
    ) as {
      [K in Exclude<
        keyof typeof productShape,
        "id" | (typeof PRODUCT_CHILDREN)[number]
      >]: z.ZodOptional<(typeof productShape)[K]>;
    },
  )
  .extend({
    id: Uuid.nullish().openapi({
      description: "When present (not null), must equal the path's id (400).",
    }),
    categories: z
      .array(CategoryInputSchema)
      .max(100)
      .default([])
      .refine(
        unique((c: CategoryInput) => c.id),
        "lists a category id twice",
      ),
    channels: z
      .array(ChannelInputSchema)
      .max(100)
      .default([])
      .refine(
        (channels) => new Set(channels.map((c) => c.wineryChannelId)).size === channels.length,
        "lists a wineryChannelId twice",
      ),
    attributeAssignments: z.array(AttributeAssignmentInputSchema).max(200).default([]),
    metadata: z.array(MetadataInputSchema).max(200).default([]),
    files: z
      .array(FileInputSchema)
      .max(200)
      .default([])
      .refine(
        unique((f: Record<string, unknown>, i) => (typeof f.id === "number" ? f.id : `new ${i}`)),
        "lists a file id twice",
      ),
  })
  .superRefine((product, ctx) => {
    const { validityFrom: from, validityTo: to } = product;
    if (from != null && to != null && from > to) {
      ctx.addIssue({
        code: "custom",
        path: ["validityTo"],
        message: "must not be before validityFrom",
      });
    }
  })
  .openapi("ProductInput");
export type ProductInput = z.infer<typeof ProductInputSchema>;
export type CategoryInput = z.infer<typeof CategoryInputSchema>;
