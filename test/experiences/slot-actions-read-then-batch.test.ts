import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { addDays, todayUtc } from "../../src/lib/calendar";
import type { AppError } from "../../src/lib/errors";
import type { BusinessLocation } from "../../src/schemas/business-location";
import { SlotActionsCommandSchema } from "../../src/schemas/slot-actions";
import type { Slot } from "../../src/schemas/slots";
import {
  runSlotActions,
  runSlotActionsInTransaction,
} from "../../src/services/slots/run-slot-actions";
import {
  ONE_REQUEST_ATTEMPTS,
  slotActionsInOneRequest,
} from "../../src/services/slots/slot-actions-in-one-request";
import { MAX_HTTP_SLOTS } from "../../src/services/slots/slot-versions";
import { api } from "../helpers/api";
import { PROPERTY_TIMEOUT, testDatabase, testDb } from "../helpers/db";
import {
  createExperience,
  experienceWithSlots,
  FOURTEEN_TIMES,
  occupy,
  slotRows,
} from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import { racedBy, settle } from "../helpers/raced";
import { putReservation, reservationBody, slotState } from "../helpers/reservations";
import { countRoundTrips } from "../helpers/round-trips";
import { normalizeRefusal, normalizeRows, type SlotRow, slotNames } from "../helpers/slot-twins";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

const database = testDatabase;
const options = { integrationsKey: env.INTEGRATIONS_KEY };
const act = (requests: unknown[]) =>
  api("/v2/availabilities/actions", { key: tenant.apiKey, body: { requests } });
const day = (n: number) => addDays(todayUtc(), n);
const UNKNOWN = "00000000-0000-4000-8000-000000000000";
type Row = SlotRow;
type Outcome = PromiseSettledResult<BusinessLocation[]>;

function normalizeOutcome(outcome: Outcome, named: Map<string, string>) {
  if (outcome.status === "rejected") return normalizeRefusal(outcome.reason, named);
  const [record] = outcome.value;
  if (!record) throw new Error("no record");
  const { slotActions, ...rest } = record;
  const slots = (list: Slot[]) =>
    list.map(({ id, experienceId, parentSlotId, createdAt, updatedAt, ...slot }) => ({
      ...slot,
      was: named.get(id),
      parent: parentSlotId ? (named.get(parentSlotId) ?? "gone") : null,
    }));
  return {
    record: rest,
    dryRun: slotActions.dryRun,
    created: slots(slotActions.created),
    updated: slots(slotActions.updated),
    deleted: slots(slotActions.deleted),
    skipped: slotActions.skipped.map(({ slotId, experienceId, ...s }) => ({
      ...s,
      slot: slotId ? named.get(slotId) : null,
    })),
  };
}

/** Twin experiences: the same slots (a series of six days at 10:00, singles at 11:30), seats taken on the same ones. */
async function twins(occupied: number[], modified: number[]) {
  const pair = await Promise.all([createExperience(tenant), createExperience(tenant)]);
  for (const experience of pair) {
    const response = await act([
      {
        action: "CREATE",
        experienceId: experience.id,
        startFromValid: day(1),
        endToValid: day(6),
        time: "10:00",
      },
      { action: "CREATE", experienceId: experience.id, day: day(2), time: "11:30" },
      { action: "CREATE", experienceId: experience.id, day: day(4), time: "11:30" },
    ]);
    if (response.status !== 200) throw new Error(await response.text());
    const rows = await slotRows(tenant.wineryId, experience.id);
    for (const i of occupied) if (rows[i]) await occupy(rows[i].id, 2 + i);
    for (const i of modified)
      if (rows[i])
        await testDb().execute(
          sql`update slots set manually_modified = true where id = ${rows[i].id}`,
        );
  }
  return pair.map((experience) => experience.id) as [string, string];
}

const request = fc.record(
  {
    action: fc.constantFrom("UPDATE", "UPDATE", "DELETE", "CREATE"),
    target: fc.constantFrom(...Array(12).fill("slot"), "parent", "parent", "parent", "unknown"),
    index: fc.nat(7),
    effectPolicy: fc.option(fc.constantFrom("SINGLE", "FOLLOWING", "SERIES"), { nil: undefined }),
    startFromValid: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined, freq: 3 }),
    newDay: fc.option(fc.integer({ min: 1, max: 7 }), { nil: undefined, freq: 6 }),
    newTime: fc.option(fc.constantFrom("10:00", "11:30", "12:00"), { nil: undefined, freq: 3 }),
    newMaxParties: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined, freq: 2 }),
    newMinParties: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined, freq: 6 }),
    newActive: fc.option(fc.boolean(), { nil: undefined, freq: 3 }),
    newOccupantsCount: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined, freq: 3 }),
    extraData: fc.option(fc.constantFrom(null, { b: 1, a: [true] }), { nil: undefined, freq: 3 }),
    ignoreOccupiedSlot: fc.option(fc.boolean(), { nil: undefined, freq: 2 }),
    ignoreManualModification: fc.option(fc.boolean(), { nil: undefined, freq: 3 }),
    dryRun: fc.option(fc.constantFrom(...Array(9).fill(false), true), { nil: undefined }),
  },
  { requiredKeys: ["action", "target", "index"] },
);

