/**
 * Demo reservations on the demo experiences' first slots, imported the way E11 imports them
 * (contacts upserted, seats taken, in-house payments recorded): some paid in-house, one partly
 * refunded (the `reservationId` the seed prints: on the printed `experienceId`, with a refundable
 * rest for E14). The printed `slotId` is a slot of that experience that holds no reservation, for
 * E9's UPDATE and DELETE; the other reservations' slots are the occupied ones of E9's conflicts.
 * Each carries its experience's titleTranslations as the LabelTranslations an integrator sends in
 * E11's experienceTitleTranslations, so E16's Lang picks among the reservation's own labels.
 * Idempotent: fixed ids per winery, and a reservation that exists already is left alone (so a
 * later run, whose slots are other days, neither moves nor duplicates it), but for those labels
 * when it has none (seeded before it had them).
 */
import { and, asc, count, eq, gt, inArray, isNull, ne, notExists, sql } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import * as schema from "../../src/db/schema";
import { todayUtc } from "../../src/lib/calendar";
import type { ReservationInput } from "../../src/schemas/reservations";
import { writeReservation } from "../../src/services/reservations/import-reservation";
import { writeRefund } from "../../src/services/reservations/refund-reservation";
import { LANGUAGE_ISO } from "../../src/services/reservations/reservation-json";
import { TASTING } from "./experiences";

const GUESTS = [
  {
    first: "Giulia",
    last: "Rossi",
    email: "giulia.rossi@guests.example",
    country: "IT",
    lang: "it",
  },
  { first: "Anne", last: "Martin", email: "anne.martin@guests.example", country: "FR", lang: "en" },
  { first: "Lukas", last: "Weber", email: "lukas.weber@guests.example", country: "DE", lang: "en" },
  { first: "James", last: "Smith", email: "james.smith@guests.example", country: "GB", lang: "en" },
  {
    first: "Chiara",
    last: "Conti",
    email: "chiara.conti@guests.example",
    country: "IT",
    lang: "it",
  },
  {
    first: "Pierre",
    last: "Dubois",
    email: "pierre.dubois@guests.example",
    country: "FR",
    lang: "en",
  },
];

/** Paid in-house (cents) per demo reservation; the first is then refunded in part. */
const PAID = [5000, 8000, 0, 2500, 0, 12000];
const PARTIAL_REFUND_CENTS = 1500;

type LabelTranslations = NonNullable<ReservationInput["experienceTitleTranslations"]>;
type Language = NonNullable<NonNullable<LabelTranslations["translations"]>[number]["language"]>;
const LANGUAGE_OF = new Map(
  Object.entries(LANGUAGE_ISO).map(([language, iso]) => [iso, language as Language]),
);

/**
 * An experience's titleTranslations ({"en": "Classic tasting", ...}) as E11's LabelTranslations,
 * every member of the interface's present (labelKey null: the titles have no key of their own).
 */
function titleLabels(titles: Record<string, string> | null): LabelTranslations | undefined {
  if (!titles) return undefined;
  const translations = Object.entries(titles).map(([iso, label]) => ({
    label,
    language: LANGUAGE_OF.get(iso),
    languageISO: iso,
  }));
  const languagesPresent = translations.flatMap((t) => (t.language ? [t.language] : []));
  return { labelKey: null, languagesPresent, translations };
}

export interface SeededReservations {
  /** The ids `npm run seed` prints: reservationId and slotId. */
  ids: Record<string, string>;
  /** Demo reservations added by this run, and demo reservations there are. */
  created: number;
  total: number;
  /** Demo reservations already there that this run gave their experience's title labels. */
  labelled: number;
}

