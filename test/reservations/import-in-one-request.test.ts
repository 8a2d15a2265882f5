import { env } from "cloudflare:workers";
import { and, asc, eq, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import {
  contacts,
  reservationContacts,
  reservationPayments,
  reservationPriceItems,
  reservationRefunds,
  reservations,
  slots,
} from "../../src/db/schema";
import { AppError, NotFoundError } from "../../src/lib/errors";
import type { Reservation } from "../../src/schemas/reservation-views";
import { ReservationInputSchema } from "../../src/schemas/reservations";
import { importInOneRequest } from "../../src/services/reservations/import-in-one-request";
import { importInTransaction } from "../../src/services/reservations/import-reservation";
import { writeRefund } from "../../src/services/reservations/refund-reservation";
import { SlotFullError } from "../../src/services/reservations/reservation-seats";
import { testDb } from "../helpers/db";
import { createExperience } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

/**
 * E11's batch (importInOneRequest) against the interactive transaction (importInTransaction), on
 * twin data in two wineries: each generated import runs through the batch in winery A and through
 * the transaction in winery B, after the same setup in both (an experience with slots, maybe a
 * reservation already there, paid and refunded). The answers and everything stored must be the
 * same, ids and clock times aside. When the batch leaves the import to the interactive path
 * (`undefined`), it must have written nothing, and the interactive path must refuse the import
 * in B too: the batch decides as the transaction does. Then A runs the transaction, as
 * importReservation does, and the two answers (errors included) must be the same. A slot
 * without room the batch answers itself (SlotFullError, nothing written), exactly when the
 * transaction answers it in B, with the same error.
 */

let a: TestTenant;
let b: TestTenant;
beforeAll(async () => {
  [a, b] = await Promise.all([createTenant(), createTenant()]);
});

const database = () =>
  createDatabase(env, (promise) => {
    void promise;
  });

/** Three slots and a fourth (date, time) without one. */
const KEYS = [
  ["2027-05-01", "10:00:00"],
  ["2027-05-01", "11:00:00"],
  ["2027-05-02", "10:00:00"],
  ["2027-05-02", "11:00:00"],
] as const;

const stamp = fc.constantFrom(
  "2025-01-02T10:00",
  "2025-01-02T10:00:00",
  "2025-03-04T05:06:07.1",
  "2025-03-04T05:06:07.1234",
  "2025-03-04T05:06:07.9999999",
);
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const priceItem = fc.record(
  {
    id: fc.integer({ min: 1, max: 2 ** 40 }),
    position: fc.integer({ min: 0, max: 5 }),
    price_cents: fc.integer({ min: 0, max: 10_000 }),
    price_currency: fc.constantFrom("EUR", "USD"),
    quantity: fc.integer({ min: 0, max: 4 }),
    title_translations: fc.constantFrom({ en: "Cheese" }, { it: "Formaggi", en: "Cheese" }),
    created_at: stamp,
    updated_at: stamp,
    islabel1: fc.boolean(),
  },
  { requiredKeys: [] },
);
const contact = fc.record(
  {
    email: fc.constantFrom(
      "ana@example.com",
      "  Ana@Example.COM ",
      "bo@example.com",
      "cy@example.com",
      "dee@example.com",
    ),
    firstName: fc.constantFrom("Ana", "Bo"),
    lastName: fc.constantFrom("Rossi", "Bianchi"),
    phoneNumber: fc.constantFrom("+39 055 1", "+39 055 2"),
    countryIso: fc.constantFrom("IT", "de"),
    acceptedMarketing: opt(fc.boolean()),
    acceptedPrivacyTerms: opt(fc.boolean()),
    acceptedProfiling: opt(fc.boolean()),
    manualMarketing: opt(fc.boolean()),
    unsubscribed: opt(fc.boolean()),
    otherData: opt(fc.constantFrom({}, { vip: true }, { note: "x", n: [1, 2] })),
  },
  { requiredKeys: ["email", "firstName", "lastName", "phoneNumber", "countryIso"] },
);

/** A body's fields other than the target, the contacts and the seats. */
const fields = fc.record(
  {
    state: fc.constantFrom("CONFIRMED", "draft", null),
    giftId: fc.constantFrom("5d6e7f80-1a2b-4c3d-8e4f-000000000001", null),
    guestCount01: fc.integer({ min: 0, max: 3 }),
    discountTotalCents: fc.integer({ min: 0, max: 500 }),
    dueTotalCents: fc.integer({ min: 0, max: 500 }),
    grossTotalCents: fc.integer({ min: 0, max: 9_000 }),
    netTotalCents: fc.integer({ min: 0, max: 9_000 }),
    manualDiscountTotalCents: fc.integer({ min: 0, max: 100 }),
    paid: fc.boolean(),
    languageIso: fc.constantFrom("it", "en-US", "de", null),
    message: fc.constantFrom("Window table", "", null),
    origin: fc.constantFrom("web", null),
    paymentCurrency: fc.constantFrom("EUR", null),
    createdAt: stamp,
    updatedAt: stamp,
    additionalQuestionAnswers: fc.constantFrom(
      [],
      [{ answerType: "TEXT", freeText: "yes", selectedOptionIds: [1, 2] }],
    ),
    experiencePriceExtras: fc.array(priceItem, { maxLength: 2 }),
    experiencePriceLabels: fc.array(priceItem, { maxLength: 2 }),
    experienceTitleTranslations: fc.constantFrom(
      { labelKey: "t", translations: [{ label: "Visita", languageISO: "it" }] },
      null,
    ),
    optionalData: fc.constantFrom({ a: 1 }, null),
    otherData: fc.constantFrom({ b: [true, null] }, null),
  },
  { requiredKeys: [] },
);

const body = fc.record({
  key: fc.integer({ min: 0, max: 3 }),
  seats: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined, freq: 6 }),
  switches: fc.constantFrom(
    {},
    {},
    { closeSlots: true },
    { openSlots: true },
    { closeSlots: false },
  ),
  paidTotalCents: fc.constantFrom(undefined, 0, 1, 1500, 3000, 5000),
  // Emails distinct once folded: one contact twice is 400 (E11's description).
  contacts: fc.uniqueArray(contact, {
    minLength: 1,
    maxLength: 3,
    selector: (c) => c.email.trim().toLowerCase(),
  }),
  master: fc.nat(),
  fields,
});

