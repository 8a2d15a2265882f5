import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { addDays, todayUtc } from "../../src/lib/calendar";
import type { ExperiencePreview } from "../../src/schemas/experience-preview";
import { localTime } from "../../src/schemas/slots";
import { api, expectProblem } from "../helpers/api";
import { createExperience, occupy, saveExperience, slotRows } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
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

describe("E8 POST /v2/experiences/preview-propagation", () => {
  it("agrees with what the save then does, for generated inputs", async () => {
    const day = (n: number) => addDays(todayUtc(), n);
    const experience = await createExperience(tenant, {
      slotsRequests: [1, 2, 3, 4, 5, 6].map((n) => ({ day: day(n), time: "10:00" })),
    });
    const initial = await slotRows(tenant.wineryId, experience.id);
    await occupy(initial[1]?.id ?? "", 3);
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
          expect(sortBy(problem.slots as unknown[])).toEqual(
            sortBy(
              plan.conflicts.map((c) => ({
                ...c,
                time: `${String(c.time.hour).padStart(2, "0")}:${String(c.time.minute).padStart(2, "0")}:00`,
              })),
            ),
          );
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

  it("reports changed fields, integrations and conflicts, and writes nothing", async () => {
    const integrationId = crypto.randomUUID();
    const experience = await createExperience(tenant, {
      color: "red",
      experienceIntegrations: [{ integrationId, externalId: 1 }],
      slotsRequests: [{ day: addDays(todayUtc(), 3), time: "17:00" }],
    });
    const [slot] = await slotRows(tenant.wineryId, experience.id);
    await occupy(slot?.id ?? "", 5);
    const plan = await previewOk({
      id: experience.id,
      active: true,
      maxParties: 4,
      minPartiesToEnable: 1,
      languagesIsoCode: ["en", "it"],
      titleTranslations: { en: "Tasting", it: "Degustazione" },
      experienceIntegrations: [{ integrationId, externalId: 2 }],
    });
    expect(plan.experienceId).toBe(experience.id);
    expect(plan.changedFields).toEqual(
      expect.arrayContaining([
        { field: "color", before: "red", after: null },
        { field: "maxParties", before: 10, after: 4 },
      ]),
    );
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
});
