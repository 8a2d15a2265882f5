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
  for (const flag of OPTIONAL_FLAGS) {
    if (input[flag] !== undefined) set[flag] = input[flag];
  }
  if (input.otherData !== undefined) set.otherData = input.otherData;

  return db
    .insert(contacts)
    .values({
      wineryId,
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      phoneNumber: input.phoneNumber,
      countryIso: input.countryIso,
      acceptedMarketing: input.acceptedMarketing,
      acceptedPrivacyTerms: input.acceptedPrivacyTerms,
      acceptedProfiling: input.acceptedProfiling,
      manualMarketing: input.manualMarketing,
      unsubscribed: input.unsubscribed,
      otherData: input.otherData,
    })
    .onConflictDoUpdate({ target: [contacts.wineryId, contacts.emailKey], set })
    .returning();
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