export async function seedReservations(
  db: NodePgDatabase<typeof schema>,
  wineryId: string,
): Promise<SeededReservations> {
  const future = and(eq(schema.slots.wineryId, wineryId), gt(schema.slots.date, todayUtc()));
  const byTime = [asc(schema.slots.date), asc(schema.slots.time), asc(schema.slots.id)];
  // The refunded reservation on the printed experience's first slot, the others on the first slots.
  const [first] = await db
    .select()
    .from(schema.slots)
    .where(and(future, eq(schema.slots.experienceId, TASTING)))
    .orderBy(...byTime)
    .limit(1);
  const others = await db
    .select()
    .from(schema.slots)
    .where(first ? and(future, ne(schema.slots.id, first.id)) : future)
    .orderBy(...byTime)
    .limit(GUESTS.length - 1);
  const slots = first ? [first, ...others] : others;
  const ids = GUESTS.map(
    (_, i) => `5d6e7f80-1a2b-4c3d-8e4f-${wineryId.slice(-10)}${String(i).padStart(2, "0")}`,
  );
  const titles = new Map(
    (
      await db
        .select({ id: schema.experiences.id, titles: schema.experiences.titleTranslations })
        .from(schema.experiences)
        .where(eq(schema.experiences.wineryId, wineryId))
    ).map((e) => [e.id, titleLabels(e.titles)]),
  );
  let created = 0;
  let labelled = 0;
  for (const [i, guest] of GUESTS.entries()) {
    const slot = slots[i];
    const id = ids[i];
    if (!slot || !id) continue;
    const key = and(eq(schema.reservations.wineryId, wineryId), eq(schema.reservations.id, id));
    const [existing] = await db
      .select({
        experienceId: schema.reservations.experienceId,
        labels: schema.reservations.experienceTitleTranslations,
      })
      .from(schema.reservations)
      .where(key);
    if (existing) {
      const labels = titles.get(existing.experienceId);
      if (existing.labels === null && labels) {
        await db
          .update(schema.reservations)
          .set({ experienceTitleTranslations: labels })
          .where(and(key, isNull(schema.reservations.experienceTitleTranslations)));
        labelled++;
      }
      continue;
    }
    const guests = 2 + (i % 3);
    const paid = PAID[i] ?? 0;
    await db.transaction(async (tx) => {
      await writeReservation(tx, wineryId, id, {
        experienceId: slot.experienceId,
        experienceTitleTranslations: titles.get(slot.experienceId),
        date: slot.date,
        time: slot.time,
        state: i === 4 ? "draft" : "CONFIRMED",
        guestCount01: guests,
        guestCountTotal: guests,
        grossTotalCents: paid || 4000,
        paidTotalCents: paid,
        paid: paid > 0,
        paymentCurrency: "EUR",
        languageIso: guest.lang,
        origin: "demo-seed",
        message: i === 1 ? "A table by the window, please." : undefined,
        reservationContacts: [
          {
            contactType: "MASTER",
            countryIso: guest.country,
            email: guest.email,
            firstName: guest.first,
            lastName: guest.last,
            phoneNumber: `+39 333 00000${i}`,
            acceptedPrivacyTerms: true,
          },
        ],
      });
      if (i === 0) await writeRefund(tx, wineryId, id, PARTIAL_REFUND_CENTS);
    });
    created++;
  }
  const [{ total } = { total: 0 }] = await db
    .select({ total: count() })
    .from(schema.reservations)
    .where(and(eq(schema.reservations.wineryId, wineryId), inArray(schema.reservations.id, ids)));
  const [free] = await db
    .select({ id: schema.slots.id })
    .from(schema.slots)
    .where(
      and(
        future,
        eq(schema.slots.experienceId, TASTING),
        eq(schema.slots.reservedCount, 0),
        eq(schema.slots.externalOccupants, 0),
        notExists(
          db
            .select({ one: sql`1` })
            .from(schema.reservations)
            .where(eq(schema.reservations.slotId, schema.slots.id)),
        ),
      ),
    )
    .orderBy(...byTime)
    .limit(1);
  return { ids: { reservationId: ids[0] ?? "", slotId: free?.id ?? "" }, created, total, labelled };
}
