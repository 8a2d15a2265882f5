import { z } from "@hono/zod-openapi";
import { DateTime, Int32, Int64, Int64Id, keyLength, NonBlank, ownKeysRecord } from "./common";

const isObject = (value: unknown): value is { attributeId?: unknown; code?: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const Names = ownKeysRecord(z.string().min(1).max(35), z.string().max(500)).openapi({
  description: "The attribute's name by language key (it, en, ...).",
  example: { it: "Vitigno", en: "Grape" },
  ...keyLength(1, 35),
});

// Every field takes null as "not given", exactly as if left out (generated clients send a null for
// each unset field): no field of an attribute can be cleared.
export const UpsertAttributeRequestSchema = z
  .object({
    attributeId: Int64.min(1).nullish(),
    code: NonBlank(100).nullish().openapi({
      description:
        "The attribute's code, unique in the winery. Required without `attributeId` (it finds or creates the attribute); with `attributeId`, optional: present renames the attribute, absent or null keeps its code.",
      example: "grape",
    }),
    names: Names.nullish(),
    applicableToTypes: z.array(z.string().min(1).max(100)).max(100).nullish(),
    displayOrder: Int32.nullish(),
    isVisible: z.boolean().nullish(),
    valueType: z.string().min(1).max(50).nullish().openapi({ example: "TEXT" }),
  })
  // `when` runs the check even when another field failed, so `{}` and `{ names: 5 }` both name `code`.
  .refine((r) => r.attributeId != null || r.code != null, {
    path: ["code"],
    message: "is required without attributeId",
    when: (payload) => isObject(payload.value),
  })
  .openapi("UpsertAttributeRequest");
export type UpsertAttributeRequest = z.infer<typeof UpsertAttributeRequestSchema>;

export const CreationResponseSchema = z
  .object({
    id: z
      .string()
      .openapi({ description: "The attribute's id (int64) as a string.", example: "42" }),
    message: z.string(),
    status: z.enum(["CREATED", "UPDATED"]),
  })
  .openapi("CreationResponse");
export type CreationResponse = z.infer<typeof CreationResponseSchema>;

export const AttributeSchema = z
  .object({
    id: Int64,
    code: z.string(),
    names: z.record(z.string(), z.string()),
    applicableToTypes: z.array(z.string()),
    displayOrder: Int32,
    isVisible: z.boolean(),
    valueType: z.string(),
    updatedAt: DateTime,
  })
  .openapi("Attribute");
export type Attribute = z.infer<typeof AttributeSchema>;

export const ToggleVisibilityRequestSchema = z
  .object({
    isVisible: z.boolean().nullish().openapi({
      description:
        "true or false: set visibility to this value. Absent or null (as for every other field of the catalogue routes): flip it.",
    }),
  })
  .openapi("ToggleVisibilityRequest");
export type ToggleVisibilityRequest = z.infer<typeof ToggleVisibilityRequestSchema>;

export const AttributeIdParamsSchema = z.object({
  id: Int64Id.openapi({ param: { name: "id", in: "path" } }),
});
