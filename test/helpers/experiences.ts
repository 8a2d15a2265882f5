import { and, asc, eq, sql } from "drizzle-orm";
import { slots } from "../../src/db/schema";
import { addDays, todayUtc, weekDayOf } from "../../src/lib/calendar";
import type { Experience } from "../../src/schemas/experiences";
import { api } from "./api";
import { testDb } from "./db";
import type { TestTenant } from "./factories";

export const saveExperience = (
  tenant: TestTenant,
  id: string,
  body: unknown,
  key = tenant.apiKey,
) => api(`/v2/experiences/${id}`, { key, method: "PUT", body });

/** The body createExperience saves (before what its caller adds). */
export const EXPERIENCE_BODY = {
  active: true,
  maxParties: 10,
  minPartiesToEnable: 1,
  languagesIsoCode: ["en", "it"],
  titleTranslations: { en: "Tasting", it: "Degustazione" },
};

/** A stored experience with `maxParties` 10 and whatever `body` adds. */
export async function createExperience(
  tenant: TestTenant,
  body: Record<string, unknown> = {},
): Promise<Experience> {
  const id = crypto.randomUUID();
  const response = await saveExperience(tenant, id, { ...EXPERIENCE_BODY, ...body });
  if (response.status !== 200) throw new Error(`save failed: ${await response.text()}`);
  return (await response.json()) as Experience;
}

/** The next `count` dates (from tomorrow, UTC) falling on `weekDay`. */
export function nextWeekDays(weekDay: string, count: number, from = addDays(todayUtc(), 1)) {
  const dates: string[] = [];
  for (let d = from; dates.length < count; d = addDays(d, 1))
    if (weekDayOf(d) === weekDay) dates.push(d);
  return dates;
}

export function slotRows(wineryId: string, experienceId: string) {
  return testDb()
    .select()
    .from(slots)
    .where(and(eq(slots.wineryId, wineryId), eq(slots.experienceId, experienceId)))
    .orderBy(asc(slots.date), asc(slots.time));
}

/** Reservations are another issue's: tests occupy seats directly, as reservations will. */
export async function occupy(slotId: string, seats: number) {
  await testDb().execute(sql`update slots set reserved_count = ${seats} where id = ${slotId}`);
}

/** An experience of `count` slots, one a day from tomorrow at 10:00, written directly (fast). */
export async function experienceWithSlots(tenant: TestTenant, count: number) {
  const experience = await createExperience(tenant);
  await testDb().execute(sql`insert into slots (winery_id, experience_id, date, time, max_parties)
    select ${tenant.wineryId}, ${experience.id}, current_date + g, '10:00', 5
    from generate_series(1, ${count}) g`);
  return experience;
}

/** 14 times of day (08:30 .. 21:30): a year of daily slots at each is more than MAX_HTTP_SLOTS. */
export const FOURTEEN_TIMES = Array.from(
  { length: 14 },
  (_, i) => `${String(8 + i).padStart(2, "0")}:30`,
);
