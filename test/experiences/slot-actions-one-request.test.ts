import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { addDays, todayUtc } from "../../src/lib/calendar";
import { AppError } from "../../src/lib/errors";
import type { BusinessLocation } from "../../src/schemas/business-location";
import { SlotActionsCommandSchema } from "../../src/schemas/slot-actions";
import { createSlotsInOneRequest } from "../../src/services/slots/create-slots-in-one-request";
import { runSlotActionsInTransaction } from "../../src/services/slots/run-slot-actions";
import { PROPERTY_TIMEOUT, testDb } from "../helpers/db";
import { createExperience, slotRows } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

const database = () =>
  createDatabase(env, (promise) => {
    void promise;
  });
const options = { integrationsKey: env.INTEGRATIONS_KEY };
const day = (n: number) => addDays(todayUtc(), n);
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

type Row = Awaited<ReturnType<typeof slotRows>>[number];

/** A slot by what identifies it within one experience, ids (random on each side) left out. */
const keyOf = (slot: { date: string; time: unknown }) =>
  `${slot.date} ${JSON.stringify(slot.time)}`;

function normalizeRows(rows: Row[]) {
  const keys = new Map(rows.map((r) => [r.id, keyOf(r)]));
  return rows.map(
    ({ id, experienceId, wineryId, createdAt, updatedAt, parentSlotId, ...rest }) => ({
      ...rest,
      parent: parentSlotId ? (keys.get(parentSlotId) ?? "gone") : null,
    }),
  );
}

/** The answer or the error, with each slot named by its key in `rows` (the experience's slots). */
function normalizeOutcome(outcome: PromiseSettledResult<BusinessLocation[]>, rows: Row[]) {
  const keys = new Map(rows.map((r) => [r.id, keyOf(r)]));
  if (outcome.status === "rejected") {
    const error = outcome.reason as unknown;
    if (!(error instanceof AppError)) throw error;
    return {
      code: error.code,
      message: error.code === "CONFLICT" ? undefined : error.message,
      errors: error.options.errors,
      slots: ((error.options.extensions?.slots as Record<string, unknown>[] | undefined) ?? []).map(
        ({ slotId, experienceId, ...rest }) => rest,
      ),
    };
  }
  const [record] = outcome.value;
  if (!record) throw new Error("no record");
  const { slotActions, ...rest } = record;
  const created = slotActions.created.map(
    ({ id, experienceId, parentSlotId, createdAt, updatedAt, ...slot }) => ({
      ...slot,
      parent: parentSlotId ? (keys.get(parentSlotId) ?? "gone") : null,
      written: keys.has(id),
    }),
  );
  const skipped = slotActions.skipped.map(({ slotId, experienceId, ...s }) => ({
    ...s,
    slot: slotId ? keys.get(slotId) : null,
  }));
  return { record: rest, dryRun: slotActions.dryRun, created, skipped, other: slotActions.updated };
}

const request = fc.record(
  {
    unknown: fc.constantFrom(...Array(9).fill(false), true),
    day: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    from: fc.integer({ min: 0, max: 6 }),
    length: fc.integer({ min: 0, max: 6 }),
    weekDays: fc.option(
      fc.dictionary(
        fc.constantFrom(
          "MONDAY",
          "TUESDAY",
          "WEDNESDAY",
          "THURSDAY",
          "FRIDAY",
          "SATURDAY",
          "SUNDAY",
        ),
        fc.boolean(),
      ),
      { nil: undefined },
    ),
    time: fc.constantFrom("10:00", "11:30:00"),
    newMaxParties: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined, freq: 2 }),
    newMinParties: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined, freq: 2 }),
    newEnabledLanguages: fc.option(fc.shuffledSubarray(["en", "it", "de"]), {
      nil: undefined,
      freq: 2,
    }),
    newDefaultLanguages: fc.option(fc.subarray(["en", "it"]), { nil: undefined, freq: 2 }),
    newActive: fc.option(fc.boolean(), { nil: undefined, freq: 2 }),
    newOccupantsCount: fc.option(fc.integer({ min: 0, max: 7 }), { nil: undefined, freq: 2 }),
    ignoreOccupiedSlot: fc.option(fc.boolean(), { nil: undefined, freq: 2 }),
    extraData: fc.option(fc.constantFrom(null, {}, { b: 1, a: [true] }), {
      nil: undefined,
      freq: 2,
    }),
    dryRun: fc.option(fc.constantFrom(...Array(9).fill(false), true), { nil: undefined }),
  },
  { requiredKeys: ["unknown", "from", "length", "time"] },
);

const state = fc.record({
  maxParties: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
  minPartiesToEnable: fc.option(fc.constantFrom(1, 2), { nil: null }),
  languages: fc.constantFrom('["en","it"]', '["it"]', "[]", '"en"', '["de", 3]', "null"),
  existing: fc.array(
    fc.record({ n: fc.integer({ min: 0, max: 9 }), time: fc.constantFrom("10:00", "11:30") }),
    { maxLength: 5 },
  ),
});

describe("E9 with CREATE requests only, in one HTTP request", () => {
  it("answers and writes what the interactive transaction does, for generated calls", {
    timeout: PROPERTY_TIMEOUT,
  }, async () => {
    const db = database();
    await fc.assert(
      fc.asyncProperty(
        state,
        fc.array(request, { minLength: 1, maxLength: 4 }),
        async (stored, generated) => {
          const body = {
            maxParties: stored.maxParties,
            minPartiesToEnable: stored.minPartiesToEnable,
            slotsRequests: stored.existing.map((s) => ({
              day: day(s.n),
              time: s.time,
              maxParties: 5,
            })),
          };
          const [a, b] = await Promise.all([
            createExperience(tenant, body),
            createExperience(tenant, body),
          ]);
          await testDb().execute(
            sql`update experiences set languages_iso_code = ${stored.languages}::jsonb
                where id in (${a.id}, ${b.id})`,
          );
          const command = (experienceId: string) =>
            SlotActionsCommandSchema.parse({
              requests: generated.map(({ unknown, day: n, from, length, weekDays, ...r }) => ({
                action: "CREATE",
                experienceId: unknown ? UNKNOWN : experienceId,
                // `day` or the range with its week days, never both (400 at parse).
                ...(n !== undefined
                  ? { day: day(n) }
                  : { startFromValid: day(from), endToValid: day(from + length), weekDays }),
                ...r,
              })),
            });
          const { result: fast, trips } = await countRoundTrips(() =>
            createSlotsInOneRequest(db.http, tenant.wineryId, command(a.id), options).then(
              (value) => ({ status: "fulfilled" as const, value }),
              (reason: unknown) => ({ status: "rejected" as const, reason }),
            ),
          );
          expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
          // Postgres refuses exactly what the planner refuses: never a call left to the other path.
          if (fast.status === "fulfilled") expect(fast.value).toBeDefined();
          const slow = await runSlotActionsInTransaction(
            db,
            tenant.wineryId,
            command(b.id),
            options,
          ).then(
            (value) => ({ status: "fulfilled" as const, value }),
            (reason: unknown) => ({ status: "rejected" as const, reason }),
          );
          const [rowsA, rowsB] = await Promise.all([
            slotRows(tenant.wineryId, a.id),
            slotRows(tenant.wineryId, b.id),
          ]);
          expect(normalizeRows(rowsA)).toEqual(normalizeRows(rowsB));
          expect(normalizeOutcome(fast as PromiseSettledResult<BusinessLocation[]>, rowsA)).toEqual(
            normalizeOutcome(slow, rowsB),
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});
