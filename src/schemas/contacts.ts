import { z } from "@hono/zod-openapi";
import { CalendarDate, DateRange, Int64, NonBlank, NullableFreeObject } from "./common";

const trimmed = NonBlank;

export const ContactInputSchema = z
  .object({
    contactType: z.enum(["MASTER", "SECONDARY"]),
    countryIso: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 country code")
      .transform((s) => s.toUpperCase())
      .openapi({ example: "IT" }),
    email: z
      .string()
      .trim()
      .max(320)
      .pipe(z.email())
      .openapi({ format: "email", example: "giulia.rossi@example.com" }),
    firstName: trimmed(200).openapi({ example: "Giulia" }),
    lastName: trimmed(200).openapi({ example: "Rossi" }),
    phoneNumber: trimmed(50).openapi({ example: "+39 055 123 4567" }),
    // Optional fields take null as "not given" (the stored value stays; a new contact gets the
    // default), so a contact read from an answer, whose otherData may be null, can be sent back.
    acceptedMarketing: z.boolean().nullish(),
    acceptedPrivacyTerms: z.boolean().nullish(),
    acceptedProfiling: z.boolean().nullish(),
    manualMarketing: z
      .boolean()
      .nullish()
      .openapi({ description: "Privacy flag set by the business: a signed paper exists." }),
    unsubscribed: z.boolean().nullish(),
    otherData: NullableFreeObject.optional(),
  })
  .openapi("ContactDTO");

export type ContactInput = z.infer<typeof ContactInputSchema>;

/** A stored contact's consent flags and free-form data, as every answer that embeds one has them. */
export const StoredContactFlags = {
  acceptedMarketing: z.boolean(),
  acceptedPrivacyTerms: z.boolean(),
  acceptedProfiling: z.boolean(),
  manualMarketing: z.boolean(),
  unsubscribed: z.boolean(),
  otherData: NullableFreeObject,
};

// A new object of the input's fields, not ContactInputSchema.extend(): the generator renders an
// extension of a registered schema as allOf [ContactDTO, overrides], and allOf holds both, so the
// input's non-null otherData would refuse the null this answer carries.
export const ContactSchema = z
  .object({
    ...ContactInputSchema.shape,
    id: Int64.openapi({ description: "The contact's id within the winery (int64)." }),
    ...StoredContactFlags,
  })
  .openapi("Contact");

export type Contact = z.infer<typeof ContactSchema>;

export const ContactQuerySchema = DateRange.openapi("ContactQuery");
export type ContactQuery = z.infer<typeof ContactQuerySchema>;

const ContactExportBase = z.object({
  id: Int64,
  wineryId: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  emails: z.array(z.object({ email: z.string(), master: z.boolean(), type: z.string() })),
  phoneNumbers: z.array(z.object({ phone: z.string(), type: z.string() })),
  addresses: z.array(
    z.object({
      address: z.string().nullable(),
      city: z.string().nullable(),
      countryISO: z.string().nullable(),
      province: z.string().nullable(),
      zipcode: z.string().nullable(),
    }),
  ),
  cap: z.string().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  countryISO: z.string().nullable(),
  dateOfBirth: CalendarDate.nullable(),
  languageISO: z.string().nullable(),
  province: z.string().nullable(),
});

export const ContactExportV2Schema = ContactExportBase.openapi("ContactExportDTO");

export const ContactExportV3Schema = ContactExportBase.extend({
  acceptedMarketing: z.boolean(),
  acceptedPrivacyTerms: z.boolean(),
  acceptedProfiling: z.boolean(),
  manualMarketing: z.boolean(),
  unsubscribed: z.boolean(),
  contactValue: z.number().openapi({
    format: "double",
    description: "What the contact has paid, net of refunds, in currency units.",
  }),
}).openapi("ContactExportDTOV3");

export type ContactExportV2 = z.infer<typeof ContactExportV2Schema>;
export type ContactExportV3 = z.infer<typeof ContactExportV3Schema>;
