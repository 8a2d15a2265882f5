import { type SQL, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  date,
  index,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { timestampMs, timestamps } from "./columns";
import { wineries } from "./wineries";

/**
 * A winery's customer. The primary email and phone live on the row itself (E13 upserts a contact in
 * one statement); further emails, phones and addresses are child rows.
 */
export const contacts = pgTable(
  "contacts",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    email: text().notNull(),
    /** The identity of a contact within its winery: lower(trim(email)). */
    emailKey: text()
      .notNull()
      .generatedAlwaysAs((): SQL => sql`lower(trim(${contacts.email}))`),
    firstName: text().notNull(),
    lastName: text().notNull(),
    phoneNumber: text(),
    countryIso: text(),
    languageIso: text(),
    dateOfBirth: date({ mode: "string" }),
    city: text(),
    province: text(),
    zipcode: text(),
    country: text(),
    acceptedMarketing: boolean().notNull().default(false),
    acceptedPrivacyTerms: boolean().notNull().default(false),
    acceptedProfiling: boolean().notNull().default(false),
    manualMarketing: boolean().notNull().default(false),
    unsubscribed: boolean().notNull().default(false),
    otherData: jsonb().$type<Record<string, unknown>>(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("contacts_winery_email_key").on(t.wineryId, t.emailKey),
    // The export's keyset walks a winery's contacts by id: a batch costs the same however many
    // contacts other wineries have.
    index("contacts_winery_id_idx").on(t.wineryId, t.id),
    index("contacts_winery_updated_at_idx").on(t.wineryId, t.updatedAt),
    index("contacts_winery_created_at_idx").on(t.wineryId, t.createdAt),
  ],
);

export const contactEmails = pgTable(
  "contact_emails",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    contactId: bigint({ mode: "number" })
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    email: text().notNull(),
    type: text().notNull().default("OTHER"),
    createdAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [index().on(t.contactId)],
);

export const contactPhones = pgTable(
  "contact_phones",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    contactId: bigint({ mode: "number" })
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    phone: text().notNull(),
    type: text().notNull().default("OTHER"),
    createdAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [index().on(t.contactId)],
);

export const contactAddresses = pgTable(
  "contact_addresses",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    contactId: bigint({ mode: "number" })
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    address: text(),
    city: text(),
    countryIso: text(),
    province: text(),
    zipcode: text(),
    createdAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [index().on(t.contactId)],
);
