import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { addDays, todayUtc } from "../../src/lib/calendar";
import type { ExperiencePreview } from "../../src/schemas/experience-preview";
import type { Experience } from "../../src/schemas/experiences";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import {
  createExperience,
  EXPERIENCE_BODY,
  nextWeekDays,
  occupy,
  saveExperience,
  slotRows,
} from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import { createSlot, slotState } from "../helpers/reservations";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
});

const get = (id: string, key = tenant.apiKey) => api(`/v2/experiences/${id}`, { key });

describe("PUT/GET /v2/experiences/{id}: happy", () => {
  it("stores every field and reads it back, unknown fields dropped", async () => {
    const id = crypto.randomUUID();
    const body = {
      id,
      wineryId: tenant.wineryId,
      active: true,
      acceptProviderAPayments: true,
      maxParties: 12,
      interval: 3_600_000,
      priceCents: 2500,
      priceCurrency: "EUR",
      titleTranslations: { en: "Vineyard tour" },
      experienceIntegrations: [{ integrationId: crypto.randomUUID(), externalId: 7 }],
      experiencePriceExtrasAttributes: {
        cheese: { priceCents: 500, extraMetadata: JSON.parse('{"__proto__":1,"a":[1]}') },
      },
      flatTranslations: {
        validityFrom: "2026-01-01T00:00:00Z",
        place: { city: "Siena", lat: 43.3 },
      },
      metadata: [{ key: "k", value: "v" }],
      placeAttributes: { city: "Siena", lng: 11.3 },
      products: [{ any: { nested: true } }],
      notAField: "dropped",
    };
    const saved = await saveExperience(tenant, id, body);
    expect(saved.status).toBe(200);
    const stored = (await saved.json()) as Experience;
    expect(stored).toMatchObject({ id, wineryId: tenant.wineryId, maxParties: 12, color: null });
    expect(stored).not.toHaveProperty("notAField");
    const read = await get(id);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(stored);
    expect(JSON.stringify(stored.experiencePriceExtrasAttributes)).toContain('"__proto__":1');
  });

  it("replaces on a second PUT and keeps createdAt", async () => {
    const first = await createExperience(tenant, { color: "red" });
    const second = (await (
      await saveExperience(tenant, first.id, { maxParties: 4 })
    ).json()) as Experience;
    expect(second).toMatchObject({ maxParties: 4, color: null, createdAt: first.createdAt });
    expect(Date.parse(second.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));
  });

  it("creates a season of Saturdays from a range slotsRequest, as one series", async () => {
    const saturdays = nextWeekDays("SATURDAY", 6);
    const experience = await createExperience(tenant, {
      slotsRequests: [
        {
          time: { hour: 10, minute: 30, second: 0, nano: 0 },
          validityStart: saturdays[0],
          validityEnd: saturdays[5],
          dayOfWeek: "SATURDAY",
        },
      ],
    });
    const rows = await slotRows(tenant.wineryId, experience.id);
    expect(rows.map((r) => r.date)).toEqual(saturdays);
    expect(rows.every((r) => r.time === "10:30:00" && r.maxParties === 10)).toBe(true);
    const parent = rows[0]?.id;
    expect(rows.slice(1).every((r) => r.parentSlotId === parent)).toBe(true);
  });

  it("gives new slots the experience's active: an inactive experience's are inactive, as its existing ones", async () => {
    const [first, second, third] = nextWeekDays("TUESDAY", 3);
    const experience = await createExperience(tenant, {
      active: false,
      slotsRequests: [{ day: first, time: "11:00" }],
    });
    expect((await slotRows(tenant.wineryId, experience.id)).map((r) => r.active)).toEqual([false]);
    // The preview plans the same: no slot of an inactive experience is created bookable.
    const preview = await api("/v2/experiences/preview-propagation", {
      method: "POST",
      key: tenant.apiKey,
      body: {
        ...EXPERIENCE_BODY,
        id: experience.id,
        active: false,
        slotsRequests: [{ day: second, time: "11:00" }],
      },
    });
    const planned = (await preview.json()) as ExperiencePreview;
    expect(planned.slots.create.map((slot) => slot.active)).toEqual([false]);
    // Active, or active not set (null): new slots are active.
    await saveExperience(tenant, experience.id, {
      ...EXPERIENCE_BODY,
      active: null,
      slotsRequests: [{ day: third, time: "11:00" }],
    });
    expect((await slotRows(tenant.wineryId, experience.id)).map((r) => [r.date, r.active])).toEqual(
      [
        [first, false],
        [third, true],
      ],
    );
  });

  it("propagates maxParties to future slots, except those changed by hand", async () => {
    const days = nextWeekDays("MONDAY", 3);
    const experience = await createExperience(tenant, {
      slotsRequests: days.map((day) => ({ day, time: "09:00" })),
    });
    const [first] = await slotRows(tenant.wineryId, experience.id);
    // A change by hand: the slot's own capacity.
    await saveExperience(tenant, experience.id, {
      maxParties: 10,
      slotsRequests: [{ id: first?.id, maxParties: 3 }],
    });
    await saveExperience(tenant, experience.id, { maxParties: 20 });
    const rows = await slotRows(tenant.wineryId, experience.id);
    expect(rows.map((r) => [r.maxParties, r.manuallyModified])).toEqual([
      [3, true],
      [20, false],
      [20, false],
    ]);
  });

  it("without slotsRequests, one HTTP round trip applies every propagation rule", async () => {
    const day = (n: number) => addDays(todayUtc(), n);
    const experience = await createExperience(tenant, {
      slotsRequests: [-1, 0, 2, 4, 6].map((n) => ({ day: day(n), time: "10:00" })),
    });
    const before = await slotRows(tenant.wineryId, experience.id);
    await testDb().execute(
      sql`update slots set manually_modified = true where id = ${before[3]?.id ?? ""}`,
    );
    const { result, trips } = await countRoundTrips(() =>
      saveExperience(tenant, experience.id, {
        maxParties: 10,
        minPartiesToEnable: 2,
        languagesIsoCode: ["it", "en"],
        active: false,
        flatTranslations: { validityTo: `${day(5)}T12:00:00Z` },
      }),
    );
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    const rows = await slotRows(tenant.wineryId, experience.id);
    const view = (r: (typeof rows)[number]) => [
      r.date,
      r.maxParties,
      r.minParties,
      r.enabledLanguages,
      r.active,
      r.manuallyModified,
    ];
    // Yesterday's slot and the one changed by hand keep their values; today's and the next are
    // updated; the one after the new validityTo is deleted.
    expect(rows.map(view)).toEqual([
      [day(-1), 10, 1, ["en", "it"], true, false],
      [day(0), 10, 2, ["it", "en"], false, false],
      [day(2), 10, 2, ["it", "en"], false, false],
      [day(4), 10, 1, ["en", "it"], true, true],
    ]);
    expect(rows[0]).toEqual(before[0]);
  });

  it("GET costs one round trip", async () => {
    const experience = await createExperience(tenant);
    const { result, trips } = await countRoundTrips(() => get(experience.id));
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });
});

