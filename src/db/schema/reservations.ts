import { sql } from "drizzle-orm";
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
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { timestampMs } from "./columns";
import { contacts } from "./contacts";
import { experiences, slots } from "./experiences";
import { wineries } from "./wineries";

type Json = Record<string, unknown>;

/**
 * The interface's createdAt/updatedAt are local date-times without a zone (the source system's
 * wall clock), so they are `timestamp without time zone`; when the import sends none, the server's
 * clock in UTC stands in.
 */
const localDateTime = () => timestamp({ withTimezone: false, precision: 3, mode: "string" });
const utcNow = sql`(now() at time zone 'utc')`;

/**
 * A reservation (E11). The id is chosen by the importer (PUT /reservations/import/{id}), so it is
 * unique per winery, like experiences. `slotId` is the slot of the experience at the same date and
 * time, whose `reserved_count` holds `guestCountTotal` seats while the reservation points at it;
 * null when the experience has no slot then, or when E9 deleted the slot (`ignoreOccupiedSlot`):
 * the reservation stays, without a slot.
 */
export const reservations = pgTable(
  "reservations",
  {
    id: uuid().notNull(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    experienceId: uuid().notNull(),
    slotId: uuid().references(() => slots.id, { onDelete: "set null" }),
    date: date({ mode: "string" }).notNull(),
    time: time({ precision: 0 }).notNull(),
    state: text(),
    giftId: uuid(),
    guestCount01: integer(),
    guestCountTotal: integer(),
    discountTotalCents: bigint({ mode: "number" }),
    dueTotalCents: bigint({ mode: "number" }),
    grossTotalCents: bigint({ mode: "number" }),
    netTotalCents: bigint({ mode: "number" }),
    manualDiscountTotalCents: bigint({ mode: "number" }),
    paidTotalCents: bigint({ mode: "number" }),
    paid: boolean(),
    languageIso: text(),
    message: text(),
    origin: text(),
    paymentCurrency: text(),
    additionalQuestionAnswers: jsonb().$type<unknown[]>(),
    experienceTitleTranslations: jsonb().$type<Json>(),
    optionalData: jsonb().$type<Json>(),
    otherData: jsonb().$type<Json>(),
    createdAt: localDateTime().notNull().default(utcNow),
    updatedAt: localDateTime().notNull().default(utcNow),
  },
  (t) => [
    primaryKey({ columns: [t.wineryId, t.id] }),
    foreignKey({
      columns: [t.wineryId, t.experienceId],
      foreignColumns: [experiences.wineryId, experiences.id],
      name: "reservations_experience_fk",
    }),
    // E16's keyset: a winery's reservations by (date, time, id).
    index("reservations_winery_date_time_idx").on(t.wineryId, t.date, t.time, t.id),
    index("reservations_slot_idx").on(t.slotId),
    check(
      "reservations_guests_non_negative",
      sql`coalesce(${t.guestCountTotal}, 0) >= 0 and coalesce(${t.guestCount01}, 0) >= 0`,
    ),
  ],
);

/** The contacts of a reservation (exactly one MASTER, checked at the edge), linked to the winery's contacts. */
export const reservationContacts = pgTable(
  "reservation_contacts",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    wineryId: uuid().notNull(),
    reservationId: uuid().notNull(),
    contactId: bigint({ mode: "number" })
      .notNull()
      .references(() => contacts.id),
    contactType: text().notNull(),
    position: integer().notNull(),
  },
  (t) => [
    foreignKey({
      columns: [t.wineryId, t.reservationId],
      foreignColumns: [reservations.wineryId, reservations.id],
      name: "reservation_contacts_reservation_fk",
    }).onDelete("cascade"),
    index("reservation_contacts_reservation_idx").on(t.wineryId, t.reservationId),
    // "Paid" (src/services/contacts/paid.ts) finds a contact's reservations through this.
    index("reservation_contacts_contact_idx").on(t.wineryId, t.contactId),
    check("reservation_contacts_type", sql`${t.contactType} in ('MASTER', 'SECONDARY')`),
  ],
);

/**
 * The price extras and labels of a reservation, in the interface's snake_case shape. One table
 * for both: a label is an extra with `kind` LABEL and `islabel1`. `itemId` is the wire's `id`;
 * created_at/updated_at are local date-times as the importer sent them.
 */
export const reservationPriceItems = pgTable(
  "reservation_price_items",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    wineryId: uuid().notNull(),
    reservationId: uuid().notNull(),
    kind: text().notNull(),
    position: integer(),
    itemId: bigint({ mode: "number" }),
    experienceId: uuid(),
    priceCents: bigint({ mode: "number" }),
    priceCurrency: text(),
    quantity: integer(),
    titleTranslations: jsonb().$type<Record<string, string>>(),
    islabel1: boolean(),
    sortOrder: integer().notNull(),
    itemCreatedAt: localDateTime(),
    itemUpdatedAt: localDateTime(),
  },
  (t) => [
    foreignKey({
      columns: [t.wineryId, t.reservationId],
      foreignColumns: [reservations.wineryId, reservations.id],
      name: "reservation_price_items_reservation_fk",
    }).onDelete("cascade"),
    index("reservation_price_items_reservation_idx").on(t.wineryId, t.reservationId),
    check("reservation_price_items_kind", sql`${t.kind} in ('EXTRA', 'LABEL')`),
  ],
);

/**
 * Payments of a reservation. E11's paidTotalCents is the one in-house payment (at most one per
 * reservation); `refundedCents` is the guard E14 moves with one conditional UPDATE
 * (`refunded_cents + $amount <= amount_cents`), in the same statement as its ledger row, so the
 * counter always equals the ledger's sum and concurrent refunds can never exceed the payment.
 */
export const reservationPayments = pgTable(
  "reservation_payments",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    wineryId: uuid().notNull(),
    reservationId: uuid().notNull(),
    provider: text().notNull(),
    inHouse: boolean().notNull(),
    amountCents: bigint({ mode: "number" }).notNull(),
    refundedCents: bigint({ mode: "number" }).notNull().default(0),
    capturedAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      columns: [t.wineryId, t.reservationId],
      foreignColumns: [reservations.wineryId, reservations.id],
      name: "reservation_payments_reservation_fk",
    }).onDelete("cascade"),
    uniqueIndex("reservation_payments_in_house_key")
      .on(t.wineryId, t.reservationId)
      .where(sql`${t.inHouse}`),
    // The reservation's payments whatever their kind (E11/E14/E16 documents' paidAt, the cascade
    // from the reservation): the partial key above serves only queries that ask for in_house.
    index("reservation_payments_reservation_idx").on(t.wineryId, t.reservationId),
    check(
      "reservation_payments_refund_bounds",
      sql`${t.refundedCents} >= 0 and ${t.refundedCents} <= ${t.amountCents}`,
    ),
  ],
);

/** The refund ledger: one row per E14 refund. */
export const reservationRefunds = pgTable(
  "reservation_refunds",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    wineryId: uuid().notNull(),
    reservationId: uuid().notNull(),
    paymentId: bigint({ mode: "number" })
      .notNull()
      .references(() => reservationPayments.id, { onDelete: "cascade" }),
    amountCents: bigint({ mode: "number" }).notNull(),
    createdAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    // A reservation's refunds, and their last instant read from the end (the documents' refundedAt).
    index("reservation_refunds_reservation_created_idx").on(
      t.wineryId,
      t.reservationId,
      t.createdAt,
    ),
    check("reservation_refunds_positive", sql`${t.amountCents} > 0`),
  ],
);
