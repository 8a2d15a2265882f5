import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { addDays, todayUtc } from "../../src/lib/calendar";
import type { AppError } from "../../src/lib/errors";
import { type ExperienceInput, ExperienceInputSchema } from "../../src/schemas/experiences";
import { saveAfterReading } from "../../src/services/experiences/save-after-reading";
import { saveInTransaction } from "../../src/services/experiences/save-experience";
import { MAX_HTTP_SLOTS } from "../../src/services/slots/slot-versions";
import { expectProblem } from "../helpers/api";
import { PROPERTY_TIMEOUT, testDatabase, testDb } from "../helpers/db";
import {
  createExperience,
  EXPERIENCE_BODY,
  experienceWithSlots,
  FOURTEEN_TIMES,
  occupy,
  saveExperience,
  slotRows,
} from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import { racedBy, settle } from "../helpers/raced";
import { countRoundTrips } from "../helpers/round-trips";
import { normalizeRefusal, normalizeRows, type SlotRow, slotNames } from "../helpers/slot-twins";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

const database = testDatabase;
const day = (n: number) => addDays(todayUtc(), n);
type Row = SlotRow;

function normalizeOutcome(
  outcome: Awaited<ReturnType<typeof settle<unknown>>>,
  named: Map<string, string>,
) {
  if (outcome.status === "rejected") return normalizeRefusal(outcome.reason, named);
  const { id, createdAt, updatedAt, ...values } = outcome.value as Record<string, unknown>;
  return values;
}

/** Twin experiences: slots on days 1..6 at 10:00 and day 2 at 11:30, seats taken on `occupied`. */
async function twins(occupied: number[], manual: number[]) {
  const body = {
    slotsRequests: [
      { validityStart: day(1), validityEnd: day(6), time: "10:00" },
      { day: day(2), time: "11:30" },
    ],
  };
  const pair = await Promise.all([createExperience(tenant, body), createExperience(tenant, body)]);
  for (const experience of pair) {
    const rows = await slotRows(tenant.wineryId, experience.id);
    for (const i of occupied) if (rows[i]) await occupy(rows[i].id, 3 + i);
    for (const i of manual)
      if (rows[i])
        await testDb().execute(
          sql`update slots set manually_modified = true where id = ${rows[i].id}`,
        );
  }
  return pair.map((experience) => experience.id) as [string, string];
}

const request = fc.oneof(
  fc.record({
    pick: fc.nat(7),
    move: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    time: fc.option(fc.constantFrom("10:00", "11:30", "12:00"), { nil: undefined, freq: 2 }),
    maxParties: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
  }),
  fc.record({
    n: fc.integer({ min: 1, max: 8 }),
    time: fc.constantFrom("10:00", "11:30", "12:00"),
    maxParties: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
  }),
);

const input = fc.record({
  maxParties: fc.constantFrom(10, 10, 10, 4, 12),
  active: fc.constantFrom(true, true, true, false),
  slotsRequests: fc.array(request, { minLength: 1, maxLength: 3 }),
});

function body(generated: typeof input extends fc.Arbitrary<infer T> ? T : never, rows: Row[]) {
  return ExperienceInputSchema.parse({
    ...EXPERIENCE_BODY,
    maxParties: generated.maxParties,
    active: generated.active,
    slotsRequests: generated.slotsRequests.map((r) =>
      "pick" in r
        ? {
            id: rows[r.pick]?.id ?? crypto.randomUUID(),
            ...(r.move !== undefined && { day: day(r.move) }),
            ...(r.time !== undefined && { time: r.time }),
            maxParties: r.maxParties,
          }
        : { day: day(r.n), time: r.time, maxParties: r.maxParties },
    ),
  });
}