describe("PUT /v2/experiences/{id}: slotsRequests trading times", () => {
  it("applies in order, as its preview (E8) says: A to a free time, B to A's, A to B's", async () => {
    const experience = await createExperience(tenant);
    const [day = ""] = nextWeekDays("WEDNESDAY", 1);
    const a = await createSlot(tenant, experience.id, day, "10:00:00");
    const b = await createSlot(tenant, experience.id, day, "11:00:00");
    const at = (id: string, hour: number) => ({
      type: "SINGLE",
      id,
      day,
      time: { hour, minute: 0, second: 0, nano: 0 },
      maxParties: 10,
    });
    const body = { ...EXPERIENCE_BODY, slotsRequests: [at(a, 9), at(b, 10), at(a, 11)] };
    const preview = await api("/v2/experiences/preview-propagation", {
      key: tenant.apiKey,
      body: { ...body, id: experience.id },
    });
    expect(preview.status).toBe(200);
    expect(((await preview.json()) as { conflicts: unknown[] }).conflicts).toEqual([]);
    // Was 409 "Two slots of one experience would share a date and time": the key was checked
    // row by row within the one UPDATE.
    expect((await saveExperience(tenant, experience.id, body)).status).toBe(200);
    const rows = await slotRows(tenant.wineryId, experience.id);
    expect(rows.map((r) => [r.id, r.time])).toEqual([
      [b, "10:00:00"],
      [a, "11:00:00"],
    ]);
  });
});