type Generated = typeof request extends fc.Arbitrary<infer T> ? T : never;

/** The generated requests as a command on one twin, its slots named by their place (`rows`). */
function command(generated: Generated[], experienceId: string, rows: Row[]) {
  return SlotActionsCommandSchema.parse({
    requests: generated.map(({ action, target, index, startFromValid, newDay, ...r }) => {
      const slot = rows[index];
      const id = target === "unknown" || !slot ? UNKNOWN : slot.id;
      const range =
        startFromValid === undefined
          ? {}
          : { startFromValid: day(startFromValid), endToValid: day(startFromValid + 2) };
      if (action === "CREATE")
        return {
          action,
          experienceId,
          day: day(index + 1),
          time: r.newTime ?? "12:00",
          newMaxParties: r.newMaxParties,
          newOccupantsCount: r.newOccupantsCount,
          ignoreOccupiedSlot: r.ignoreOccupiedSlot,
          dryRun: r.dryRun,
        };
      return {
        action,
        ...(target === "parent" ? { parentSlotId: slot?.parentSlotId ?? id } : { slotId: id }),
        ...range,
        ...(newDay === undefined ? {} : { newDay: day(newDay) }),
        ...r,
      };
    }),
  });
}

const setOccupants = (slotId: string, seats: number) =>
  testDb().execute(sql`update slots set external_occupants = ${seats} where id = ${slotId}`);