const scenario = fc.record({
  slots: fc.tuple(
    ...[0, 1, 2].map(() =>
      fc.record({
        maxParties: fc.constantFrom(0, 2, 4, 6, 8, 10, 12),
        externalOccupants: fc.integer({ min: 0, max: 3 }),
        active: fc.boolean(),
      }),
    ),
  ),
  /** A reservation with the import's id already there, and what happened to it since. */
  prior: fc.option(
    fc.record({
      body,
      paidTotalCents: fc.constantFrom(undefined, 3000, 5000),
      refund: fc.constantFrom(0, 1, 1500, 3000),
      slotMaxParties: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
      slotDeleted: fc.constantFrom(false, false, false, true),
    }),
    { nil: undefined, freq: 3 },
  ),
  experience: fc.constantFrom(...Array<"own">(14).fill("own"), "unknown", "other's"),
  body,
});

type Body = typeof body extends fc.Arbitrary<infer T> ? T : never;

function inputOf(generated: Body, experienceId: string) {
  const [date, time] = KEYS[generated.key] ?? KEYS[0];
  const master = generated.master % generated.contacts.length;
  return ReservationInputSchema.parse({
    experienceId,
    date,
    time: time.slice(0, 5),
    ...(generated.seats !== undefined && { guestCountTotal: generated.seats }),
    ...generated.switches,
    ...(generated.paidTotalCents !== undefined && { paidTotalCents: generated.paidTotalCents }),
    ...generated.fields,
    reservationContacts: generated.contacts.map((c, i) => ({
      ...c,
      contactType: i === master ? "MASTER" : "SECONDARY",
    })),
  });
}

const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ status: "fulfilled" as const, value }),
    (reason: unknown) => ({ status: "rejected" as const, reason }),
  );

/** Names for a winery's ids, the same in both twins. */
class Names {
  readonly ids = new Map<string, string>();
  constructor(wineryId: string) {
    this.ids.set(wineryId, "winery");
  }
  name(id: string, as: string) {
    this.ids.set(id, as);
  }
}

const NEAR = 24 * 3600_000;
/** A clock time near now (a default or now() of the write) is "now"; input times stay as given. */
function clock(value: string | Date): string {
  const text = value instanceof Date ? value.toISOString() : value;
  const ms =
    value instanceof Date
      ? value.getTime()
      : Date.parse(value.endsWith("Z") ? value : `${value.replace(" ", "T")}Z`);
  return Math.abs(ms - Date.now()) < NEAR ? "now" : text;
}

