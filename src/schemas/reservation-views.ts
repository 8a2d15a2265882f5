/** The reservation answers: E11's and E16's reservation object, and E14's VwReservation. */
import { z } from "@hono/zod-openapi";
import {
  CalendarDate,
  DateTime,
  FreeObject,
  Int32,
  Int64,
  NullableFreeObject,
  Uuid,
} from "./common";
import { StoredContactFlags } from "./contacts";
import { LabelTranslationsSchema } from "./experience-parts";
import { QuestionAnswerSchema } from "./reservations";
import { LocalTimeOutSchema } from "./slots";

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();
const LocalDateTimeOut = z
  .string()
  .openapi({ example: "2026-05-01T10:30:00.000", description: "Local, no zone." });

export const ReservationContactSchema = z
  .object({
    contactId: Int64.openapi({ description: "The winery's contact this entry is linked to." }),
    contactType: z.enum(["MASTER", "SECONDARY"]),
    countryIso: nullable(z.string()),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    phoneNumber: nullable(z.string()),
    ...StoredContactFlags,
  })
  .openapi("ReservationContact");

const priceItemOut = {
  created_at: nullable(LocalDateTimeOut),
  experience_id: nullable(Uuid),
  id: nullable(Int64),
  position: nullable(Int32),
  price_cents: nullable(Int64),
  price_currency: nullable(z.string()),
  quantity: nullable(Int32),
  title_translations: nullable(z.record(z.string(), z.string())),
  updated_at: nullable(LocalDateTimeOut),
};

const ReservationFields = z.object({
  id: Uuid,
  wineryId: Uuid,
  experienceId: Uuid,
  slotId: nullable(Uuid).openapi({
    description: "The slot holding the seats; null when the experience has no slot then.",
  }),
  giftId: nullable(Uuid),
  contactId: nullable(Int64).openapi({ description: "The MASTER contact's id." }),
  createdAt: LocalDateTimeOut,
  updatedAt: LocalDateTimeOut,
  date: CalendarDate,
  time: z.string().openapi({ example: "15:00:00", description: "Local time HH:MM:SS." }),
  state: nullable(z.string()),
  guestCount01: nullable(Int32),
  guestCountTotal: nullable(Int32),
  discountTotalCents: nullable(Int64),
  dueTotalCents: nullable(Int64),
  grossTotalCents: nullable(Int64),
  netTotalCents: nullable(Int64),
  manualDiscountTotalCents: nullable(Int64),
  paidTotalCents: nullable(Int64),
  refundedTotalCents: Int64.openapi({ description: "Sum of the refund ledger (E14)." }),
  paid: nullable(z.boolean()),
  paidAt: nullable(DateTime).openapi({ description: "UTC instant of the first captured payment." }),
  refundedAt: nullable(DateTime).openapi({ description: "UTC instant of the last refund." }),
  languageIso: nullable(z.string()),
  message: nullable(z.string()),
  origin: nullable(z.string()),
  paymentCurrency: nullable(z.string()),
  optionalData: NullableFreeObject,
  otherData: NullableFreeObject,
  // As E11 stored them: the members sent, of the input's types.
  additionalQuestionAnswers: z.array(QuestionAnswerSchema),
  experiencePriceExtras: z.array(z.object(priceItemOut)),
  experiencePriceLabels: z.array(z.object({ ...priceItemOut, islabel1: nullable(z.boolean()) })),
  experienceTitleTranslations: LabelTranslationsSchema.or(z.null()),
  experienceTitle: nullable(z.string()).openapi({
    description:
      "The experience's title in the requested language (E16 Lang/lang; E11 the reservation's languageIso), falling back to the reservation's language, then English, then any title.",
  }),
  reservationContacts: z.array(ReservationContactSchema),
  // .or(z.null()), not .nullable(): the generator renders a nullable registered schema as
  // allOf [$ref, {type: [object, null]}], which refuses null (allOf needs the $ref to match too).
  reservationMasterContact: ReservationContactSchema.or(z.null()),
});