describe("E9 beyond plain creates: a read, then one batch", () => {
  it("answers and writes what the interactive transaction does, for generated calls", {
    timeout: PROPERTY_TIMEOUT,
  }, async () => {
    const db = database();
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([0, 1, 2, 3, 4, 5, 6, 7], { maxLength: 3 }),
        fc.subarray([0, 1, 2, 3, 4, 5, 6, 7], { maxLength: 2 }),
        fc.array(request, { minLength: 1, maxLength: 4 }),
        async (occupied, modified, generated) => {
          const [a, b] = await twins(occupied, modified);
          const [beforeA, beforeB] = await Promise.all([
            slotRows(tenant.wineryId, a),
            slotRows(tenant.wineryId, b),
          ]);
          const { result: fast, trips } = await countRoundTrips(() =>
            settle(
              slotActionsInOneRequest(
                db.http,
                tenant.wineryId,
                command(generated, a, beforeA),
                options,
              ),
            ),
          );
          const slow = await settle(
            runSlotActionsInTransaction(
              db,
              tenant.wineryId,
              command(generated, b, beforeB),
              options,
            ),
          );
          const [afterA, afterB] = await Promise.all([
            slotRows(tenant.wineryId, a),
            slotRows(tenant.wineryId, b),
          ]);
          const [namedA, namedB] = [slotNames(beforeA, afterA), slotNames(beforeB, afterB)];
          expect(normalizeRows(afterA, namedA)).toEqual(normalizeRows(afterB, namedB));
          expect(normalizeOutcome(fast as Outcome, namedA)).toEqual(normalizeOutcome(slow, namedB));
          // No WebSocket session: a read, and a batch only when the call writes.
          const actions = fast.status === "fulfilled" ? fast.value?.[0]?.slotActions : undefined;
          const writes =
            !actions?.dryRun &&
            (actions?.created.length ?? 0) +
              (actions?.updated.length ?? 0) +
              (actions?.deleted.length ?? 0) >
              0;
          expect(trips).toEqual({ httpRequests: writes ? 2 : 1, wsSessions: 0 });
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a slot the call read, changed before its batch, is read and planned again: the delete of a slot now occupied is 409", async () => {
    const [experienceId] = await twins([], []);
    const [slot] = await slotRows(tenant.wineryId, experienceId);
    if (!slot) throw new Error("no slot");
    let raced = false;
    const { db, batches } = racedBy(async () => {
      if (raced) return;
      raced = true;
      await setOccupants(slot.id, 3);
    });
    const outcome = await settle(
      slotActionsInOneRequest(
        db,
        tenant.wineryId,
        SlotActionsCommandSchema.parse({ requests: [{ action: "DELETE", slotId: slot.id }] }),
        options,
      ),
    );
    expect(outcome.status).toBe("rejected");
    expect(outcome.status === "rejected" && (outcome.reason as AppError).code).toBe("CONFLICT");
    // The first batch met the change and wrote nothing; the second reading refused the call.
    expect(batches()).toBe(1);
    expect((await slotRows(tenant.wineryId, experienceId)).map((r) => r.id)).toContain(slot.id);
  });

  it("the experience's values changed before the batch: a CREATE, which takes its defaults, plans again; an UPDATE does not", async () => {
    const [experienceId] = await twins([], []);
    const [slot] = await slotRows(tenant.wineryId, experienceId);
    let maxParties = 10;
    const { db, batches } = racedBy(async () => {
      maxParties++;
      await testDb().execute(
        sql`update experiences set max_parties = ${maxParties} where id = ${experienceId}`,
      );
    });
    const update = { action: "UPDATE", slotId: slot?.id, newActive: false };
    const [created] = await slotActionsInOneRequest(
      db,
      tenant.wineryId,
      SlotActionsCommandSchema.parse({
        requests: [update, { action: "CREATE", experienceId, day: day(9), time: "18:00" }],
      }),
      options,
    ).then((value) => value ?? []);
    // Planned on 11 (written before the first batch), then again on 12 (before the second): the
    // second batch also met a change and the call is left to the interactive path.
    expect(created).toBeUndefined();
    expect(batches()).toBe(ONE_REQUEST_ATTEMPTS);
    const [updated] = await slotActionsInOneRequest(
      db,
      tenant.wineryId,
      SlotActionsCommandSchema.parse({ requests: [update] }),
      options,
    ).then((value) => value ?? []);
    expect(updated?.slotActions.updated.map((s) => s.active)).toEqual([false]);
    expect(batches()).toBe(ONE_REQUEST_ATTEMPTS + 1);
  });

  it("seats taken before its batch on a slot the call shrinks make it plan again (409); seats released do not, and the answer reports them", async () => {
    const [experienceId] = await twins([0, 1], []);
    const [full, freed] = await slotRows(tenant.wineryId, experienceId);
    if (!full || !freed) throw new Error("no slots");
    // A series UPDATE (not the one-statement path) of both slots' capacity to 4: fits 2 and 3 seats.
    const shrink = (slotId: string) =>
      SlotActionsCommandSchema.parse({
        requests: [
          { action: "UPDATE", slotId, newMaxParties: 4, newTime: "10:00", newActive: true },
        ],
      });
    let raced = false;
    const taking = racedBy(async () => {
      if (raced) return;
      raced = true;
      await occupy(full.id, 6);
    });
    const refused = await settle(
      slotActionsInOneRequest(taking.db, tenant.wineryId, shrink(full.id), options),
    );
    expect(refused.status === "rejected" && (refused.reason as AppError).code).toBe("CONFLICT");
    expect(taking.batches()).toBe(1);
    expect((await slotState(full.id)).maxParties).toBe(full.maxParties);

    const releasing = racedBy(() => occupy(freed.id, 1));
    const [answer] = await slotActionsInOneRequest(
      releasing.db,
      tenant.wineryId,
      shrink(freed.id),
      options,
    ).then((value) => value ?? []);
    expect(releasing.batches()).toBe(1);
    expect(answer?.slotActions.updated).toMatchObject([
      { id: freed.id, maxParties: 4, reservedCount: 1, occupiedCount: 1, availableSeats: 3 },
    ]);
  });

  it("a change to a slot the call did not read does not stop its batch", async () => {
    const [experienceId] = await twins([], []);
    const [slot, other] = await slotRows(tenant.wineryId, experienceId);
    if (!slot || !other) throw new Error("no slots");
    const { db, batches } = racedBy(() => occupy(other.id, 4).then(() => undefined));
    const [answer] = await slotActionsInOneRequest(
      db,
      tenant.wineryId,
      SlotActionsCommandSchema.parse({
        requests: [{ action: "UPDATE", slotId: slot.id, newMaxParties: 7 }],
      }),
      options,
    ).then((value) => value ?? []);
    expect(answer?.slotActions.updated.map((s) => [s.id, s.maxParties])).toEqual([[slot.id, 7]]);
    expect(batches()).toBe(1);
  });

  it("a slot made at the (date, time) a move looked at, before its batch, makes it plan again: 409 SLOT_EXISTS", async () => {
    const [experienceId] = await twins([], []);
    const [slot] = await slotRows(tenant.wineryId, experienceId);
    if (!slot) throw new Error("no slot");
    let raced = false;
    const { db } = racedBy(async () => {
      if (raced) return;
      raced = true;
      await testDb().execute(sql`insert into slots (winery_id, experience_id, date, time, max_parties)
        values (${tenant.wineryId}, ${experienceId}, ${slot.date}, '16:45', 5)`);
    });
    const outcome = await settle(
      slotActionsInOneRequest(
        db,
        tenant.wineryId,
        SlotActionsCommandSchema.parse({
          requests: [{ action: "UPDATE", slotId: slot.id, newTime: "16:45" }],
        }),
        options,
      ),
    );
    expect(outcome.status === "rejected" && (outcome.reason as AppError).code).toBe("CONFLICT");
    expect(
      outcome.status === "rejected" && (outcome.reason as AppError).options.extensions?.slots,
    ).toMatchObject([{ reason: "SLOT_EXISTS" }]);
  });

  it(`rows that change before every batch leave the call to the interactive path after ${ONE_REQUEST_ATTEMPTS} tries, nothing written`, async () => {
    const [experienceId] = await twins([], []);
    const [slot] = await slotRows(tenant.wineryId, experienceId);
    if (!slot) throw new Error("no slot");
    let seats = 0;
    const { db, batches } = racedBy(() => setOccupants(slot.id, ++seats).then(() => undefined));
    const answer = await slotActionsInOneRequest(
      db,
      tenant.wineryId,
      SlotActionsCommandSchema.parse({
        requests: [{ action: "UPDATE", slotId: slot.id, newMaxParties: 9 }],
      }),
      options,
    );
    expect(answer).toBeUndefined();
    expect(batches()).toBe(ONE_REQUEST_ATTEMPTS);
    const [after] = await slotRows(tenant.wineryId, experienceId);
    expect([after?.maxParties, after?.externalOccupants]).toEqual([
      slot.maxParties,
      ONE_REQUEST_ATTEMPTS,
    ]);
  });

  it(`an experience of more than ${MAX_HTTP_SLOTS} slots, or a call writing more, is left to the interactive path (an HTTP answer holds at most 10 MB)`, async () => {
    const experience = await experienceWithSlots(tenant, MAX_HTTP_SLOTS + 1);
    const [first] = await slotRows(tenant.wineryId, experience.id);
    // A move: not the one-statement path of an UPDATE in place.
    const update = { action: "UPDATE", slotId: first?.id, newMaxParties: 8, newTime: "10:30" };
    const big = await countRoundTrips(() => act([update]));
    expect(big.result.status).toBe(200);
    expect(big.trips).toEqual({ httpRequests: 1, wsSessions: 1 });
    expect((await slotRows(tenant.wineryId, experience.id))[0]?.maxParties).toBe(8);

    const small = await createExperience(tenant);
    const [slotId] = await twins([], []).then(async ([id]) =>
      (await slotRows(tenant.wineryId, id)).map((row) => row.id),
    );
    const many = await countRoundTrips(() =>
      act([
        { action: "UPDATE", slotId, newMaxParties: 8 },
        ...FOURTEEN_TIMES.map((time) => ({
          action: "CREATE",
          experienceId: small.id,
          startFromValid: day(1),
          endToValid: day(366),
          time,
        })),
      ]),
    );
    expect(many.result.status).toBe(200);
    expect(many.trips).toEqual({ httpRequests: 1, wsSessions: 1 });
    expect(await slotRows(tenant.wineryId, small.id)).toHaveLength(14 * 366);
  });

  it("through the route: an UPDATE that moves a slot is two HTTP requests, its dry run one, no WebSocket session", async () => {
    const [experienceId] = await twins([], []);
    const [slot] = await slotRows(tenant.wineryId, experienceId);
    const move = (extra: Record<string, unknown>) =>
      act([{ action: "UPDATE", slotId: slot?.id, newMaxParties: 6, newTime: "10:15", ...extra }]);
    const dry = await countRoundTrips(() => move({ dryRun: true }));
    expect(dry.result.status).toBe(200);
    expect(dry.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    const real = await countRoundTrips(() => move({}));
    expect(real.result.status).toBe(200);
    expect(real.trips).toEqual({ httpRequests: 2, wsSessions: 0 });
    expect((await slotRows(tenant.wineryId, experienceId))[0]).toMatchObject({
      maxParties: 6,
      time: "10:15:00",
    });
  });
});

describe("E9 on one slot by itself: one statement", () => {
  const single = fc.record(
    {
      action: fc.constantFrom("UPDATE", "UPDATE", "DELETE"),
      index: fc.nat(7),
      wrongExperience: fc.constantFrom(...Array(9).fill(false), true),
      newMaxParties: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
      newMinParties: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined, freq: 3 }),
      newActive: fc.option(fc.boolean(), { nil: undefined, freq: 2 }),
      newOccupantsCount: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined, freq: 2 }),
      newEnabledLanguages: fc.option(fc.constantFrom([], ["de"], ["en", "it"]), {
        nil: undefined,
        freq: 3,
      }),
      newDefaultLanguages: fc.option(fc.constantFrom([], ["it"]), { nil: undefined, freq: 3 }),
      extraData: fc.option(fc.constantFrom(null, {}, { b: 1, a: [true] }), {
        nil: undefined,
        freq: 3,
      }),
      ignoreOccupiedSlot: fc.option(fc.boolean(), { nil: undefined, freq: 2 }),
    },
    { requiredKeys: ["action", "index", "wrongExperience"] },
  );

  it("answers and writes what the interactive transaction does, for generated calls; one HTTP request when it acts", {
    timeout: PROPERTY_TIMEOUT,
  }, async () => {
    const db = database();
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([0, 1, 2, 3, 4, 5, 6, 7], { maxLength: 3 }),
        fc.subarray([0, 1, 2, 3, 4, 5, 6, 7], { maxLength: 3 }),
        single,
        async (occupied, modified, { index, wrongExperience, ...generated }) => {
          const [a, b] = await twins(occupied, modified);
          const [beforeA, beforeB] = await Promise.all([
            slotRows(tenant.wineryId, a),
            slotRows(tenant.wineryId, b),
          ]);
          const call = (experienceId: string, rows: Row[]) =>
            SlotActionsCommandSchema.parse({
              requests: [
                {
                  ...generated,
                  slotId: rows[index]?.id,
                  ...(wrongExperience && { experienceId: UNKNOWN }),
                  // Alternately named and not: the statement checks it either way.
                  ...(!wrongExperience && index % 2 === 0 && { experienceId }),
                },
              ],
            });
          const { result: fast, trips } = await countRoundTrips(() =>
            settle(runSlotActions(db, tenant.wineryId, call(a, beforeA), options)),
          );
          const slow = await settle(
            runSlotActionsInTransaction(db, tenant.wineryId, call(b, beforeB), options),
          );
          const [afterA, afterB] = await Promise.all([
            slotRows(tenant.wineryId, a),
            slotRows(tenant.wineryId, b),
          ]);
          const [namedA, namedB] = [slotNames(beforeA, afterA), slotNames(beforeB, afterB)];
          expect(normalizeRows(afterA, namedA)).toEqual(normalizeRows(afterB, namedB));
          expect(normalizeOutcome(fast as Outcome, namedA)).toEqual(normalizeOutcome(slow, namedB));
          // Acting: its one statement; refused or changing nothing, then planned (one read).
          const [record] = fast.status === "fulfilled" ? fast.value : [];
          const acted =
            (record?.slotActions.updated.length ?? 0) + (record?.slotActions.deleted.length ?? 0);
          expect(trips).toEqual({ httpRequests: acted > 0 ? 1 : 2, wsSessions: 0 });
        },
      ),
      { numRuns: 60 },
    );
  });

  it("lowering a slot's capacity while imports take its seats never leaves it overfull", async () => {
    const experience = await createExperience(tenant);
    const date = day(3);
    const response = await act([
      {
        action: "CREATE",
        experienceId: experience.id,
        day: date,
        time: "10:00",
        newMaxParties: 8,
      },
    ]);
    const slotId = ((await response.json()) as BusinessLocation[])[0]?.slotActions.created[0]?.id;
    const results = await Promise.all([
      ...Array.from({ length: 8 }, () =>
        putReservation(
          tenant,
          crypto.randomUUID(),
          reservationBody(
            { experienceId: experience.id, date, time: "10:00:00" },
            { guestCount01: 1, guestCountTotal: 1 },
          ),
        ),
      ),
      ...[5, 3, 6, 4].map((newMaxParties) => act([{ action: "UPDATE", slotId, newMaxParties }])),
    ]);
    const statuses = results.map((r) => r.status);
    expect(
      statuses.every((s) => s === 200 || s === 409),
      statuses.join(),
    ).toBe(true);
    const [slot] = await slotRows(tenant.wineryId, experience.id);
    const imported = statuses.slice(0, 8).filter((s) => s === 200).length;
    expect(slot?.reservedCount).toBe(imported);
    expect(slot?.occupiedCount).toBeLessThanOrEqual(slot?.maxParties ?? 0);
  });
});