describe("PUT /v2/experiences/{id}: a slot named in upper case", () => {
  it("is the slot, as E9 reads it (was 400: not a slot of this experience)", async () => {
    const experience = await createExperience(tenant);
    const [day = ""] = nextWeekDays("WEDNESDAY", 1);
    const slot = await createSlot(tenant, experience.id, day, "10:00:00");
    const saved = await saveExperience(tenant, experience.id, {
      ...EXPERIENCE_BODY,
      slotsRequests: [{ type: "SINGLE", id: slot.toUpperCase(), maxParties: 4 }],
    });
    expect(saved.status).toBe(200);
    expect(await slotState(slot)).toMatchObject({ maxParties: 4, manuallyModified: true });
  });
});

describe("PUT /v2/experiences/{id}: a slot moved onto another's date and time", () => {
  it("is a SLOT_EXISTS conflict naming the slot there, as E9 answers it: 409, and in E8's conflicts", async () => {
    const experience = await createExperience(tenant);
    const [day = "", nextDay = ""] = nextWeekDays("FRIDAY", 2);
    const a = await createSlot(tenant, experience.id, day, "10:00:00");
    const b = await createSlot(tenant, experience.id, day, "11:00:00");
    const c = await createSlot(tenant, experience.id, nextDay, "10:00:00");
    const body = (move: Record<string, unknown>) => ({
      ...EXPERIENCE_BODY,
      slotsRequests: [{ type: "SINGLE", id: b, maxParties: 10, ...move }],
    });
    const ten = { hour: 10, minute: 0, second: 0, nano: 0 };
    // Moved by its time onto `a`, by its day onto `c`.
    for (const [move, there, date] of [
      [{ day, time: ten }, a, day],
      [{ day: nextDay, time: ten }, c, nextDay],
    ] as const) {
      const conflict = { slotId: there, date, time: ten, reason: "SLOT_EXISTS" };
      const saved = await saveExperience(tenant, experience.id, body(move));
      const problem = await expectProblem(saved, 409, "CONFLICT");
      expect(problem.slots).toEqual([expect.objectContaining(conflict)]);
      expect(problem.detail).toContain(there);
      const preview = await api("/v2/experiences/preview-propagation", {
        key: tenant.apiKey,
        body: { ...body(move), id: experience.id },
      });
      expect(preview.status).toBe(200);
      const { conflicts } = (await preview.json()) as ExperiencePreview;
      expect(conflicts).toEqual([expect.objectContaining(conflict)]);
    }
    expect((await slotState(b)).time).toBe("11:00:00");
  });
});

