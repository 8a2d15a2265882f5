/** The nested parts of ExperienceAllParamsInput, as service-interface.md lists them. */
import { z } from "@hono/zod-openapi";
import { compareDateTimes } from "../lib/instant";
import {
  CalendarDate,
  DateTime,
  Int32,
  Int64,
  NullableFreeObject,
  ownKeysRecord,
  Uuid,
} from "./common";
import { LocalTimeSchema } from "./slots";

const opt = <T extends z.ZodType>(schema: T) => schema.nullish();
const list = <T extends z.ZodType>(schema: T) => z.array(schema).max(1000);
export const TextMap = ownKeysRecord(z.string(), z.string());

export const LANGUAGES = [
  "SPANISH",
  "FRENCH",
  "BULGARIAN",
  "ARABIC",
  "DANISH",
  "CHINESE",
  "RUSSIAN",
  "ENGLISH",
  "PORTUGUESE",
  "ITALIAN",
  "GERMAN",
  "ROMANIAN",
  "POLISH",
  "CROATIAN",
] as const;

export const ExperienceIntegrationSchema = z
  .object({
    connectedToMarketplace: opt(z.boolean()),
    defaultLanguage: opt(z.string()),
    experienceId: opt(Uuid),
    externalId: opt(Int64),
    integrationData: opt(z.string()),
    integrationId: opt(Uuid),
    integrationOptions: opt(z.string()),
    wineryId: opt(Uuid),
  })
  .openapi("ExperienceIntegration");

const priceFields = {
  descriptionTranslations: opt(TextMap),
  id: opt(Int32),
  position: opt(Int32),
  priceCents: opt(Int32.min(0)),
  priceCurrency: opt(z.string()),
  titleTranslations: opt(TextMap),
};
export const ExperiencePriceExtrasSchema = z
  .object({ ...priceFields, extraMetadata: NullableFreeObject.optional() })
  .openapi("ExperiencePriceExtras");
export const ExperiencePriceLabelsSchema = z.object(priceFields).openapi("ExperiencePriceLabels");

export const PhotoAttributesSchema = z
  .object({
    active: opt(z.boolean()),
    altName: opt(z.string()),
    mediaName: opt(z.string()),
    mediaType: opt(z.string()),
    mediaUrl: opt(z.string()),
    mime: opt(z.string()),
    updateTimestamp: opt(DateTime),
  })
  .openapi("PhotoAttributes");

const coordinates = { lat: opt(z.number()), lng: opt(z.number()) };
export const PlaceAttributesSchema = z
  .object({
    city: opt(z.string()),
    id: opt(z.string()),
    province: opt(z.string()),
    region: opt(z.string()),
    state: opt(z.string()),
    street: opt(z.string()),
    zipcode: opt(z.string()),
    ...coordinates,
  })
  .openapi("PlaceAttributes");

export const SlotRequestSchema = z
  .object({
    day: opt(CalendarDate),
    dayOfWeek: opt(
      z.enum(["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"]),
    ),
    extraData: NullableFreeObject.optional(),
    // The interface types it a string: an id that is no slot of the experience (a uuid or not) is
    // the planner's 400 "is not a slot of this experience", as an unknown uuid is.
    id: opt(
      z.string().max(100).toLowerCase().openapi({
        description:
          "A slot of this experience (its uuid, as the availabilities read answers it), changed by hand. Any other value is 400 naming this field.",
      }),
    ),
    languages: opt(list(z.string())),
    maxParties: opt(Int32.min(0)),
    minPartiesToEnable: opt(Int32.min(0)),
    time: LocalTimeSchema.or(z.null()).optional(), // not .nullish(): see slot-actions.ts
    type: opt(z.string()),
    validityEnd: opt(CalendarDate),
    validityStart: opt(CalendarDate),
  })
  .openapi("SlotRequest");
export type SlotRequest = z.infer<typeof SlotRequestSchema>;

