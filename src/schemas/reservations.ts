/** The reservation wire schemas of E11, E14 and E16 (requests); answers are in reservation-views.ts. */
import { z } from "@hono/zod-openapi";
import { MAX_SAFE_CENTS } from "../lib/money";
import {
  CalendarDate,
  DateTime,
  Int32,
  Int64,
  NonNegativeCents,
  NullableFreeObject,
  SafeString,
  Uuid,
} from "./common";
import { ContactInputSchema } from "./contacts";
import { LabelTranslationsSchema, TextMap } from "./experience-parts";
import { LocalTimeSchema } from "./slots";

const opt = <T extends z.ZodType>(schema: T) => schema.nullish();
const list = <T extends z.ZodType>(schema: T) => z.array(schema).max(1000);
const text = (max: number) => z.string().max(max);

/** Non-negative integer cents (decisions.md: no negative total). */

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?$/;

/** A real calendar date (Feb 30 refused) in the years 0001..9999. */
function isCalendarDate(year: number, month: number, day: number): boolean {
  if (year < 1) return false;
  const probe = new Date(Date.UTC(2000, month - 1, day));
  probe.setUTCFullYear(year);
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/**
 * A local date-time as the reservation keeps it: to the millisecond, rounded half up once over
 * every digit sent (Postgres would round twice, to the microsecond and then to the millisecond:
 * `10:00:00.1234999` would be `.124`), so `.fff` at most goes on to Postgres. Undefined when the
 * rounding leaves year 9999 (`9999-12-31T23:59:59.9995` would be 10000-01-01T00:00:00.000).
 */
function toMillisecond(value: string): string | undefined {
  const dot = value.indexOf(".");
  if (dot < 0 || value.length - dot - 1 <= 3) return value;
  const fraction = value.slice(dot + 1);
  const up = fraction.charCodeAt(3) >= 0x35; // the digit after the milliseconds is 5..9
  if (!up) return value.slice(0, dot + 4);
  const [date = "", time = ""] = value.slice(0, dot).split("T");
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const [hour, minute, second] = time.split(":").map(Number) as [number, number, number];
  const at = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  at.setUTCFullYear(year); // Date.UTC reads the years 0..99 as 1900..1999
  const rounded = new Date(at.getTime() + Number(fraction.slice(0, 3)) + 1);
  if (rounded.getUTCFullYear() > 9999) return undefined;
  return rounded.toISOString().slice(0, 23);
}

/**
 * The interface's "local date-time without zone" (`2026-05-01T10:30:00`, seconds and fraction
 * optional): the importer's wall clock, stored as given. A zone or offset is refused.
 */
const LOCAL_DATE_TIME_MESSAGE =
  "must be a local date-time YYYY-MM-DDTHH:MM[:SS[.fff]] without zone, in the years 0001..9999";
export const LocalDateTime = z
  .string()
  .regex(LOCAL_DATE_TIME, LOCAL_DATE_TIME_MESSAGE)
  .refine((value) => {
    const match = LOCAL_DATE_TIME.exec(value);
    return match !== null && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]));
  }, LOCAL_DATE_TIME_MESSAGE)
  // OpenAPI has no format for a date-time without zone; the pattern and this name say it.
  .openapi({ format: "local-date-time", example: "2026-05-01T10:30:00" });

/** A LocalDateTime kept in a timestamp column: rounded to the millisecond once (toMillisecond). */
const StoredLocalDateTime = LocalDateTime.transform((value, ctx) => {
  const stored = toMillisecond(value);
  if (stored === undefined) {
    ctx.addIssue({ code: "custom", message: LOCAL_DATE_TIME_MESSAGE });
    return z.NEVER;
  }
  return stored;
});

const priceItemFields = {
  created_at: opt(LocalDateTime),
  experience_id: opt(Uuid),
  id: opt(Int64),
  position: opt(Int32),
  price_cents: opt(NonNegativeCents),
  price_currency: opt(text(10)),
  quantity: opt(Int32.min(0)),
  title_translations: opt(TextMap),
  updated_at: opt(LocalDateTime),
};
export const ReservationPriceExtraSchema = z
  .object(priceItemFields)
  .openapi("ReservationPriceExtra");
export const ReservationPriceLabelSchema = z
  .object({ ...priceItemFields, islabel1: opt(z.boolean()) })
  .openapi("ReservationPriceLabel");

export const QuestionAnswerSchema = z
  .object({
    answerType: opt(text(100)),
    freeText: opt(text(10_000)),
    questionId: opt(Uuid),
    selectedOptionIds: opt(list(Int64)),
  })
  .openapi("QuestionAnswer");

