import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { addDays, todayUtc } from "../../src/lib/calendar";
import type { ExperiencePreview } from "../../src/schemas/experience-preview";
import type { ExperienceInput } from "../../src/schemas/experiences";
import { localTime } from "../../src/schemas/slots";
import { stateQueries, toState } from "../../src/services/experiences/experience-record";
import { planExperience } from "../../src/services/experiences/plan-experience";
import { describePlan, previewExperience } from "../../src/services/experiences/preview-experience";
import { api, expectProblem } from "../helpers/api";
import { PROPERTY_TIMEOUT, testDb } from "../helpers/db";
import { createExperience, occupy, saveExperience, slotRows } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import { importOk, reservationBody } from "../helpers/reservations";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
});

const preview = (body: unknown, key = tenant.apiKey) =>
  api("/v2/experiences/preview-propagation", { key, body });
async function previewOk(body: unknown) {
  const response = await preview(body);
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as ExperiencePreview;
}

type Row = Awaited<ReturnType<typeof slotRows>>[number];
const FIELDS = [
  "date",
  "time",
  "maxParties",
  "minParties",
  "enabledLanguages",
  "active",
  "manuallyModified",
] as const;
const wire = (row: Row, field: (typeof FIELDS)[number]) =>
  field === "time" ? localTime(row.time) : row[field];

/** What a save actually changed, in the shape of E8's `slots`. */
function actualChanges(before: Row[], after: Row[]) {
  const old = new Map(before.map((r) => [r.id, r]));
  const now = new Map(after.map((r) => [r.id, r]));
  return {
    create: after
      .filter((r) => !old.has(r.id))
      .map((r) => ({
        date: r.date,
        time: localTime(r.time),
        maxParties: r.maxParties,
        minParties: r.minParties,
        enabledLanguages: r.enabledLanguages,
        active: r.active,
      })),
    update: after.flatMap((r) => {
      const was = old.get(r.id);
      if (!was) return [];
      const changes = FIELDS.filter(
        (f) => JSON.stringify(wire(was, f)) !== JSON.stringify(wire(r, f)),
      ).map((f) => ({ field: f, before: wire(was, f), after: wire(r, f) }));
      return changes.length > 0 ? [{ slotId: r.id, changes }] : [];
    }),
    delete: before.filter((r) => !now.has(r.id)).map((r) => r.id),
  };
}

function plannedChanges(plan: ExperiencePreview) {
  return {
    create: plan.slots.create.map(
      ({ date, time, maxParties, minParties, enabledLanguages, active }) => ({
        date,
        time,
        maxParties,
        minParties,
        enabledLanguages,
        active,
      }),
    ),
    update: plan.slots.update.map(({ slotId, changes }) => ({ slotId, changes })),
    delete: plan.slots.delete.map((d) => d.slotId),
  };
}

const sortBy = <T>(list: T[]) =>
  [...list].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

const day = (n: number) => addDays(todayUtc(), n);

interface SlotSpec {
  /** Days from today (negative: past). */
  n: number;
  /** "HH:MM". */
  time: string;
  maxParties?: number;
  extraData?: Record<string, unknown>;
  /** Seats taken, set directly as reservations would. */
  occupied?: number;
  /** Marked changed by hand. */
  manual?: boolean;
}

/**
 * An experience of ours (createExperience's values and `body`) with a slot per spec, made by the
 * save's own slotsRequests (specs at the same day and time make one slot), then occupied and marked
 * changed by hand as its specs say. Its slot rows as stored then, by date and time.
 */
async function experienceWithSlots(body: Record<string, unknown>, specs: SlotSpec[]) {
  const experience = await createExperience(tenant, {
    ...body,
    slotsRequests: specs.map(({ n, time, maxParties, extraData }) => ({
      day: day(n),
      time,
      maxParties,
      extraData,
    })),
  });
  const made = await slotRows(tenant.wineryId, experience.id);
  for (const spec of specs) {
    const row = made.find((r) => r.date === day(spec.n) && r.time.slice(0, 5) === spec.time);
    if (!row) throw new Error(`no slot made at ${day(spec.n)} ${spec.time}`);
    if (spec.occupied) await occupy(row.id, spec.occupied);
    if (spec.manual)
      await testDb().execute(sql`update slots set manually_modified = true where id = ${row.id}`);
  }
  return { experience, rows: await slotRows(tenant.wineryId, experience.id) };
}

