import { sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { contacts } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import type { Contact, ContactInput } from "../../schemas/contacts";

const OPTIONAL_FLAGS = [
  "acceptedMarketing",
  "acceptedPrivacyTerms",
  "acceptedProfiling",
  "manualMarketing",
  "unsubscribed",
] as const;

const excluded = (column: string) => sql.raw(`excluded."${column}"`);

type ContactRow = typeof contacts.$inferSelect;

/**
 * The E13 rule, defined once (E13 and E11's reservation contacts both use it): the contact is
 * identified within its winery by lower(trim(email)) (a generated column under a unique index), so
 * concurrent upserts of the same person converge on one row. Fields the caller left out keep their
 * stored values. One statement, built on `db` (the HTTP driver or a transaction).
 */
export function contactUpsertStatement(db: AnyDb, wineryId: string, input: ContactInput) {
  const set: Record<string, unknown> = {
    email: excluded("email"),
    firstName: excluded("first_name"),
    lastName: excluded("last_name"),
    phoneNumber: excluded("phone_number"),
    countryIso: excluded("country_iso"),
    updatedAt: sql`now()`,
  };
  // Left out or null: the stored value stays.
  for (const flag of OPTIONAL_FLAGS) {
    if (input[flag] != null) set[flag] = input[flag];
  }
  if (input.otherData != null) set.otherData = input.otherData;

  return db
    .insert(contacts)
    .values({
      wineryId,
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      phoneNumber: input.phoneNumber,
      countryIso: input.countryIso,
      // undefined is the column's DEFAULT (false, or null for other_data).
      acceptedMarketing: input.acceptedMarketing ?? undefined,
      acceptedPrivacyTerms: input.acceptedPrivacyTerms ?? undefined,
      acceptedProfiling: input.acceptedProfiling ?? undefined,
      manualMarketing: input.manualMarketing ?? undefined,
      unsubscribed: input.unsubscribed ?? undefined,
      otherData: input.otherData ?? undefined,
    })
    .onConflictDoUpdate({ target: [contacts.wineryId, contacts.emailKey], set })
    .returning();
}

/**
 * The same rule as contactUpsertStatement, as fixed text for a raw batch (rawBatch), where drizzle
 * would build the statement again on every call: $1 the winery, then contactUpsertParameters. A
 * flag or otherData left out (or sent as null) is null, which keeps the stored value (a new row gets the column's
 * default, as drizzle's DEFAULT would: false, or null for other_data).
 * test/reservations/import-in-one-request.test.ts holds the two to the same rows.
 */
export const CONTACT_UPSERT_SQL = `
insert into contacts as c (winery_id, email, first_name, last_name, phone_number, country_iso,
  accepted_marketing, accepted_privacy_terms, accepted_profiling, manual_marketing, unsubscribed,
  other_data)
values ($1, $2, $3, $4, $5, $6,
  coalesce($7::boolean, false), coalesce($8::boolean, false), coalesce($9::boolean, false),
  coalesce($10::boolean, false), coalesce($11::boolean, false), $12::jsonb)
on conflict (winery_id, email_key) do update set email = excluded.email,
  first_name = excluded.first_name, last_name = excluded.last_name,
  phone_number = excluded.phone_number, country_iso = excluded.country_iso, updated_at = now(),
  accepted_marketing = coalesce($7::boolean, c.accepted_marketing),
  accepted_privacy_terms = coalesce($8::boolean, c.accepted_privacy_terms),
  accepted_profiling = coalesce($9::boolean, c.accepted_profiling),
  manual_marketing = coalesce($10::boolean, c.manual_marketing),
  unsubscribed = coalesce($11::boolean, c.unsubscribed),
  other_data = coalesce($12::jsonb, c.other_data)`;

/** CONTACT_UPSERT_SQL's parameters: the winery, then the input's fields. */
export function contactUpsertParameters(wineryId: string, input: ContactInput): unknown[] {
  return [
    wineryId,
    input.email,
    input.firstName,
    input.lastName,
    input.phoneNumber,
    input.countryIso,
    input.acceptedMarketing ?? null,
    input.acceptedPrivacyTerms ?? null,
    input.acceptedProfiling ?? null,
    input.manualMarketing ?? null,
    input.unsubscribed ?? null,
    input.otherData == null ? null : JSON.stringify(input.otherData),
  ];
}

export function toContact(row: ContactRow, input: ContactInput): Contact {
  return {
    id: row.id,
    contactType: input.contactType,
    countryIso: row.countryIso ?? input.countryIso,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    phoneNumber: row.phoneNumber ?? input.phoneNumber,
    acceptedMarketing: row.acceptedMarketing,
    acceptedPrivacyTerms: row.acceptedPrivacyTerms,
    acceptedProfiling: row.acceptedProfiling,
    manualMarketing: row.manualMarketing,
    unsubscribed: row.unsubscribed,
    otherData: row.otherData ?? null,
  };
}

/** E13. One statement, one round trip. */
export async function upsertContact(
  db: HttpDb,
  wineryId: string,
  input: ContactInput,
): Promise<Contact> {
  const [row] = await contactUpsertStatement(db, wineryId, input);
  if (!row) throw new Error("contact upsert returned no row");
  return toContact(row, input);
}