describe("PUT /v2/experiences/{id}: errors", () => {
  it("refuses to shrink an occupied slot below its occupants, writing nothing", async () => {
    const [day] = nextWeekDays("TUESDAY", 1);
    const experience = await createExperience(tenant, { slotsRequests: [{ day, time: "11:00" }] });
    const [slot] = await slotRows(tenant.wineryId, experience.id);
    await occupy(slot?.id ?? "", 6);
    const problem = await expectProblem(
      await saveExperience(tenant, experience.id, { maxParties: 4, color: "blue" }),
      409,
      "CONFLICT",
    );
    expect(problem.slots).toEqual([
      expect.objectContaining({
        slotId: slot?.id,
        occupiedCount: 6,
        time: { hour: 11, minute: 0, second: 0, nano: 0 },
      }),
    ]);
    expect(problem.detail).toContain(slot?.id);
    // The experience input has no ignoreOccupiedSlot: the detail offers what this client can do.
    expect(problem.detail).not.toContain("Set ignoreOccupiedSlot");
    expect(problem.detail).toContain("POST /v2/availabilities/actions and ignoreOccupiedSlot");
    expect(await (await get(experience.id)).json()).toEqual(experience);
  });

  it.each([
    [{ id: crypto.randomUUID() }, "id"],
    [{ maxParties: -1 }, "maxParties"],
    [{ maxParties: 2 ** 31 }, "maxParties"],
    [
      { experiencePriceExtrasAttributes: { a: { priceCents: -100 } } },
      "experiencePriceExtrasAttributes.a.priceCents",
    ],
    [
      { experiencePriceLabelsAttributes: { b: { priceCents: -100 } } },
      "experiencePriceLabelsAttributes.b.priceCents",
    ],
    [{ slotsRequests: [{ day: "2026-02-30", time: "10:00" }] }, "slotsRequests[0].day"],
    [{ slotsRequests: [{ day: "2027-01-01" }] }, "slotsRequests[0].time"],
    [{ slotsRequests: [{ time: "10:00" }] }, "slotsRequests[0].day"],
    [{ slotsRequests: [{ id: crypto.randomUUID() }] }, "slotsRequests[0].id"],
    // The interface types it a string: one that is no uuid names no slot either.
    [{ slotsRequests: [{ id: "slot-1" }] }, "slotsRequests[0].id"],
    [{ slotsRequests: [{ id: "", maxParties: 7 }] }, "slotsRequests[0].id"],
    [{ slotsRequests: [{ time: "25:00", day: "2027-01-01" }] }, "slotsRequests[0].time"],
    [
      {
        slotsRequests: [{ time: "10:00", validityStart: "2027-01-01", validityEnd: "2028-01-02" }],
      },
      "slotsRequests[0].validityEnd",
    ],
    [{ slotsRequests: [{ time: "10:00", day: "2027-01-01" }] }, "slotsRequests[0].maxParties"],
    // An inverted window would delete every slot (it holds no date).
    [
      {
        flatTranslations: {
          validityFrom: "2031-06-12T00:00:00Z",
          validityTo: "2031-06-11T23:59:59+00:00",
        },
      },
      "flatTranslations.validityTo",
    ],
  ])("answers 400 for %j naming %s", async (body, path) => {
    const problem = await expectProblem(
      await saveExperience(tenant, crypto.randomUUID(), body),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("answers 400 for a path id that is not a uuid", async () => {
    const problem = await expectProblem(await get("not-a-uuid"), 400, "VALIDATION_ERROR");
    expect(problem.errors?.[0]?.path).toBe("id");
  });
});

describe("experiences: tenancy", () => {
  it("another winery's experience is 404, and its id is a new experience of ours", async () => {
    const theirs = await createExperience(other, { color: "theirs" });
    await expectProblem(await get(theirs.id), 404, "NOT_FOUND");
    const ours = (await (
      await saveExperience(tenant, theirs.id, { color: "ours" })
    ).json()) as Experience;
    expect(ours).toMatchObject({ id: theirs.id, wineryId: tenant.wineryId, color: "ours" });
    expect(await (await get(theirs.id, other.apiKey)).json()).toEqual(theirs);
  });

  it("a body wineryId of another winery is 403", async () => {
    await expectProblem(
      await saveExperience(tenant, crypto.randomUUID(), { wineryId: other.wineryId }),
      403,
      "FORBIDDEN",
    );
  });

  it("a slotsRequest naming another winery's slot is 400", async () => {
    const [day] = nextWeekDays("FRIDAY", 1);
    const theirs = await createExperience(other, { slotsRequests: [{ day, time: "10:00" }] });
    const [slot] = await slotRows(other.wineryId, theirs.id);
    const problem = await expectProblem(
      await saveExperience(tenant, crypto.randomUUID(), { slotsRequests: [{ id: slot?.id }] }),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.[0]?.path).toBe("slotsRequests[0].id");
  });
});
