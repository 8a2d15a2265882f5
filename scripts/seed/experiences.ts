/**
 * Demo experiences, a season of their slots and the winery's business-location record (profile,
 * closing period, file, parameters, photo, service, wine region and a sealed integration), so that
 * GET /api/v2/experiences/{id}, E8, E9 and GET /api/v2/availabilities answer something real.
 * Idempotent: fixed ids and ON CONFLICT DO NOTHING. Slots cover the eight weeks from the day the
 * seed first runs (a run on a later day adds the weeks not yet covered, never a duplicate).
 */
import { eq, sql } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import * as schema from "../../src/db/schema";
import { addDays, eachDay, todayUtc, weekDayOf } from "../../src/lib/calendar";
import { sealSecret } from "../../src/lib/secret-box";

/**
 * The local development key of INTEGRATIONS_KEY (32 bytes, base64), used when the environment sets
 * none: the Worker run by `npm run dev` must get the same value (`.dev.vars` or a --var flag).
 * Never a production key: production sets its own with `wrangler secret put INTEGRATIONS_KEY`.
 */
export const DEV_INTEGRATIONS_KEY = "ZGV2LW9ubHktaW50ZWdyYXRpb25zLWtleS0zMmJ5dGU=";

/** The experience the seed prints (`experienceId`): its reservation and free slot are printed too. */
export const TASTING = "7d3c2b1a-0f4e-4d5c-8b6a-1e2f3a4b5c6d";
const TOUR = "8e4d3c2b-1a5f-4e6d-9c7b-2f3a4b5c6d7e";
const DINNER = "9f5e4d3c-2b6a-4f7e-8d8c-3a4b5c6d7e8f";
const REGION = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const INTEGRATION = "1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e";

const demo = [
  {
    id: TASTING,
    title: { en: "Classic tasting", it: "Degustazione classica" },
    maxParties: 12,
    priceCents: 2500,
    duration: "PT1H30M",
    schedule: { days: ["TUESDAY", "THURSDAY", "SATURDAY"], times: ["10:30:00", "15:00:00"] },
  },
  {
    id: TOUR,
    title: { en: "Vineyard tour", it: "Tour dei vigneti" },
    maxParties: 20,
    priceCents: 4000,
    duration: "PT2H",
    schedule: { days: ["FRIDAY", "SATURDAY", "SUNDAY"], times: ["09:30:00"] },
  },
  {
    id: DINNER,
    title: { en: "Private dinner in the cellar", it: "Cena privata in cantina" },
    maxParties: 8,
    priceCents: 12000,
    duration: "PT3H",
    schedule: { days: ["SATURDAY"], times: ["19:30:00"] },
  },
];

export async function seedExperiences(
  db: NodePgDatabase<typeof schema>,
  wineryId: string,
): Promise<Record<string, string>> {
  await seedBusinessLocation(db, wineryId);
  const today = todayUtc();
  for (const e of demo) {
    await db
      .insert(schema.experiences)
      .values({
        id: e.id,
        wineryId,
        active: true,
        instantBooking: true,
        showWebsite: true,
        showWidget: true,
        maxParties: e.maxParties,
        minPartiesToEnable: 1,
        priceCents: e.priceCents,
        priceCurrency: "EUR",
        duration: e.duration,
        vatRate: "22",
        titleTranslations: e.title,
        languagesIsoCode: ["en", "it"],
        placeAttributes: {
          city: "Montalcino",
          province: "SI",
          region: "Toscana",
          lat: 43.05,
          lng: 11.49,
        },
      })
      .onConflictDoNothing();
    const dates = eachDay(addDays(today, 1), addDays(today, 56), (d) =>
      e.schedule.days.includes(weekDayOf(d)),
    );
    const keys = dates.flatMap((date) => e.schedule.times.map((time) => ({ date, time })));
    // The slots not there yet (a later run adds the days since). Not ON CONFLICT DO NOTHING:
    // the (experience, date, time) key is a deferrable constraint (drizzle/0012), which Postgres
    // refuses as an arbiter.
    await db.execute(sql`
      insert into slots (winery_id, experience_id, date, time, max_parties, min_parties,
        enabled_languages, default_languages)
      select ${wineryId}, ${e.id}, k.date, k.time, ${e.maxParties}, 1, '{en,it}', '{en}'
      from jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as k(date date, time time)
      where not exists (select 1 from slots s where s.winery_id = ${wineryId}
        and s.experience_id = ${e.id} and s.date = k.date and s.time = k.time)`);
  }
  // The printed slotId is chosen once the demo reservations are placed (reservations.ts).
  return { experienceId: TASTING };
}

async function seedBusinessLocation(db: NodePgDatabase<typeof schema>, wineryId: string) {
  await db
    .insert(schema.wineRegions)
    .values({ id: REGION, name: "Brunello di Montalcino" })
    .onConflictDoNothing();
  await db
    .update(schema.wineries)
    .set({
      businessName: "Tenuta Demo S.r.l.",
      description: "A family estate on the hills south of Montalcino.",
      phone: "+39 0577 000000",
      companyEmail: "info@tenuta-demo.example",
      notificationEmails: ["bookings@tenuta-demo.example"],
      street: "Strada di Sant'Antimo 1",
      city: "Montalcino",
      province: "SI",
      region: "Toscana",
      state: "IT",
      zipcode: "53024",
      lat: 43.05,
      lng: 11.49,
      wineRegionId: REGION,
      acceptProviderAPayments: true,
      acceptPayAtWineryPayments: true,
      openingHours: "Tue-Sun 9:00-19:00",
    })
    .where(eq(schema.wineries.id, wineryId));
  const fixed = (n: number) =>
    `2c3d4e5f-6a7b-4c8d-9e0f-${wineryId.slice(-10)}${String(n).padStart(2, "0")}`;
  await db
    .insert(schema.wineryClosingPeriods)
    .values({ id: fixed(1), wineryId, first: "2026-12-24", last: "2027-01-06" })
    .onConflictDoNothing();
  await db
    .insert(schema.wineryFiles)
    .values({
      id: fixed(2),
      wineryId,
      title: "Wine list",
      typeFile: "PDF",
      contentData: { url: "https://tenuta-demo.example/wine-list.pdf" },
    })
    .onConflictDoNothing();
  await db
    .insert(schema.wineryParameters)
    .values({ id: fixed(3), wineryId, parameterKey: "booking.cutoffHours", parameterValue: "24" })
    .onConflictDoNothing();
  await db
    .insert(schema.wineryPhotos)
    .values({
      id: fixed(4),
      wineryId,
      cover: true,
      main: true,
      title: "The cellar",
      imageType: "image/jpeg",
      publicId: "demo/cellar",
    })
    .onConflictDoNothing();
  await db
    .insert(schema.wineryServices)
    .values({
      id: fixed(5),
      wineryId,
      name: "Parking",
      nameTranslations: { en: "Parking", it: "Parcheggio" },
    })
    .onConflictDoNothing();
  const key = process.env.INTEGRATIONS_KEY ?? DEV_INTEGRATIONS_KEY;
  await db
    .insert(schema.wineryIntegrations)
    .values({
      id: fixed(6),
      wineryId,
      integrationId: INTEGRATION,
      integrationName: "booking-portal",
      authTokenCiphertext: await sealSecret(key, "demo-portal-token-0001", wineryId),
      integrationOptions: { syncAvailability: true },
    })
    .onConflictDoNothing();
}