describe("E8 POST /v2/experiences/preview-propagation", () => {
  it("agrees with what the save then does, for generated inputs", {
    timeout: PROPERTY_TIMEOUT,
  }, async () => {
    const { experience, rows: initial } = await experienceWithSlots(
      {},
      [1, 2, 3, 4, 5, 6].map((n) => ({ n, time: "10:00", occupied: n === 2 ? 3 : 0 })),
    );
    await saveExperience(tenant, experience.id, {
      maxParties: 10,
      slotsRequests: [{ id: initial[2]?.id, maxParties: 7 }],
    });

    const input = fc.record({
      maxParties: fc.integer({ min: 1, max: 12 }),
      minPartiesToEnable: fc.constantFrom(1, 2),
      active: fc.boolean(),
      languagesIsoCode: fc.subarray(["en", "it", "de"]),
      validityTo: fc.option(fc.integer({ min: 2, max: 8 }), { nil: undefined }),
      slotsRequests: fc.array(
        fc.record({
          n: fc.integer({ min: 1, max: 8 }),
          time: fc.constantFrom("10:00", "11:30"),
          maxParties: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
        }),
        { maxLength: 3 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(input, async (generated) => {
        const body = {
          id: experience.id,
          maxParties: generated.maxParties,
          minPartiesToEnable: generated.minPartiesToEnable,
          active: generated.active,
          languagesIsoCode: generated.languagesIsoCode,
          flatTranslations: generated.validityTo
            ? { validityTo: `${day(generated.validityTo)}T23:00:00Z` }
            : null,
          slotsRequests: generated.slotsRequests.map((r) => ({
            day: day(r.n),
            time: r.time,
            maxParties: r.maxParties,
          })),
        };
        const before = await slotRows(tenant.wineryId, experience.id);
        const plan = await previewOk(body);
        expect(await slotRows(tenant.wineryId, experience.id)).toEqual(before);
        const saved = await saveExperience(tenant, experience.id, body);
        const after = await slotRows(tenant.wineryId, experience.id);
        if (plan.conflicts.length > 0) {
          const problem = await expectProblem(saved, 409, "CONFLICT");
          // The same conflicts in the same shape (SlotConflict, time a LocalTime object).
          expect(sortBy(problem.slots as unknown[])).toEqual(sortBy(plan.conflicts));
          expect(after).toEqual(before);
          return;
        }
        expect(saved.status).toBe(200);
        const actual = actualChanges(before, after);
        const planned = plannedChanges(plan);
        expect(sortBy(actual.create)).toEqual(sortBy(planned.create));
        expect(sortBy(actual.update)).toEqual(sortBy(planned.update));
        expect(actual.delete.sort()).toEqual(planned.delete.sort());
      }),
      { numRuns: 15 },
    );
  });

  it("agrees with the save without slotsRequests (one HTTP request), for generated states", {
    timeout: PROPERTY_TIMEOUT,
  }, async () => {
    const instant = (n: number) => `${day(n)}T${n % 2 === 0 ? "00:00:00" : "23:59:59"}Z`;
    const languages = fc.option(fc.shuffledSubarray(["en", "it", "de"]), { nil: null });
    const offset = fc.option(fc.integer({ min: -2, max: 8 }), { nil: null });
    const state = fc.record({
      maxParties: fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }),
      minPartiesToEnable: fc.option(fc.constantFrom(1, 2), { nil: null }),
      active: fc.option(fc.boolean(), { nil: null }),
      languagesIsoCode: languages,
      validityFrom: offset,
      validityTo: offset,
      slots: fc.array(
        fc.record({
          n: fc.integer({ min: -2, max: 8 }),
          time: fc.constantFrom("10:00", "11:30"),
          maxParties: fc.integer({ min: 1, max: 9 }),
          occupied: fc.constantFrom(0, 0, 3, 6),
          manual: fc.boolean(),
        }),
        { minLength: 1, maxLength: 8 },
      ),
    });
    const change = fc.record({
      maxParties: fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }),
      minPartiesToEnable: fc.option(fc.constantFrom(1, 2), { nil: null }),
      active: fc.option(fc.boolean(), { nil: null }),
      languagesIsoCode: languages,
      validityFrom: offset,
      validityTo: offset,
      color: fc.constantFrom("red", "blue"),
      // Fields the save keeps as stored, so that a slot often sees a single field change.
      keep: fc.record({
        maxParties: fc.boolean(),
        minPartiesToEnable: fc.boolean(),
        active: fc.boolean(),
        languagesIsoCode: fc.boolean(),
        validityFrom: fc.boolean(),
        validityTo: fc.boolean(),
      }),
    });
    // A window in order (one that ends before it starts is a 400, tested on its own).
    const values = ({
      validityFrom: a,
      validityTo: b,
    }: Record<"validityFrom" | "validityTo", number | null>) => {
      const [from, to] = a !== null && b !== null && a > b ? [b, a] : [a, b];
      return from === null && to === null
        ? null
        : {
            ...(from !== null && { validityFrom: instant(from) }),
            ...(to !== null && { validityTo: instant(to) }),
          };
    };
    await fc.assert(
      fc.asyncProperty(state, change, async (stored, changed) => {
        const generated = { ...changed };
        for (const [field, keep] of Object.entries(changed.keep))
          if (keep)
            Object.assign(generated, { [field]: stored[field as keyof typeof changed.keep] });
        const { experience } = await experienceWithSlots(
          {
            maxParties: stored.maxParties,
            minPartiesToEnable: stored.minPartiesToEnable,
            active: stored.active,
            languagesIsoCode: stored.languagesIsoCode,
            flatTranslations: values(stored),
          },
          stored.slots,
        );
        const body = {
          id: experience.id,
          maxParties: generated.maxParties,
          minPartiesToEnable: generated.minPartiesToEnable,
          active: generated.active,
          languagesIsoCode: generated.languagesIsoCode,
          color: generated.color,
          flatTranslations: values(generated),
        };
        const before = await slotRows(tenant.wineryId, experience.id);
        const plan = await previewOk(body);
        const { result: saved, trips } = await countRoundTrips(() =>
          saveExperience(tenant, experience.id, body),
        );
        const after = await slotRows(tenant.wineryId, experience.id);
        if (plan.conflicts.length > 0) {
          // The batch found the conflict, wrote nothing, and names it itself (planned on the
          // state it locked): no interactive save after it.
          expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
          const problem = await expectProblem(saved, 409, "CONFLICT");
          // The same conflicts in the same shape (SlotConflict, time a LocalTime object).
          expect(sortBy(problem.slots as unknown[])).toEqual(sortBy(plan.conflicts));
          expect(after).toEqual(before);
          return;
        }
        expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
        expect(saved.status).toBe(200);
        const stored2 = (await saved.json()) as Record<string, unknown>;
        expect(stored2).toMatchObject({ maxParties: generated.maxParties, color: generated.color });
        const actual = actualChanges(before, after);
        const planned = plannedChanges(plan);
        expect(actual.create).toEqual([]);
        expect(sortBy(actual.update)).toEqual(sortBy(planned.update));
        expect(actual.delete.sort()).toEqual(planned.delete.sort());
        // A slot the plan leaves alone is not written at all (its updatedAt included).
        const touched = new Set(planned.update.map((u) => u.slotId));
        for (const row of after.filter((r) => !touched.has(r.id)))
          expect(row).toEqual(before.find((b) => b.id === row.id));
      }),
      { numRuns: 40 },
    );
  });

  it("plans on what it reads as it would on every slot read by drizzle, past and by hand included", {
    timeout: PROPERTY_TIMEOUT,
  }, async () => {
    const { experience, rows } = await experienceWithSlots(
      { color: "red", flatTranslations: { validityFrom: `${day(-4)}T00:00:00Z` } },
      [-4, -3, -1, 0, 1, 2, 3, 5, 7]
        .flatMap((n) => [
          { n, time: "10:00", extraData: { n } },
          { n, time: "11:30" },
        ])
        .map((spec, i) => ({ ...spec, manual: i % 3 === 0, occupied: i % 4 === 1 ? 4 : 0 })),
    );
    // Reservations on a slot from today on, free and not changed by hand (what a conflict names).
    const booked = rows.find(
      (r) => r.date >= todayUtc() && !r.manuallyModified && r.reservedCount === 0,
    );
    if (!booked) throw new Error("no slot to book");
    for (const guests of [3, 4])
      await importOk(
        tenant,
        "NEW",
        reservationBody(
          { experienceId: experience.id, date: booked.date, time: booked.time },
          { guestCount01: guests, guestCountTotal: guests },
        ),
      );

    const field = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null });
    const input = fc.record({
      maxParties: field(fc.integer({ min: 1, max: 12 })),
      minPartiesToEnable: field(fc.constantFrom(1, 2)),
      active: field(fc.boolean()),
      languagesIsoCode: field(fc.subarray(["en", "it", "de"])),
      color: fc.constantFrom("red", "blue"),
      from: field(fc.integer({ min: -5, max: 8 })),
      to: field(fc.integer({ min: -5, max: 8 })),
      slotsRequests: fc.option(
        fc.array(
          fc.oneof(
            fc.record({
              pick: fc.nat({ max: rows.length - 1 }),
              move: field(fc.integer({ min: -5, max: 8 })),
              maxParties: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
            }),
            fc.record({
              n: fc.integer({ min: -5, max: 8 }),
              time: fc.constantFrom("10:00", "11:30", "12:00"),
            }),
          ),
          { maxLength: 3 },
        ),
        { nil: undefined },
      ),
    });
    const outcome = async (work: () => Promise<ExperiencePreview>) => {
      try {
        return { answer: await work() };
      } catch (error) {
        return { error: String(error), detail: (error as { extensions?: unknown }).extensions };
      }
    };
    await fc.assert(
      fc.asyncProperty(input, async (generated) => {
        const body: ExperienceInput = {
          id: experience.id,
          maxParties: generated.maxParties,
          minPartiesToEnable: generated.minPartiesToEnable,
          active: generated.active,
          languagesIsoCode: generated.languagesIsoCode,
          color: generated.color,
          flatTranslations:
            generated.from === null && generated.to === null
              ? null
              : {
                  ...(generated.from !== null && {
                    validityFrom: `${day(generated.from)}T00:00:00Z`,
                  }),
                  ...(generated.to !== null && { validityTo: `${day(generated.to)}T23:59:59Z` }),
                },
          slotsRequests: generated.slotsRequests?.map((r) =>
            "pick" in r
              ? {
                  id: rows[r.pick]?.id,
                  ...(r.move !== null && { day: day(r.move) }),
                  maxParties: r.maxParties,
                }
              : { day: day(r.n), time: r.time },
          ),
        };
        const today = todayUtc();
        const everySlot = async () => {
          const reads = stateQueries(testDb(), tenant.wineryId, experience.id);
          const [[current], slots] = await testDb().batch([reads.experience, reads.slots]);
          return describePlan(
            planExperience(experience.id, toState(current, slots), body, today),
            experience.id,
          );
        };
        expect(
          await outcome(() => previewExperience(testDb(), tenant.wineryId, body, today)),
        ).toEqual(await outcome(everySlot));
      }),
      { numRuns: 60 },
    );
  });

  it("reports changed fields, integrations and conflicts, and writes nothing", async () => {
    const integrationId = crypto.randomUUID();
    const {
      experience,
      rows: [slot],
    } = await experienceWithSlots(
      { color: "red", experienceIntegrations: [{ integrationId, externalId: 1 }] },
      [{ n: 3, time: "17:00", occupied: 5 }],
    );
    const plan = await previewOk({
      id: experience.id,
      active: true,
      maxParties: 4,
      minPartiesToEnable: 1,
      languagesIsoCode: ["en", "it"],
      titleTranslations: { en: "Tasting", it: "Degustazione" },
      // The same integration, its id in upper case: changed, not removed and added.
      experienceIntegrations: [{ integrationId: integrationId.toUpperCase(), externalId: 2 }],
    });
    expect(plan.experienceId).toBe(experience.id);
    expect(plan.changedFields).toEqual(
      expect.arrayContaining([
        { field: "color", before: "red", after: null },
        { field: "maxParties", before: 10, after: 4 },
      ]),
    );
    expect(plan.integrations).toMatchObject({ added: [], removed: [] });
    expect(plan.integrations.changed).toHaveLength(1);
    expect(plan.conflicts).toEqual([
      expect.objectContaining({ slotId: slot?.id, occupiedCount: 5, reason: "BELOW_OCCUPANTS" }),
    ]);
    expect(
      await (await api(`/v2/experiences/${experience.id}`, { key: tenant.apiKey })).json(),
    ).toEqual(experience);
  });

  it("costs one round trip", async () => {
    const experience = await createExperience(tenant);
    const { result, trips } = await countRoundTrips(() =>
      preview({ id: experience.id, maxParties: 3 }),
    );
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it("another winery's experience previews as a creation of ours; its wineryId is 403", async () => {
    const theirs = await createExperience(other, { color: "theirs" });
    const plan = await previewOk({ id: theirs.id, color: "ours" });
    expect(plan.changedFields).toEqual([{ field: "color", before: null, after: "ours" }]);
    await expectProblem(await preview({ wineryId: other.wineryId }), 403, "FORBIDDEN");
  });

  it("names the field of a bad input", async () => {
    const problem = await expectProblem(
      await preview({ slotsRequests: [{ day: "2027-01-01" }] }),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.[0]?.path).toBe("slotsRequests[0].time");
  });

  it("refuses a validity window that ends before it starts (saved, it would delete every slot)", async () => {
    const problem = await expectProblem(
      await preview({
        flatTranslations: {
          validityFrom: "2031-06-12T00:00:00Z",
          validityTo: "2031-06-10T00:00:00Z",
        },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["flatTranslations.validityTo"]);
  });
});