export const ReservationInputSchema = z
  .object({
    id: opt(Uuid).openapi({
      description: "Ignored: the path's reservationID names the reservation.",
    }),
    wineryId: opt(Uuid).openapi({ description: "When sent, must be the API key's winery (403)." }),
    experienceId: Uuid,
    date: CalendarDate,
    time: LocalTimeSchema,
    closeSlots: opt(z.boolean()),
    openSlots: opt(z.boolean()),
    state: opt(text(100)),
    giftId: opt(Uuid),
    guestCount01: opt(Int32.min(0)),
    guestCountTotal: opt(Int32.min(0)),
    discountTotalCents: opt(NonNegativeCents),
    dueTotalCents: opt(NonNegativeCents),
    grossTotalCents: opt(NonNegativeCents),
    netTotalCents: opt(NonNegativeCents),
    manualDiscountTotalCents: opt(NonNegativeCents),
    paidTotalCents: opt(NonNegativeCents),
    paid: opt(z.boolean()),
    languageIso: opt(text(35)),
    message: opt(text(10_000)),
    origin: opt(text(200)),
    paymentCurrency: opt(text(10)),
    createdAt: opt(StoredLocalDateTime),
    updatedAt: opt(StoredLocalDateTime),
    additionalQuestionAnswers: opt(list(QuestionAnswerSchema)),
    experiencePriceExtras: opt(list(ReservationPriceExtraSchema)),
    experiencePriceLabels: opt(list(ReservationPriceLabelSchema)),
    experienceTitleTranslations: opt(LabelTranslationsSchema),
    optionalData: NullableFreeObject.optional(),
    otherData: NullableFreeObject.optional(),
    reservationContacts: list(ContactInputSchema).min(1),
    // The reservation shape's derived fields: typed (a wrong type is a 400, as for any field the
    // interface names), never stored.
    contactId: opt(Int64).openapi({
      description:
        "Ignored: the reservation's contact is its MASTER entry of reservationContacts (found or created by email).",
    }),
    paidAt: opt(DateTime).openapi({ description: "Ignored: derived from the payments." }),
    refundedAt: opt(DateTime).openapi({ description: "Ignored: derived from the refunds." }),
    refundedTotalCents: opt(NonNegativeCents).openapi({
      description: "Ignored: derived from the refunds (E14).",
    }),
    // The answer's nested members, which a client may send back as it read them: objects, never
    // read (the top-level fields are the reservation; the MASTER entry is its master contact).
    reservation: NullableFreeObject.optional().openapi({
      description:
        "Ignored: the answer's nested copy of the reservation; the top-level fields are the input.",
    }),
    reservationMasterContact: NullableFreeObject.optional().openapi({
      description:
        "Ignored: the master contact is the MASTER entry of reservationContacts (found or created by email).",
    }),
  })
  .superRefine((input, ctx) => {
    const masters = input.reservationContacts.filter((c) => c.contactType === "MASTER").length;
    if (masters !== 1) {
      ctx.addIssue({
        code: "custom",
        path: ["reservationContacts"],
        message: `must hold exactly one contact of type MASTER (found ${masters})`,
      });
    }
    // Entries fold to one contact by lower(trim(email)) (E13's rule): the same person twice
    // would be linked twice, MASTER and SECONDARY at once.
    const seen = new Set<string>();
    input.reservationContacts.forEach((contact, i) => {
      const key = contact.email.toLowerCase();
      if (seen.has(key))
        ctx.addIssue({
          code: "custom",
          path: ["reservationContacts", i, "email"],
          message: "names the same contact as an earlier entry (emails compare case-insensitively)",
        });
      seen.add(key);
    });
    if (input.closeSlots && input.openSlots) {
      ctx.addIssue({
        code: "custom",
        path: ["openSlots"],
        message: "closeSlots and openSlots cannot both be true",
      });
    }
  })
  .openapi("ReservationInput");
export type ReservationInput = z.infer<typeof ReservationInputSchema>;

/**
 * E11's path: `NEW` or `null` (a new reservation), or the reservation's uuid. A pattern rather than
 * a refinement, so the document states what is accepted.
 */
const NEW_OR_UUID =
  /^(?:NEW|null|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
export const ReservationImportParamsSchema = z.object({
  reservationID: z
    .string()
    .regex(NEW_OR_UUID, "must be NEW, null or a uuid")
    .openapi({ param: { name: "reservationID", in: "path" }, example: "NEW" }),
});

/**
 * E14's path: the interface types it a string. Reservations are identified by uuid, so any other
 * value names no reservation (the handler's 404), as an unknown uuid does.
 */
export const ReservationIdParamsSchema = z.object({
  reservationID: SafeString.min(1)
    .max(100)
    .openapi({
      param: { name: "reservationID", in: "path" },
      description:
        "The reservation's id (a uuid, as E11 answers it); any other value of up to 100 characters is 404.",
    }),
});

export const RefundRequestSchema = z
  .object({
    amountCents: z.int().min(1).max(MAX_SAFE_CENTS).openapi({ format: "int64", example: 1500 }),
  })
  .openapi("RefundRequest");
export type RefundRequest = z.infer<typeof RefundRequestSchema>;

export const ReservationQuerySchema = z
  .object({
    startTime: opt(CalendarDate).openapi({ description: "First reservation date, inclusive." }),
    endTime: opt(CalendarDate).openapi({ description: "Last reservation date, inclusive." }),
    ids: opt(list(text(100))).openapi({
      description: "Reservation ids (any of); an id that is not a uuid matches nothing.",
    }),
    states: opt(list(text(100))).openapi({ description: "States (any of), case-insensitive." }),
    lang: opt(text(35)),
    wineryId: opt(text(100)).openapi({ description: "When sent, must be the API key's winery." }),
  })
  .refine((q) => !q.startTime || !q.endTime || q.startTime <= q.endTime, {
    path: ["endTime"],
    message: "endTime must not be before startTime",
  })
  .openapi("ReservationQuery");
export type ReservationQuery = z.infer<typeof ReservationQuerySchema>;

export const ReservationQueryParamsSchema = z.object({
  Lang: SafeString.max(35)
    .optional()
    .openapi({ param: { name: "Lang", in: "query" }, example: "it" }),
  lang: SafeString.max(35)
    .optional()
    .openapi({
      param: { name: "lang", in: "query" },
      description: "The same as `Lang`, for clients that send query names in lower case.",
      example: "it",
    }),
});