/** The answer's reservation; closeSlots and openSlots are input only (the interface's table). */
export const ReservationSchema = ReservationFields.extend({
  reservation: ReservationFields.openapi("ReservationNested"),
}).openapi("Reservation");
export type Reservation = z.infer<typeof ReservationSchema>;

const maps = z.array(FreeObject);

/**
 * VwReservation (E14's answer). Fields the service does not hold (check-in, employee, room,
 * channel, feedback, invoice data, ...) are null.
 */
export const VwReservationSchema = z
  .object({
    checkedIn: nullable(z.boolean()),
    contactId: nullable(Int64),
    createdAt: DateTime.openapi({ description: "The stored local createdAt, read as UTC." }),
    updatedAt: DateTime.openapi({ description: "The stored local updatedAt, read as UTC." }),
    date: CalendarDate,
    time: LocalTimeOutSchema,
    startDateTime: nullable(DateTime).openapi({
      description: "The reservation's local date and time, read as UTC (as createdAt is).",
    }),
    endDateTime: nullable(DateTime).openapi({
      description:
        "startDateTime plus the experience's duration when that is an ISO 8601 duration of days and time (PT1H30M, PT0.5S, PT1.5H, P1DT2H; a fraction on the last part only); null otherwise.",
    }),
    discountTotalCents: nullable(Int64),
    dueTotalCents: nullable(Int64),
    giftAmountCents: nullable(Int64),
    grossTotalCents: nullable(Int64),
    manualDiscountTotalCents: nullable(Int64),
    netTotalCents: nullable(Int64),
    refundedTotalCents: Int64,
    guestCount01: nullable(Int64),
    guestCountTotal: nullable(Int64),
    manualOriginId: nullable(Int64),
    manualPaymentMethodId: nullable(Int64),
    employeeId: nullable(Uuid),
    experienceId: Uuid,
    giftId: nullable(Uuid),
    id: Uuid,
    paymentId: nullable(Uuid),
    roomId: nullable(Uuid),
    wineryId: Uuid,
    paidAt: nullable(DateTime),
    refundedAt: nullable(DateTime),
    experience: maps,
    experiencePrices: maps.openapi({
      description:
        "The experience's experiencePriceLabelsAttributes values (ExperiencePriceLabels), by key.",
    }),
    experiencePricesExtras: maps.openapi({
      description:
        "The experience's experiencePriceExtrasAttributes values (ExperiencePriceExtras), by key.",
    }),
    experienceTranslations: maps.openapi({
      description:
        "One `{experienceId, languageIsoCode, text}` per language of the experience's titleTranslations.",
    }),
    reservationContacts: maps,
    reservationPriceExtras: maps,
    reservationPriceLabels: maps,
    experienceTitleIt: nullable(z.string()),
    feedback: nullable(z.string()),
    languageIso: nullable(z.string()),
    masterContactName: nullable(z.string()),
    message: nullable(z.string()),
    notes: nullable(z.string()),
    origin: nullable(z.string()),
    paymentCurrency: nullable(z.string()),
    paymentMethod: nullable(z.string()),
    reservationOrigin: nullable(z.string()),
    reservationOriginIt: nullable(z.string()),
    state: nullable(z.string()),
    type: nullable(z.string()),
    visitReasonId: nullable(z.string()),
    wineryChannelId: nullable(z.string()),
    wineryChannelTypeId: nullable(z.string()),
    hasPaymentLink: nullable(z.boolean()),
    invoiceData: nullable(z.boolean()),
    isSales: nullable(z.boolean()),
    isTourOperator: nullable(z.boolean()),
    notifyContact: nullable(z.boolean()),
    paid: nullable(z.boolean()),
    optionalData: NullableFreeObject,
    otherData: NullableFreeObject,
    reservationMasterContact: NullableFreeObject,
  })
  .openapi("VwReservation");
export type VwReservation = z.infer<typeof VwReservationSchema>;
