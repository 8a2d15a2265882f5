import { type SQL, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  time,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { timestamps } from "./columns";
import { wineries } from "./wineries";

type Json = unknown;
type TextMap = Record<string, string>;

/**
 * A bookable experience (a tasting, a tour) as ExperienceAllParamsInput describes it. The scalar
 * fields that slots inherit or that filters need are columns; the nested parts of the input
 * (translation maps, price extras and labels, photos, place, flatTranslations, integrations) are
 * jsonb, stored as the parsed input gives them (unknown fields already dropped by the schema).
 * The id is chosen by the client (PUT /experiences/{id}), so it is unique per winery: each winery
 * has its own id space, and one winery's id never collides with, or reveals, another's.
 */
export const experiences = pgTable(
  "experiences",
  {
    id: uuid().notNull(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    acceptProviderAPayments: boolean(),
    acceptProviderBPayments: boolean(),
    active: boolean(),
    enableGifts: boolean(),
    giftOnly: boolean(),
    inquiry: boolean(),
    instantBooking: boolean(),
    payAtTheWinery: boolean(),
    price02Active: boolean(),
    showWebsite: boolean(),
    showWidget: boolean(),
    antecedence: integer(),
    daysForAutomaticApprove: integer(),
    maxParties: integer(),
    minPartiesToEnable: integer(),
    priority: integer(),
    interval: bigint({ mode: "number" }),
    category: text(),
    color: text(),
    duration: text(),
    employeeId: text(),
    experienceColor: text(),
    roomId: text(),
    state: text(),
    vatRate: text(),
    priceCurrency: text(),
    price02Currency: text(),
    priceCents: bigint({ mode: "number" }),
    price02Cents: bigint({ mode: "number" }),
    fiscalNatureId: uuid(),
    pointOfSaleSuiteId: uuid(),
    channels: jsonb().$type<TextMap>(),
    descriptionTranslations: jsonb().$type<TextMap>(),
    metaDescriptionTranslations: jsonb().$type<TextMap>(),
    metaTags: jsonb().$type<TextMap>(),
    metaTitleTranslations: jsonb().$type<TextMap>(),
    notes: jsonb().$type<TextMap>(),
    paymentMethods: jsonb().$type<TextMap>(),
    price01LabelTranslations: jsonb().$type<TextMap>(),
    price02LabelTranslations: jsonb().$type<TextMap>(),
    priceDescriptionTranslations: jsonb().$type<TextMap>(),
    shortDescriptionTranslations: jsonb().$type<TextMap>(),
    summaryTranslations: jsonb().$type<TextMap>(),
    titleTranslations: jsonb().$type<TextMap>(),
    additionalQuestions: jsonb().$type<Json>(),
    experienceIntegrations: jsonb().$type<Json>(),
    experiencePriceExtrasAttributes: jsonb().$type<Json>(),
    experiencePriceLabelsAttributes: jsonb().$type<Json>(),
    flatTranslations: jsonb().$type<Json>(),
    languagesIsoCode: jsonb().$type<Json>(),
    metadata: jsonb().$type<Json>(),
    photosAttributes: jsonb().$type<Json>(),
    placeAttributes: jsonb().$type<Json>(),
    productIds: jsonb().$type<Json>(),
    products: jsonb().$type<Json>(),
    slotAutomationTypes: jsonb().$type<Json>(),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.wineryId, t.id] })],
);

/**
 * A bookable time slot of an experience. Occupancy has two sources, kept apart so neither clobbers
 * the other: `reservedCount`, maintained by reservations (one conditional UPDATE:
 * `set reserved_count = reserved_count + n where id = $slot and occupied_count + n <= max_parties`),
 * and `externalOccupants`, the seats taken outside the system (E9's `newOccupantsCount`).
 * `parentSlotId` names the first slot of the series a range CREATE made; it is deliberately not a
 * foreign key, so a series stays addressable after its first slot is deleted.
 */
export const slots = pgTable(
  "slots",
  {
    id: uuid().primaryKey().defaultRandom(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    experienceId: uuid().notNull(),
    date: date({ mode: "string" }).notNull(),
    time: time({ precision: 0 }).notNull(),
    maxParties: integer().notNull(),
    minParties: integer().notNull().default(1),
    enabledLanguages: text().array().notNull().default([]),
    defaultLanguages: text().array().notNull().default([]),
    active: boolean().notNull().default(true),
    parentSlotId: uuid(),
    manuallyModified: boolean().notNull().default(false),
    reservedCount: integer().notNull().default(0),
    externalOccupants: integer().notNull().default(0),
    occupiedCount: integer()
      .notNull()
      .generatedAlwaysAs((): SQL => sql`${slots.reservedCount} + ${slots.externalOccupants}`),
    extraData: jsonb().$type<Record<string, unknown>>(),
    ...timestamps,
  },
  (t) => [
    foreignKey({
      columns: [t.wineryId, t.experienceId],
      foreignColumns: [experiences.wineryId, experiences.id],
      name: "slots_experience_fk",
    }).onDelete("cascade"),
    // In the database a UNIQUE constraint DEFERRABLE INITIALLY IMMEDIATE (drizzle/0012): checked
    // at each statement's end, so slots of one call can trade times. drizzle cannot declare that;
    // this line keeps the name and columns (and its index serves lookups just the same).
    uniqueIndex("slots_experience_date_time_key").on(t.wineryId, t.experienceId, t.date, t.time),
    index("slots_winery_date_idx").on(t.wineryId, t.date),
    index("slots_parent_idx").on(t.parentSlotId),
    check(
      "slots_counts_non_negative",
      sql`${t.reservedCount} >= 0 and ${t.externalOccupants} >= 0`,
    ),
    check("slots_parties_positive", sql`${t.maxParties} >= 0 and ${t.minParties} >= 0`),
  ],
);