const DurationLeaf = z.object({
  nano: opt(Int32),
  negative: opt(z.boolean()),
  seconds: opt(Int64),
  zero: opt(z.boolean()),
});
const DurationSchema = DurationLeaf.extend({
  units: opt(
    list(
      z.object({
        dateBased: opt(z.boolean()),
        duration: opt(DurationLeaf),
        durationEstimated: opt(z.boolean()),
        timeBased: opt(z.boolean()),
      }),
    ),
  ),
}).openapi("Duration");

export const LabelTranslationsSchema = z
  .object({
    labelKey: opt(z.string()),
    languagesPresent: opt(list(z.enum(LANGUAGES))),
    translations: opt(
      list(
        z.object({
          label: opt(z.string()),
          language: opt(z.enum(LANGUAGES)),
          languageISO: opt(z.string()),
        }),
      ),
    ),
  })
  .openapi("LabelTranslations");

const ExperienceTranslationSchema = z
  .object({
    experienceId: opt(Uuid),
    id: opt(Int64),
    languageIsoCode: opt(z.string()),
    longText: opt(z.string()),
    shortLabel: opt(z.string()),
    text: opt(z.string()),
    translationId: opt(z.string()),
  })
  .openapi("ExperienceTranslation");

const bool = opt(z.boolean());
const str = opt(z.string());
const labels = opt(LabelTranslationsSchema);
const translations = opt(list(ExperienceTranslationSchema));

export const ExperienceDetailsSchema = z
  .object({
    acceptProviderAPayments: bool,
    acceptProviderBPayments: bool,
    active: bool,
    enableGifts: bool,
    giftOnly: bool,
    inquiry: bool,
    instantBooking: bool,
    payAtTheWinery: bool,
    showWebsite: bool,
    showWidget: bool,
    antecedence: opt(DurationSchema),
    interval: opt(DurationSchema),
    notice: opt(DurationSchema),
    color: str,
    duration: str,
    state: str,
    vatRate: str,
    descriptionTranslationId: str,
    metaDescriptionTranslationId: str,
    metaTitleTranslationId: str,
    noteId: str,
    shortDescriptionTranslationId: str,
    summaryTranslationId: str,
    titleTranslationId: str,
    daysForAutomaticApprove: opt(Int32),
    maxParties: opt(Int32),
    minPartiesToEnable: opt(Int32),
    priority: opt(Int32),
    version: opt(Int32),
    experienceId: opt(Uuid),
    fiscalNatureId: opt(Uuid),
    pointOfSaleSuiteId: opt(Uuid),
    updatedAt: opt(DateTime),
    validityFrom: opt(DateTime),
    validityTo: opt(DateTime).openapi({
      description:
        "The end of the validity window, not before validityFrom (else 400). A changed window deletes the experience's slots outside it.",
    }),
    place: opt(
      z.object({
        city: str,
        countryIsoCode: str,
        province: str,
        region: str,
        street: str,
        zipcode: str,
        experienceId: opt(Uuid),
        ...coordinates,
      }),
    ),
    descriptionTranslations: labels,
    metaDescriptionTranslations: labels,
    metaTitleTranslations: labels,
    notes: labels,
    shortDescriptionTranslations: labels,
    summaryTranslations: labels,
    titleTranslations: labels,
    descriptions: translations,
    metaDescriptions: translations,
    metaTitles: translations,
    notesT: translations,
    shortDescriptions: translations,
    summarys: translations,
    titles: translations,
  })
  // A window that ends before it starts holds no date: saved, it would delete every slot of the
  // experience (as every other range of the interface, refused instead).
  .refine(
    (d) =>
      d.validityFrom == null ||
      d.validityTo == null ||
      compareDateTimes(d.validityFrom, d.validityTo) <= 0,
    { path: ["validityTo"], message: "must not be before validityFrom" },
  )
  .openapi("ExperienceDetails");
export type ExperienceDetails = z.infer<typeof ExperienceDetailsSchema>;

export const AdditionalQuestionSchema = z.object({
  questionId: opt(Uuid),
  required: bool,
  sortOrder: opt(Int32),
});
export const MetadataEntrySchema = z.object({ key: str, value: str });
