import { and, eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import { slots } from "../../src/db/schema";
import type { BusinessLocation } from "../../src/schemas/business-location";
import type { Slot } from "../../src/schemas/slots";
import { testDb } from "../helpers/db";
import { createExperience, nextWeekDays } from "../helpers/experiences";
import type { TestTenant } from "../helpers/factories";
import { call, type Random, type Scenario, type Task, unexpected } from "./workload";

const TIMES = ["10:00", "11:00", "12:00", "13:00"];

/**
 * Slots under load: on one experience's four slots, E9 updates (newMaxParties, newOccupantsCount),
 * experience saves (maxParties, propagated to the slots not changed by hand), reads of
 * GET /availabilities, and seats taken as reservations take them (the conditional UPDATE the slots
 * table documents), all at once. 409 CONFLICT (a slot would drop below its occupants) is a fair
 * answer. Afterwards no slot holds more than its maxParties or a negative count, each slot's
 * reserved seats are exactly the takes that succeeded, and every value stored was one some
 * successful request wrote.
 */
export function slotScenario(
  random: Random,
  actions: number,
  takes: number,
  saves: number,
  reads: number,
): Scenario {
  let experienceId = "";
  let day = "";
  let slotIds: string[] = [];
  const written = { maxParties: new Set([10]), externalOccupants: new Set([0]) };
  const taken = new Map<string, number>();
  const experienceBody = (maxParties: number) => ({
    active: true,
    maxParties,
    minPartiesToEnable: 1,
    languagesIsoCode: ["en", "it"],
    titleTranslations: { en: "Tasting", it: "Degustazione" },
  });

  // Choices are drawn when the tasks are made, before the run, so every run does the same work.
  const act = (t: TestTenant): Task => {
    const slotId = random.pick(slotIds);
    const change: { newMaxParties?: number; newOccupantsCount?: number } =
      random.next() < 0.5
        ? { newMaxParties: random.int(2, 12) }
        : { newOccupantsCount: random.int(0, 6) };
    return async () => {
      const answer = await call("/v2/availabilities/actions", {
        key: t.apiKey,
        body: { requests: [{ action: "UPDATE", slotId, ...change }] },
      });
      if (answer.status === 409 && answer.body.code === "CONFLICT") return;
      if (answer.status !== 200) throw unexpected("E9", answer);
      if (change.newMaxParties !== undefined) written.maxParties.add(change.newMaxParties);
      if (change.newOccupantsCount !== undefined)
        written.externalOccupants.add(change.newOccupantsCount);
    };
  };
  const take = (): Task => {
    const slotId = random.pick(slotIds);
    const seats = random.int(1, 3);
    return async () => {
      const { rows } = await testDb().execute(sql`
      update slots set reserved_count = reserved_count + ${seats}
      where id = ${slotId} and occupied_count + ${seats} <= max_parties returning id`);
      if (rows.length === 1) taken.set(slotId, (taken.get(slotId) ?? 0) + seats);
    };
  };
  const save = (t: TestTenant): Task => {
    const maxParties = random.pick([6, 8, 10, 12]);
    return async () => {
      const answer = await call(`/v2/experiences/${experienceId}`, {
        key: t.apiKey,
        method: "PUT",
        body: experienceBody(maxParties),
      });
      if (answer.status === 409 && answer.body.code === "CONFLICT") return;
      if (answer.status !== 200) throw unexpected("experience save", answer);
      written.maxParties.add(maxParties);
    };
  };
  const read =
    (t: TestTenant): Task =>
    async () => {
      const answer = await call(
        `/v2/availabilities?experienceId=${experienceId}&from=${day}&to=${day}`,
        {
          key: t.apiKey,
        },
      );
      if (answer.status !== 200) throw unexpected("GET availabilities", answer);
      for (const slot of answer.body as Slot[])
        expect(slot.occupiedCount).toBeLessThanOrEqual(slot.maxParties);
    };

  return {
    name: "E9 slot actions, experience saves and seats taken",
    arrange: async (t) => {
      experienceId = (await createExperience(t)).id;
      day = nextWeekDays("TUESDAY", 1)[0] ?? "";
      const answer = await call("/v2/availabilities/actions", {
        key: t.apiKey,
        body: { requests: TIMES.map((time) => ({ action: "CREATE", experienceId, day, time })) },
      });
      if (answer.status !== 200) throw unexpected("E9 create", answer);
      slotIds = (answer.body as BusinessLocation[])[0]?.slotActions.created.map((s) => s.id) ?? [];
      expect(slotIds).toHaveLength(TIMES.length);
    },
    // One resource (the experience and its slots) for everything: single-task bursts interleave.
    tasks: (t) =>
      [
        ...Array.from({ length: actions }, () => act(t)),
        ...Array.from({ length: takes }, take),
        ...Array.from({ length: saves }, () => save(t)),
        ...Array.from({ length: reads }, () => read(t)),
      ].map((task) => [task]),
    verify: async (t) => {
      const rows = await testDb()
        .select()
        .from(slots)
        .where(and(eq(slots.wineryId, t.wineryId), eq(slots.experienceId, experienceId)));
      expect(rows.map((r) => r.id).sort()).toEqual([...slotIds].sort());
      for (const row of rows) {
        expect(row.occupiedCount).toBeLessThanOrEqual(row.maxParties);
        expect(row.reservedCount).toBe(taken.get(row.id) ?? 0);
        expect(written.maxParties.has(row.maxParties)).toBe(true);
        expect(written.externalOccupants.has(row.externalOccupants)).toBe(true);
      }
    },
  };
}
