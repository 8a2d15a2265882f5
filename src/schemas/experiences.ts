import { z } from "@hono/zod-openapi";
import {
  DateTime,
  FreeObject,
  Int32,
  Int64,
  NonNegativeCents,
  ownKeysRecord,
  Uuid,
} from "./common";
import {
  AdditionalQuestionSchema,
  ExperienceDetailsSchema,
  ExperienceIntegrationSchema,
  ExperiencePriceExtrasSchema,
  ExperiencePriceLabelsSchema,
  MetadataEntrySchema,
  PhotoAttributesSchema,
  PlaceAttributesSchema,
  SlotRequestSchema,
  TextMap,
} from "./experience-parts";

const list = <T extends z.ZodType>(schema: T) => z.array(schema).max(1000);

/**
 * The stored fields of an experience: every top-level field of ExperienceAllParamsInput except
 * `id`, `wineryId` and `slotsRequests` (slots are rows of their own). The keys are the experiences
 * table's column keys, so a row and the wire object map onto each other field by field.
 */
export const EXPERIENCE_FIELDS = {
  acceptProviderAPayments: z.boolean(),
  acceptProviderBPayments: z.boolean(),
  active: z.boolean(),
  enableGifts: z.boolean(),
  giftOnly: z.boolean(),
  inquiry: z.boolean(),
  instantBooking: z.boolean(),
  payAtTheWinery: z.boolean(),
  price02Active: z.boolean(),
  showWebsite: z.boolean(),
  showWidget: z.boolean(),
  antecedence: Int32,
  daysForAutomaticApprove: Int32,
  maxParties: Int32.min(0),
  minPartiesToEnable: Int32.min(0),
  priority: Int32,
  interval: Int64,
  category: z.string(),
  color: z.string(),
  duration: z.string(),
  employeeId: z.string(),
  experienceColor: z.string(),
  roomId: z.string(),
  state: z.string(),
  vatRate: z.string(),
  priceCurrency: z.string(),
  price02Currency: z.string(),
  priceCents: NonNegativeCents,
  price02Cents: NonNegativeCents,
  fiscalNatureId: Uuid,
  pointOfSaleSuiteId: Uuid,
  channels: TextMap,
  descriptionTranslations: TextMap,
  metaDescriptionTranslations: TextMap,
  metaTags: TextMap,
  metaTitleTranslations: TextMap,
  notes: TextMap,
  paymentMethods: TextMap,
  price01LabelTranslations: TextMap,
  price02LabelTranslations: TextMap,
  priceDescriptionTranslations: TextMap,
  shortDescriptionTranslations: TextMap,
  summaryTranslations: TextMap,
  titleTranslations: TextMap,
  additionalQuestions: list(AdditionalQuestionSchema),
  experienceIntegrations: list(ExperienceIntegrationSchema),
  experiencePriceExtrasAttributes: ownKeysRecord(z.string(), ExperiencePriceExtrasSchema),
  experiencePriceLabelsAttributes: ownKeysRecord(z.string(), ExperiencePriceLabelsSchema),
  flatTranslations: ExperienceDetailsSchema,
  languagesIsoCode: list(z.string()),
  metadata: list(MetadataEntrySchema),
  photosAttributes: list(PhotoAttributesSchema),
  placeAttributes: PlaceAttributesSchema,
  productIds: list(z.string()),
  products: list(FreeObject),
  slotAutomationTypes: list(z.string()),
} as const;

type Fields = typeof EXPERIENCE_FIELDS;
export type ExperienceField = keyof Fields;
export const EXPERIENCE_FIELD_NAMES = Object.keys(EXPERIENCE_FIELDS) as ExperienceField[];

function mapFields<W>(wrap: (schema: z.ZodType) => z.ZodType): W {
  return Object.fromEntries(
    EXPERIENCE_FIELD_NAMES.map((name) => [name, wrap(EXPERIENCE_FIELDS[name])]),
  ) as W;
}

const inputFields = mapFields<{ [K in ExperienceField]: z.ZodOptional<z.ZodNullable<Fields[K]>> }>(
  (s) => s.nullish(),
);
const outputFields = mapFields<{ [K in ExperienceField]: z.ZodNullable<Fields[K]> }>((s) =>
  s.nullable(),
);

export const ExperienceInputSchema = z
  .object({
    ...inputFields,
    id: Uuid.nullish(),
    wineryId: Uuid.nullish(),
    slotsRequests: list(SlotRequestSchema).nullish(),
  })
  .openapi("ExperienceAllParamsInput");
export type ExperienceInput = z.infer<typeof ExperienceInputSchema>;

export const ExperienceSchema = z
  .object({
    ...outputFields,
    id: Uuid,
    wineryId: Uuid,
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("Experience", {
    description:
      "A stored experience: every field of ExperienceAllParamsInput (null where not set) except slotsRequests; its slots are read with GET /api/v2/availabilities.",
  });
export type Experience = z.infer<typeof ExperienceSchema>;

/** The stored value of each field: what a save makes of the input (absent and null are null). */
export type ExperienceValues = { [K in ExperienceField]: z.infer<Fields[K]> | null };

export const ExperienceIdParamsSchema = z.object({
  id: Uuid.openapi({
    param: { name: "id", in: "path" },
    example: "6a1f3c2e-8b4d-4e0f-9a7b-2c3d4e5f6a7b",
  }),
});
