import { z } from "@hono/zod-openapi";
import { CalendarDate, DateTime, Int64, NullableFreeObject, ownKeysRecord } from "./common";
import { LocalTimeOutSchema, SlotSchema } from "./slots";

const TextMap = ownKeysRecord(z.string(), z.string()).nullable();
const text = z.string().nullable();

export const SlotActionsReportSchema = z
  .object({
    dryRun: z.boolean().openapi({ description: "True when nothing was written." }),
    created: z.array(SlotSchema),
    updated: z.array(SlotSchema),
    deleted: z.array(SlotSchema),
    skipped: z.array(
      z.object({
        requestIndex: z.int(),
        slotId: z.guid().nullable(),
        experienceId: z.guid(),
        date: CalendarDate,
        time: LocalTimeOutSchema,
        reason: z.enum(["ALREADY_EXISTS", "MANUALLY_MODIFIED"]),
      }),
    ),
  })
  .openapi("SlotActionsReport", {
    description:
      "Not in the interface's Result: what the call did (or, in a dry run, would do) to slots. Slots as they are after the call (deleted ones as they were). A dry run's created slots carry ids that are not stored.",
  });

export const BusinessLocationSchema = z
  .object({
    id: z.guid(),
    name: z.string(),
    businessName: text,
    description: text,
    cf: text,
    pi: text,
    sdi: text,
    phone: text,
    companyEmail: text,
    notificationEmail: text,
    notificationEmails: z.array(z.string()),
    nearbyCities: text,
    openingHours: text,
    street: text,
    city: text,
    province: text,
    region: text,
    state: text,
    zipcode: text,
    lat: z.number().nullable(),
    lng: z.number().nullable(),
    wineRegionId: z.guid().nullable(),
    acceptProviderAPayments: z.boolean(),
    acceptProviderBPayments: z.boolean(),
    acceptProviderCPayments: z.boolean(),
    acceptPayAtWineryPayments: z.boolean(),
    activeBillingDetails: z.boolean(),
    proEnabled: z.boolean(),
    showWebsite: z.boolean(),
    showWidget: z.boolean(),
    showWidgetFilter: z.boolean(),
    descriptionTranslations: TextMap,
    metaDescriptionTranslations: TextMap,
    metaTitleTranslations: TextMap,
    openingHoursTranslations: TextMap,
    createdAt: DateTime,
    updatedAt: DateTime,
    channels: z.array(
      z.object({
        channelId: Int64,
        createdAt: DateTime,
        data: NullableFreeObject,
        deletedAt: DateTime.nullable(),
        ecommerceUrl: text,
        id: z.guid(),
        name: z.string(),
        pointOfSaleSuiteId: z.guid().nullable(),
        updatedAt: DateTime,
      }),
    ),
    closingPeriods: z.array(z.object({ first: CalendarDate, id: z.guid(), last: CalendarDate })),
    files: z.array(
      z.object({ contentData: NullableFreeObject, id: z.guid(), title: text, typeFile: text }),
    ),
    integrations: z.array(
      z.object({
        authToken: text.openapi({
          description: "Decrypted for the owning winery; stored sealed (AES-GCM) at rest.",
        }),
        disabled: z.boolean(),
        integrationData: NullableFreeObject,
        integrationId: z.guid(),
        integrationName: z.string(),
        integrationOptions: NullableFreeObject,
        roleId: z.guid().nullable(),
      }),
    ),
    parameters: z.array(
      z.object({
        creationDate: DateTime,
        deleted: z.boolean(),
        parameterKey: z.string(),
        parameterValue: text,
        updateDate: DateTime,
      }),
    ),
    photos: z.array(
      z.object({
        cover: z.boolean(),
        id: z.guid(),
        imageData: NullableFreeObject,
        imageType: text,
        main: z.boolean(),
        publicId: text,
        title: text,
      }),
    ),
    services: z.array(
      z.object({
        createdAt: DateTime,
        id: z.guid(),
        name: z.string(),
        nameTranslations: TextMap,
        tagTypeTranslations: TextMap,
        updatedAt: DateTime,
      }),
    ),
    wineRegion: z
      .object({ id: z.guid(), name: z.string(), regionId: z.guid().nullable() })
      .nullable(),
    slotActions: SlotActionsReportSchema,
  })
  .openapi("BusinessLocation", {
    description:
      "E9's Result: the business-location record of the winery whose slots were acted on.",
  });
export type BusinessLocation = z.infer<typeof BusinessLocationSchema>;
export type SlotActionsReport = z.infer<typeof SlotActionsReportSchema>;
