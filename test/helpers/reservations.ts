import { and, eq, sql } from "drizzle-orm";
import { reservationRefunds, slots } from "../../src/db/schema";
import type { Reservation, VwReservation } from "../../src/schemas/reservation-views";
import { api } from "./api";
import { testDb } from "./db";
import { createExperience } from "./experiences";
import type { TestTenant } from "./factories";

const unique = () => crypto.randomUUID().slice(0, 8);

/** A slot of the experience, written directly (E9 has its own tests). */
export async function createSlot(
  tenant: TestTenant,
  experienceId: string,
  date: string,
  time: string,
  maxParties = 10,
): Promise<string> {
  const [row] = await testDb()
    .insert(slots)
    .values({ wineryId: tenant.wineryId, experienceId, date, time, maxParties })
    .returning({ id: slots.id });
  if (!row) throw new Error("no slot");
  return row.id;
}

export async function slotState(slotId: string) {
  const [row] = await testDb().select().from(slots).where(eq(slots.id, slotId));
  if (!row) throw new Error(`slot ${slotId} not found`);
  return row;
}

/** An experience (maxParties 10) with one slot on `date` at 15:00 holding `maxParties`. */
export async function experienceWithSlot(tenant: TestTenant, date = "2027-03-06", maxParties = 10) {
  const experience = await createExperience(tenant);
  const slotId = await createSlot(tenant, experience.id, date, "15:00:00", maxParties);
  return { experienceId: experience.id, slotId, date, time: "15:00:00" };
}

/**
 * `count` CONFIRMED reservations of a new experience of the tenant, written directly (no slots,
 * no contacts), spread over 2027-02-01..07 at 08:00..08:04.
 */
export async function insertReservations(tenant: TestTenant, count: number): Promise<void> {
  const experience = await createExperience(tenant);
  await testDb().execute(sql`
    insert into reservations (id, winery_id, experience_id, date, time, state)
    select gen_random_uuid(), ${tenant.wineryId}, ${experience.id},
      date '2027-02-01' + (g % 7), time '08:00' + make_interval(mins => g % 5), 'CONFIRMED'
    from generate_series(1, ${count}) g`);
}

export const contact = (
  contactType: "MASTER" | "SECONDARY",
  email = `${unique()}@example.com`,
) => ({
  contactType,
  countryIso: "IT",
  email,
  firstName: "Giulia",
  lastName: "Rossi",
  phoneNumber: "+39 055 123 4567",
});

export const reservationBody = (
  target: { experienceId: string; date: string; time: string },
  extra: Record<string, unknown> = {},
) => ({
  experienceId: target.experienceId,
  date: target.date,
  time: target.time,
  state: "CONFIRMED",
  guestCount01: 2,
  guestCountTotal: 2,
  languageIso: "en",
  reservationContacts: [contact("MASTER")],
  ...extra,
});

export const putReservation = (
  tenant: TestTenant,
  id: string,
  body: unknown,
  key = tenant.apiKey,
) => api(`/v2/reservations/import/${id}`, { key, method: "PUT", body });

export async function importOk(
  tenant: TestTenant,
  id: string,
  body: unknown,
): Promise<Reservation> {
  const response = await putReservation(tenant, id, body);
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as Reservation;
}

export const refund = (
  tenant: TestTenant,
  id: string,
  amountCents: unknown,
  headers: Record<string, string> = {},
  key = tenant.apiKey,
) => api(`/v2/reservations/${id}/refund`, { key, body: { amountCents }, headers });

export async function refundOk(tenant: TestTenant, id: string, amountCents: number) {
  const response = await refund(tenant, id, amountCents);
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as VwReservation;
}

export const queryReservations = (
  tenant: TestTenant,
  body: Record<string, unknown>,
  query = "",
  key = tenant.apiKey,
) => api(`/v2/reservations/query${query}`, { key, body });

export async function ledgerSum(wineryId: string, reservationId: string): Promise<number> {
  const [row] = await testDb()
    .select({ sum: sql<string>`coalesce(sum(${reservationRefunds.amountCents}), 0)` })
    .from(reservationRefunds)
    .where(
      and(
        eq(reservationRefunds.wineryId, wineryId),
        eq(reservationRefunds.reservationId, reservationId),
      ),
    );
  return Number(row?.sum ?? 0);
}