/** `value` with ids replaced by their names and clock times near now by "now". */
function normalize(value: unknown, names: Names, contactEmails: Map<number, string>): unknown {
  if (value instanceof Date) return clock(value);
  if (Array.isArray(value)) return value.map((v) => normalize(v, names, contactEmails));
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        (k === "contactId" || k === "contact_id") && typeof v === "number"
          ? `contact ${contactEmails.get(v) ?? "?"}`
          : normalize(v, names, contactEmails),
      ]),
    );
  if (typeof value === "string") {
    let text = names.ids.get(value) ?? value;
    for (const [id, name] of names.ids) text = text.replaceAll(id, name);
    return /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/.test(text) ? clock(text) : text;
  }
  return value;
}

async function contactEmailsOf(wineryId: string) {
  const rows = await testDb()
    .select({ id: contacts.id, key: contacts.emailKey })
    .from(contacts)
    .where(eq(contacts.wineryId, wineryId));
  return new Map(rows.map((r) => [r.id, r.key]));
}

/**
 * What E11 writes in the winery, ids aside, in a stable order: the slots of the run's experience,
 * the run's reservation with its links, price items, payment and refunds, and all the winery's
 * contacts (the runs share them).
 */
async function stored(wineryId: string, experienceId: string, reservationId: string) {
  const db = testDb();
  const of = { wineryId, reservationId };
  const [slotRows, reservationRows, links, contactRows, items, payments, refunds] =
    await Promise.all([
      db
        .select()
        .from(slots)
        .where(and(eq(slots.wineryId, wineryId), eq(slots.experienceId, experienceId)))
        .orderBy(asc(slots.date), asc(slots.time)),
      db
        .select()
        .from(reservations)
        .where(and(eq(reservations.wineryId, wineryId), eq(reservations.id, reservationId))),
      db
        .select()
        .from(reservationContacts)
        .where(keyOf(reservationContacts, of))
        .orderBy(asc(reservationContacts.id)),
      db
        .select()
        .from(contacts)
        .where(eq(contacts.wineryId, wineryId))
        .orderBy(asc(contacts.emailKey)),
      db
        .select()
        .from(reservationPriceItems)
        .where(keyOf(reservationPriceItems, of))
        .orderBy(asc(reservationPriceItems.id)),
      db.select().from(reservationPayments).where(keyOf(reservationPayments, of)),
      db
        .select()
        .from(reservationRefunds)
        .where(keyOf(reservationRefunds, of))
        .orderBy(asc(reservationRefunds.id)),
    ]);
  const emails = await contactEmailsOf(wineryId);
  return {
    emails,
    state: {
      slots: slotRows.map(({ createdAt, updatedAt, ...rest }) => ({
        ...rest,
        touched: createdAt.getTime() !== updatedAt.getTime(),
      })),
      reservations: reservationRows,
      links: links.map(({ id, ...rest }) => rest),
      contacts: contactRows.map(({ id, ...rest }) => rest),
      items: items.map(({ id, ...rest }) => rest),
      payments: payments.map(({ id, ...rest }) => rest),
      refunds: refunds.map(({ id, paymentId, ...rest }) => rest),
    },
  };
}

type Keyed = { wineryId: AnyPgColumn; reservationId: AnyPgColumn };
const keyOf = (table: Keyed, of: { wineryId: string; reservationId: string }) =>
  and(eq(table.wineryId, of.wineryId), eq(table.reservationId, of.reservationId));

async function storedNormalized(
  wineryId: string,
  experienceId: string,
  reservationId: string,
  names: Names,
) {
  const { state, emails } = await stored(wineryId, experienceId, reservationId);
  return normalize(state, names, emails);
}

function outcomeOf(
  outcome: { status: "fulfilled"; value: Reservation } | { status: "rejected"; reason: unknown },
) {
  if (outcome.status === "fulfilled") return outcome.value;
  const error = outcome.reason;
  if (!(error instanceof AppError)) throw error;
  return { code: error.code, message: error.message, extensions: error.options.extensions };
}

