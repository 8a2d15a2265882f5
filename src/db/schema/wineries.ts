import {
  bigint,
  boolean,
  date,
  doublePrecision,
  index,
  jsonb,
  pgTable,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { idColumn, timestampMs, timestamps } from "./columns";

/** Wine regions a winery may belong to (the `wineRegion` of the business-location record). */
export const wineRegions = pgTable("wine_regions", {
  id: idColumn(),
  name: text().notNull(),
  regionId: uuid(),
});

/**
 * The business-location record: a winery, its public profile and its payment options. Every other
 * table that holds a winery's data points here through `winery_id`.
 */
export const wineries = pgTable("wineries", {
  id: idColumn(),
  name: text().notNull(),
  businessName: text(),
  description: text(),
  cf: text(),
  pi: text(),
  sdi: text(),
  phone: text(),
  companyEmail: text(),
  notificationEmail: text(),
  notificationEmails: text().array().notNull().default([]),
  nearbyCities: text(),
  openingHours: text(),
  street: text(),
  city: text(),
  province: text(),
  region: text(),
  state: text(),
  zipcode: text(),
  lat: doublePrecision(),
  lng: doublePrecision(),
  wineRegionId: uuid().references(() => wineRegions.id),
  acceptProviderAPayments: boolean().notNull().default(false),
  acceptProviderBPayments: boolean().notNull().default(false),
  acceptProviderCPayments: boolean().notNull().default(false),
  acceptPayAtWineryPayments: boolean().notNull().default(false),
  activeBillingDetails: boolean().notNull().default(false),
  proEnabled: boolean().notNull().default(false),
  showWebsite: boolean().notNull().default(true),
  showWidget: boolean().notNull().default(true),
  showWidgetFilter: boolean().notNull().default(false),
  descriptionTranslations: jsonb().$type<Record<string, string>>(),
  metaDescriptionTranslations: jsonb().$type<Record<string, string>>(),
  metaTitleTranslations: jsonb().$type<Record<string, string>>(),
  openingHoursTranslations: jsonb().$type<Record<string, string>>(),
  ...timestamps,
});

/** Sales channels of a winery; `apiChannelKey` names the channel in order-import URLs (E1). */
export const salesChannels = pgTable(
  "sales_channels",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    channelId: bigint({ mode: "number" }).generatedAlwaysAsIdentity(),
    name: text().notNull(),
    /** Unique per winery, not globally: two wineries may both name a channel `webshop`. */
    apiChannelKey: text().notNull(),
    ecommerceUrl: text(),
    data: jsonb().$type<Record<string, unknown>>(),
    pointOfSaleSuiteId: uuid(),
    deletedAt: timestampMs(),
    ...timestamps,
  },
  (t) => [unique("sales_channels_winery_api_channel_key").on(t.wineryId, t.apiChannelKey)],
);

export const wineryClosingPeriods = pgTable(
  "winery_closing_periods",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id, { onDelete: "cascade" }),
    first: date({ mode: "string" }).notNull(),
    last: date({ mode: "string" }).notNull(),
  },
  (t) => [index().on(t.wineryId)],
);

export const wineryFiles = pgTable(
  "winery_files",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id, { onDelete: "cascade" }),
    title: text(),
    typeFile: text(),
    contentData: jsonb().$type<Record<string, unknown>>(),
  },
  (t) => [index().on(t.wineryId)],
);

export const wineryParameters = pgTable(
  "winery_parameters",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id, { onDelete: "cascade" }),
    parameterKey: text().notNull(),
    parameterValue: text(),
    deleted: boolean().notNull().default(false),
    creationDate: timestampMs().notNull().defaultNow(),
    updateDate: timestampMs().notNull().defaultNow(),
  },
  (t) => [index().on(t.wineryId)],
);

export const wineryPhotos = pgTable(
  "winery_photos",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id, { onDelete: "cascade" }),
    cover: boolean().notNull().default(false),
    main: boolean().notNull().default(false),
    imageData: jsonb().$type<Record<string, unknown>>(),
    imageType: text(),
    publicId: text(),
    title: text(),
  },
  (t) => [index().on(t.wineryId)],
);

export const wineryServices = pgTable(
  "winery_services",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id, { onDelete: "cascade" }),
    name: text().notNull(),
    nameTranslations: jsonb().$type<Record<string, string>>(),
    tagTypeTranslations: jsonb().$type<Record<string, string>>(),
    ...timestamps,
  },
  (t) => [index().on(t.wineryId)],
);