describe("PUT experience with slotsRequests: a read, then one batch", () => {
  it("answers and writes what the interactive save does, for generated saves", {
    timeout: PROPERTY_TIMEOUT,
  }, async () => {
    const db = database();
    const today = todayUtc();
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([0, 1, 2, 3, 4, 5, 6], { maxLength: 3 }),
        fc.subarray([0, 1, 2, 3, 4, 5, 6], { maxLength: 2 }),
        input,
        async (occupied, manual, generated) => {
          const [a, b] = await twins(occupied, manual);
          const [beforeA, beforeB] = await Promise.all([
            slotRows(tenant.wineryId, a),
            slotRows(tenant.wineryId, b),
          ]);
          const { result: fast, trips } = await countRoundTrips(() =>
            settle(saveAfterReading(db.http, tenant.wineryId, a, body(generated, beforeA), today)),
          );
          const slow = await settle(
            saveInTransaction(db, tenant.wineryId, b, body(generated, beforeB), today),
          );
          const [afterA, afterB] = await Promise.all([
            slotRows(tenant.wineryId, a),
            slotRows(tenant.wineryId, b),
          ]);
          const [namedA, namedB] = [slotNames(beforeA, afterA), slotNames(beforeB, afterB)];
          expect(normalizeRows(afterA, namedA)).toEqual(normalizeRows(afterB, namedB));
          expect(normalizeOutcome(fast, namedA)).toEqual(normalizeOutcome(slow, namedB));
          // No WebSocket session: a read, and a batch only when the save writes.
          expect(trips).toEqual({
            httpRequests: fast.status === "fulfilled" ? 2 : 1,
            wsSessions: 0,
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  const save = (db: ReturnType<typeof racedBy>["db"], id: string, input: ExperienceInput) =>
    settle(saveAfterReading(db, tenant.wineryId, id, input, todayUtc()));

  it("a slot the save names, changed before its batch, is read and planned again: now occupied, 409", async () => {
    const [id] = await twins([], []);
    const [slot] = await slotRows(tenant.wineryId, id);
    if (!slot) throw new Error("no slot");
    let raced = false;
    const { db, batches } = racedBy(async () => {
      if (raced) return;
      raced = true;
      await occupy(slot.id, 5);
    });
    const outcome = await save(
      db,
      id,
      ExperienceInputSchema.parse({
        ...EXPERIENCE_BODY,
        slotsRequests: [{ id: slot.id, maxParties: 2 }],
      }),
    );
    expect(outcome.status === "rejected" && (outcome.reason as AppError).code).toBe("CONFLICT");
    expect(batches()).toBe(1);
    expect((await slotRows(tenant.wineryId, id))[0]?.maxParties).toBe(slot.maxParties);
  });

  it("a reservation on a slot the save does not read does not stop its batch", async () => {
    const [id] = await twins([], []);
    const [slot, other] = await slotRows(tenant.wineryId, id);
    if (!slot || !other) throw new Error("no slots");
    const { db, batches } = racedBy(() => occupy(other.id, 2));
    const outcome = await save(
      db,
      id,
      ExperienceInputSchema.parse({
        ...EXPERIENCE_BODY,
        slotsRequests: [{ id: slot.id, maxParties: 7 }],
      }),
    );
    expect(outcome.status).toBe("fulfilled");
    expect(batches()).toBe(1);
    expect((await slotRows(tenant.wineryId, id))[0]?.maxParties).toBe(7);
  });

  it("the experience changed before its batch: planned again on the new values, written once", async () => {
    const [id] = await twins([], []);
    const [slot] = await slotRows(tenant.wineryId, id);
    let raced = false;
    const { db, batches } = racedBy(async () => {
      if (raced) return;
      raced = true;
      await testDb().execute(sql`update experiences set max_parties = 3 where id = ${id}`);
    });
    // maxParties 10 is a change from the 3 written meanwhile: it propagates to the slots not
    // changed by hand, which the first plan (made on 10) did not do.
    const outcome = await save(
      db,
      id,
      ExperienceInputSchema.parse({
        ...EXPERIENCE_BODY,
        maxParties: 10,
        slotsRequests: [{ id: slot?.id, extraData: { note: "x" } }],
      }),
    );
    expect(outcome.status).toBe("fulfilled");
    expect(batches()).toBe(2);
    const rows = await slotRows(tenant.wineryId, id);
    expect(rows.map((r) => r.maxParties)).toEqual(rows.map(() => 10));
  });

  it(`an experience of more than ${MAX_HTTP_SLOTS} slots, or a save writing more, is left to the interactive save (an HTTP answer holds at most 10 MB)`, async () => {
    const big = await experienceWithSlots(tenant, MAX_HTTP_SLOTS + 1);
    const [first] = await slotRows(tenant.wineryId, big.id);
    const onBig = await countRoundTrips(() =>
      saveExperience(tenant, big.id, {
        ...EXPERIENCE_BODY,
        slotsRequests: [{ id: first?.id, maxParties: 8 }],
      }),
    );
    expect(onBig.result.status).toBe(200);
    // The read (its slots come back null past the limit), then the interactive save.
    expect(onBig.trips).toEqual({ httpRequests: 1, wsSessions: 1 });
    expect((await slotRows(tenant.wineryId, big.id))[0]?.maxParties).toBe(8);

    const small = await createExperience(tenant);
    const many = await countRoundTrips(() =>
      saveExperience(tenant, small.id, {
        ...EXPERIENCE_BODY,
        slotsRequests: FOURTEEN_TIMES.map((time) => ({
          validityStart: day(1),
          validityEnd: day(366),
          time,
        })),
      }),
    );
    expect(many.result.status).toBe(200);
    // The read and the plan (14 x 366 slots to create), then the interactive save.
    expect(many.trips).toEqual({ httpRequests: 1, wsSessions: 1 });
    expect(await slotRows(tenant.wineryId, small.id)).toHaveLength(14 * 366);
  });

  it("through the route: two HTTP requests, no WebSocket session; a 409 one", async () => {
    const [id] = await twins([0], []);
    const [occupiedSlot, free] = await slotRows(tenant.wineryId, id);
    const ok = await countRoundTrips(() =>
      saveExperience(tenant, id, {
        ...EXPERIENCE_BODY,
        slotsRequests: [{ id: free?.id, maxParties: 6 }],
      }),
    );
    expect(ok.result.status).toBe(200);
    expect(ok.trips).toEqual({ httpRequests: 2, wsSessions: 0 });
    const refused = await countRoundTrips(() =>
      saveExperience(tenant, id, {
        ...EXPERIENCE_BODY,
        slotsRequests: [{ id: occupiedSlot?.id, maxParties: 1 }],
      }),
    );
    await expectProblem(refused.result, 409, "CONFLICT");
    expect(refused.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });
});