describe("E11 in one HTTP request", () => {
  it("answers and writes what the interactive transaction does, for generated imports", async () => {
    const db = database();
    let run = 0;
    const twins = [a, b].map((tenant) => ({ tenant, names: new Names(tenant.wineryId) }));
    await fc.assert(
      fc.asyncProperty(scenario, async (generated) => {
        run += 1;
        const id = crypto.randomUUID();
        // The same setup in both wineries.
        const experiences: string[] = [];
        for (const { tenant, names } of twins) {
          const experience = await createExperience(tenant);
          experiences.push(experience.id);
          names.name(experience.id, `experience ${run}`);
          names.name(id, `reservation ${run}`);
          for (const [i, slot] of generated.slots.entries()) {
            const [date, time] = KEYS[i] ?? KEYS[0];
            const [row] = await testDb()
              .insert(slots)
              .values({
                wineryId: tenant.wineryId,
                experienceId: experience.id,
                date,
                time,
                ...slot,
              })
              .returning({ id: slots.id });
            if (row) names.name(row.id, `slot ${run} ${date} ${time}`);
          }
        }
        const [twinA, twinB] = twins;
        if (!twinA || !twinB) throw new Error("no twins");
        twinA.names.name(experiences[1] ?? "", "the other winery's experience");
        twinB.names.name(experiences[0] ?? "", "the other winery's experience");
        const prior = generated.prior;
        if (prior) {
          const answers = [];
          for (const [i, { tenant }] of twins.entries()) {
            const input = inputOf(
              { ...prior.body, paidTotalCents: prior.paidTotalCents },
              experiences[i] ?? "",
            );
            const answer = await settle(importInTransaction(db, tenant.wineryId, id, input));
            answers.push(answer.status);
            if (answer.status === "rejected") continue;
            const [row] = await testDb()
              .select({ slotId: reservations.slotId })
              .from(reservations)
              .where(
                sql`${reservations.wineryId} = ${tenant.wineryId} and ${reservations.id} = ${id}`,
              );
            if (prior.refund > 0 && (prior.paidTotalCents ?? 0) >= prior.refund)
              await writeRefund(db.http, tenant.wineryId, id, prior.refund);
            if (row?.slotId && prior.slotMaxParties !== undefined)
              await testDb()
                .update(slots)
                .set({ maxParties: prior.slotMaxParties })
                .where(eq(slots.id, row.slotId));
            if (row?.slotId && prior.slotDeleted)
              await testDb().delete(slots).where(eq(slots.id, row.slotId));
          }
          expect(answers).toEqual([answers[0], answers[0]]);
        }
        const experienceOf = (i: number) =>
          generated.experience === "own"
            ? (experiences[i] ?? "")
            : generated.experience === "other's"
              ? (experiences[1 - i] ?? "")
              : "00000000-0000-4000-8000-000000000000";
        const [inA, inB] = [
          inputOf(generated.body, experienceOf(0)),
          inputOf(generated.body, experienceOf(1)),
        ];

        const before = await storedNormalized(a.wineryId, experiences[0] ?? "", id, twinA.names);
        const { result: fast, trips } = await countRoundTrips(() =>
          settle(importInOneRequest(db.http, a.wineryId, id, inA)),
        );
        expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
        const slow = await settle(importInTransaction(db, b.wineryId, id, inB));
        // The batch answers a slot without room and an experience not the winery's itself, as
        // the interactive path does (compared below), and leaves to that path exactly the other
        // imports it refuses.
        const answered = (outcome: typeof fast | typeof slow) =>
          outcome.status === "rejected" &&
          (outcome.reason instanceof SlotFullError || outcome.reason instanceof NotFoundError);
        if (fast.status === "rejected" && !answered(fast)) throw fast.reason;
        const leftOver = fast.status === "fulfilled" && fast.value === undefined;
        expect([leftOver, answered(fast)], JSON.stringify(outcomeOf(slow))).toEqual([
          slow.status === "rejected" && !answered(slow),
          answered(slow),
        ]);
        let answerA: Parameters<typeof outcomeOf>[0];
        if (fast.status === "rejected" || leftOver) {
          expect(await storedNormalized(a.wineryId, experiences[0] ?? "", id, twinA.names)).toEqual(
            before,
          );
        }
        if (fast.status === "rejected") answerA = fast;
        else if (fast.value === undefined)
          answerA = await settle(importInTransaction(db, a.wineryId, id, inA));
        else answerA = { status: "fulfilled", value: fast.value };
        const [storedA, storedB] = await Promise.all([
          storedNormalized(a.wineryId, experiences[0] ?? "", id, twinA.names),
          storedNormalized(b.wineryId, experiences[1] ?? "", id, twinB.names),
        ]);
        expect(storedA).toEqual(storedB);
        const [emailsA, emailsB] = await Promise.all([
          contactEmailsOf(a.wineryId),
          contactEmailsOf(b.wineryId),
        ]);
        expect(normalize(outcomeOf(answerA), twinA.names, emailsA)).toEqual(
          normalize(outcomeOf(slow), twinB.names, emailsB),
        );
        // The answer's bytes, ids aside: the same document, key for key.
        if (answerA.status === "fulfilled" && slow.status === "fulfilled") {
          const text = (r: Reservation, names: Names, emails: Map<number, string>) =>
            JSON.stringify(normalize(r, names, emails));
          expect(text(answerA.value, twinA.names, emailsA)).toBe(
            text(slow.value, twinB.names, emailsB),
          );
        }
      }),
      { numRuns: 60 },
    );
  }, 240_000);
});
