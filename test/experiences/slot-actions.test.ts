import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { wineryIntegrations } from "../../src/db/schema";
import { sealSecret } from "../../src/lib/secret-box";
import type { BusinessLocation } from "../../src/schemas/business-location";
import type { Slot } from "../../src/schemas/slots";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createExperience, nextWeekDays, occupy, slotRows } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import { slotState } from "../helpers/reservations";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
});

const act = (requests: unknown[], key = tenant.apiKey) =>
  api("/v2/availabilities/actions", { key, body: { requests } });
const list = (query: string, key = tenant.apiKey) => api(`/v2/availabilities?${query}`, { key });
async function actOk(requests: unknown[]) {
  const response = await act(requests);
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  const [record] = (await response.json()) as BusinessLocation[];
  if (!record) throw new Error("no record");
  return record;
}
const saturdaysCreate = (experienceId: string, from: string, to: string, extra = {}) => ({
  action: "CREATE",
  experienceId,
  startFromValid: from,
  endToValid: to,
  weekDays: { SATURDAY: true, SUNDAY: false },
  time: { hour: 15, minute: 0 },
  ...extra,
});
const withoutIds = (slots: Slot[]) =>
  slots.map(({ id, parentSlotId, createdAt, updatedAt, ...rest }) => rest);

describe("E9 POST /v2/availabilities/actions: happy", () => {
  it("creates over a range that ends on the last day of year 9999 (it used to never end)", async () => {
    const experience = await createExperience(tenant);
    // 9999-12-25 is a Saturday.
    const record = await actOk([saturdaysCreate(experience.id, "9999-12-20", "9999-12-31")]);
    expect(record.slotActions.created.map((s) => s.date)).toEqual(["9999-12-25"]);
    const single = await actOk([
      { ...saturdaysCreate(experience.id, "9999-12-31", "9999-12-31"), weekDays: undefined },
    ]);
    expect(single.slotActions.created.map((s) => s.date)).toEqual(["9999-12-31"]);
  });

  it("creates a season of Saturdays as one series, listed by GET /availabilities", async () => {
    const experience = await createExperience(tenant);
    const saturdays = nextWeekDays("SATURDAY", 8);
    const record = await actOk([
      saturdaysCreate(experience.id, saturdays[0] ?? "", saturdays[7] ?? ""),
    ]);
    expect(record).toMatchObject({ id: tenant.wineryId, slotActions: { dryRun: false } });
    expect(record.slotActions.created.map((s) => s.date)).toEqual(saturdays);
    const response = await list(
      `experienceId=${experience.id}&from=${saturdays[0]}&to=${saturdays[7]}`,
    );
    expect(response.status).toBe(200);
    const slots = (await response.json()) as Slot[];
    expect(slots).toEqual(record.slotActions.created);
    const parent = slots[0]?.id;
    expect(slots.slice(1).every((s) => s.parentSlotId === parent)).toBe(true);
    expect(slots[0]).toMatchObject({
      time: { hour: 15, minute: 0, second: 0, nano: 0 },
      maxParties: 10,
      occupiedCount: 0,
      availableSeats: 10,
    });
  });

  it("weekDays null is every day, as the document says (it once left null out)", async () => {
    // weekDays appears in E9's request schema only.
    const doc = await (await api("/openapi.json")).text();
    const at = doc.indexOf('"weekDays":');
    expect(doc.slice(at, at + 60)).toContain('"weekDays":{"type":["object","null"]');

    const experience = await createExperience(tenant);
    const days = nextWeekDays("MONDAY", 1);
    const from = days[0] ?? "";
    const to = new Date(Date.parse(from) + 6 * 86_400_000).toISOString().slice(0, 10);
    const record = await actOk([saturdaysCreate(experience.id, from, to, { weekDays: null })]);
    expect(record.slotActions.created).toHaveLength(7);
  });

  it("a dry run writes nothing and reports exactly what the real run then does", async () => {
    const experience = await createExperience(tenant);
    const [from, , , to] = nextWeekDays("SATURDAY", 4);
    const request = saturdaysCreate(experience.id, from ?? "", to ?? "", { newMaxParties: 6 });
    const dry = await actOk([{ ...request, dryRun: true }]);
    expect(dry.slotActions.dryRun).toBe(true);
    expect(await slotRows(tenant.wineryId, experience.id)).toEqual([]);
    const real = await actOk([request]);
    expect(withoutIds(real.slotActions.created)).toEqual(withoutIds(dry.slotActions.created));
    expect(dry.slotActions.created).toHaveLength(4);
  });

  it("skips an existing slot on CREATE and reports it", async () => {
    const experience = await createExperience(tenant);
    const [day] = nextWeekDays("SUNDAY", 1);
    const first = await actOk([
      { action: "CREATE", experienceId: experience.id, day, time: "18:00" },
    ]);
    const again = await actOk([
      { action: "CREATE", experienceId: experience.id, day, time: "18:00" },
    ]);
    expect(again.slotActions.created).toEqual([]);
    expect(again.slotActions.skipped).toEqual([
      {
        requestIndex: 0,
        slotId: first.slotActions.created[0]?.id,
        experienceId: experience.id,
        date: day,
        // A LocalTime object, as the answer's slots have it.
        time: { hour: 18, minute: 0, second: 0, nano: 0 },
        reason: "ALREADY_EXISTS",
      },
    ]);
  });

  it("takes upper-case ids, as the listing and Postgres do, on either path", async () => {
    const experience = await createExperience(tenant);
    const [day, other] = nextWeekDays("SUNDAY", 2);
    const id = experience.id.toUpperCase();
    const first = await actOk([{ action: "CREATE", experienceId: id, day, time: "10:00" }]);
    const slotId = first.slotActions.created[0]?.id ?? "";
    // A CREATE beside an UPDATE goes through the interactive transaction's in-memory plan.
    const both = await actOk([
      { action: "CREATE", experienceId: id, day: other, time: "10:00" },
      { action: "UPDATE", slotId: slotId.toUpperCase(), newMaxParties: 4 },
    ]);
    expect(both.slotActions.created.map((s) => s.date)).toEqual([other]);
    expect(both.slotActions.updated).toEqual([
      expect.objectContaining({ id: slotId, maxParties: 4 }),
    ]);
  });

  it("answers the business-location record with the integration token decrypted, stored sealed", async () => {
    const token = `tok_${crypto.randomUUID()}`;
    const integrationId = crypto.randomUUID();
    await testDb()
      .insert(wineryIntegrations)
      .values({
        wineryId: tenant.wineryId,
        integrationId,
        integrationName: "booking-portal",
        authTokenCiphertext: await sealSecret(env.INTEGRATIONS_KEY, token, tenant.wineryId),
        integrationOptions: { sync: true },
      });
    const [raw] = await testDb()
      .select({ sealed: wineryIntegrations.authTokenCiphertext })
      .from(wineryIntegrations)
      .where(eq(wineryIntegrations.integrationId, integrationId));
    expect(raw?.sealed).not.toContain(token);
    expect(raw?.sealed?.startsWith("v1:")).toBe(true);
    const experience = await createExperience(tenant);
    const [day] = nextWeekDays("MONDAY", 1);
    const record = await actOk([
      { action: "CREATE", experienceId: experience.id, day, time: "10:00" },
    ]);
    expect(record.integrations).toContainEqual(
      expect.objectContaining({
        integrationId,
        authToken: token,
        integrationOptions: { sync: true },
      }),
    );
    expect(record.channels).toEqual([expect.objectContaining({ name: "Webshop" })]);
  });
});

describe("E9: slots of one call trading times", () => {
  it("applies in order: A to a free time, B to A's, A to B's; the dry run and the real call agree", async () => {
    const experience = await createExperience(tenant);
    const [day] = nextWeekDays("TUESDAY", 1);
    const created = await actOk([
      { action: "CREATE", experienceId: experience.id, day, time: "10:00" },
      { action: "CREATE", experienceId: experience.id, day, time: "11:00" },
    ]);
    const [a, b] = created.slotActions.created.map((slot) => slot.id);
    const swap = [
      { action: "UPDATE", slotId: a, newTime: { hour: 9, minute: 0 } },
      { action: "UPDATE", slotId: b, newTime: { hour: 10, minute: 0 } },
      { action: "UPDATE", slotId: a, newTime: { hour: 11, minute: 0 } },
    ];
    const times = (record: BusinessLocation) =>
      Object.fromEntries(record.slotActions.updated.map((slot) => [slot.id, slot.time.hour]));
    const dry = await actOk(swap.map((r, i) => (i === 0 ? { ...r, dryRun: true } : r)));
    expect(times(dry)).toEqual({ [a as string]: 11, [b as string]: 10 });
    // The key is checked at the end of the write, not row by row: this was a 409 while the dry
    // run answered 200.
    const real = await actOk(swap);
    expect(times(real)).toEqual(times(dry));
    const rows = await slotRows(tenant.wineryId, experience.id);
    expect(Object.fromEntries(rows.map((r) => [r.id, Number(r.time.slice(0, 2))]))).toEqual(
      times(dry),
    );
  });
});

describe("E9: occupants past the int32 range", () => {
  it("is 400 naming newOccupantsCount, in the dry run as in the real call (was an unnamed 400 only when written)", async () => {
    const experience = await createExperience(tenant);
    const [day] = nextWeekDays("THURSDAY", 1);
    const created = await actOk([
      {
        action: "CREATE",
        experienceId: experience.id,
        day,
        time: "10:00",
        newMaxParties: 2_147_483_647,
      },
    ]);
    const slotId = created.slotActions.created[0]?.id as string;
    await occupy(slotId, 100);
    const request = {
      action: "UPDATE",
      slotId,
      newOccupantsCount: 2_147_483_647,
      ignoreOccupiedSlot: true,
    };
    for (const requests of [[{ ...request, dryRun: true }], [request]]) {
      const problem = await expectProblem(await act(requests), 400, "VALIDATION_ERROR");
      expect(problem.errors?.map((e) => e.path)).toEqual(["requests[0].newOccupantsCount"]);
    }
    const [row] = await slotRows(tenant.wineryId, experience.id);
    expect(row?.externalOccupants).toBe(0);
  });
});

describe("E9: occupied and manually modified slots", () => {
  async function season(count = 3) {
    const experience = await createExperience(tenant);
    const days = nextWeekDays("WEDNESDAY", count);
    const record = await actOk([
      {
        action: "CREATE",
        experienceId: experience.id,
        startFromValid: days[0],
        endToValid: days.at(-1),
        weekDays: { WEDNESDAY: true },
        time: "12:00",
      },
    ]);
    return { experience, slots: record.slotActions.created };
  }

  it("protects an occupied slot unless ignoreOccupiedSlot; the failed call writes nothing", async () => {
    const { slots } = await season();
    const parentSlotId = slots[0]?.id;
    await occupy(slots[1]?.id ?? "", 2);
    const problem = await expectProblem(
      await act([{ action: "DELETE", parentSlotId }]),
      409,
      "CONFLICT",
    );
    // The SlotConflict shape E8 answers: time a LocalTime object, not "12:00:00".
    expect(problem.slots).toEqual([
      {
        slotId: slots[1]?.id,
        experienceId: slots[1]?.experienceId,
        date: slots[1]?.date,
        time: { hour: 12, minute: 0, second: 0, nano: 0 },
        occupiedCount: 2,
        maxParties: 10,
        reason: "DELETES_OCCUPIED_SLOT",
        reservationIds: [],
      },
    ]);
    expect(problem.detail).toContain(slots[1]?.id);
    expect(problem.detail).toMatch(/Set ignoreOccupiedSlot on the request to apply it anyway\.$/);
    expect(await slotRows(tenant.wineryId, slots[0]?.experienceId ?? "")).toHaveLength(3);
    const shrink = await act([{ action: "UPDATE", slotId: slots[1]?.id, newMaxParties: 1 }]);
    await expectProblem(shrink, 409, "CONFLICT");
    const record = await actOk([{ action: "DELETE", parentSlotId, ignoreOccupiedSlot: true }]);
    expect(record.slotActions.deleted).toHaveLength(3);
  });

  it("ignoreOccupiedSlot excuses its own request's change only, not another's to the same slot", async () => {
    const { slots } = await season(1);
    const slotId = slots[0]?.id as string;
    await occupy(slotId, 2);
    const [day] = nextWeekDays("FRIDAY", 1);
    const flagged = { action: "UPDATE", slotId, extraData: { a: 1 }, ignoreOccupiedSlot: true };
    // A move and a shrink by requests without the flag: 409, whatever another request carries.
    for (const change of [{ newDay: day }, { newMaxParties: 1 }, { newOccupantsCount: 9 }]) {
      for (const requests of [
        [{ action: "UPDATE", slotId, ...change }, flagged],
        [flagged, { action: "UPDATE", slotId, ...change }],
      ])
        await expectProblem(await act(requests), 409, "CONFLICT");
    }
    await expectProblem(await act([flagged, { action: "DELETE", slotId }]), 409, "CONFLICT");
    expect((await slotState(slotId)).extraData).toBeNull();
    // The flag on the request that moves it: applied, beside an unflagged change of another kind.
    const record = await actOk([
      { action: "UPDATE", slotId, extraData: { b: 2 } },
      { action: "UPDATE", slotId, newDay: day, ignoreOccupiedSlot: true },
    ]);
    expect(record.slotActions.updated).toHaveLength(1);
    expect(await slotState(slotId)).toMatchObject({ date: day, extraData: { b: 2 } });
  });

  it("a call that empties a slot's external occupants and then deletes or moves it is no conflict, as the same two changes in two calls are none", async () => {
    const { slots } = await season(3);
    const [a = "", b = "", c = ""] = slots.map((slot) => slot.id as string);
    const [day] = nextWeekDays("FRIDAY", 1);
    await actOk([
      { action: "UPDATE", slotId: a, newOccupantsCount: 3 },
      { action: "UPDATE", slotId: b, newOccupantsCount: 3 },
      { action: "UPDATE", slotId: c, newOccupantsCount: 3 },
    ]);
    // Still occupied: deleted or moved without emptying it first.
    await expectProblem(await act([{ action: "DELETE", slotId: a }]), 409, "CONFLICT");
    await expectProblem(await act([{ action: "UPDATE", slotId: b, newDay: day }]), 409, "CONFLICT");
    // Emptied, then deleted; emptied and moved in one request; a move, then emptied.
    const record = await actOk([
      { action: "UPDATE", slotId: a, newOccupantsCount: 0 },
      { action: "DELETE", slotId: a },
      { action: "UPDATE", slotId: b, newOccupantsCount: 0, newDay: day },
      { action: "UPDATE", slotId: c, newTime: "15:00" },
      { action: "UPDATE", slotId: c, newOccupantsCount: 0 },
    ]);
    expect(record.slotActions.deleted.map((slot) => slot.id)).toEqual([a]);
    expect(await slotState(b)).toMatchObject({ date: day, externalOccupants: 0 });
    expect(await slotState(c)).toMatchObject({ time: "15:00:00", externalOccupants: 0 });
    // Reservations are never emptied by a call: a slot holding them still conflicts.
    await occupy(c, 2);
    await expectProblem(
      await act([
        { action: "UPDATE", slotId: c, newOccupantsCount: 0 },
        { action: "DELETE", slotId: c },
      ]),
      409,
      "CONFLICT",
    );
  });

  it("the document declares the 409 of E9 and of the experience save as SlotConflictProblem", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const conflictOf = (path: string, method: string) =>
      JSON.stringify(doc.paths[path]?.[method]?.responses["409"]);
    expect(conflictOf("/api/v2/availabilities/actions", "post")).toContain(
      "#/components/schemas/SlotConflictProblem",
    );
    expect(conflictOf("/api/v2/experiences/{id}", "put")).toContain(
      "#/components/schemas/SlotConflictProblem",
    );
    expect(JSON.stringify(doc.components.schemas.SlotConflictProblem)).toContain(
      "#/components/schemas/SlotConflict",
    );
  });

  it("refuses to move a slot onto another's date and time, naming that slot as a SlotConflict", async () => {
    const { slots } = await season(2);
    const [first, second] = slots;
    const problem = await expectProblem(
      await act([{ action: "UPDATE", slotId: first?.id, newDay: second?.date }]),
      409,
      "CONFLICT",
    );
    expect(problem.slots).toEqual([
      {
        slotId: second?.id,
        experienceId: second?.experienceId,
        date: second?.date,
        time: { hour: 12, minute: 0, second: 0, nano: 0 },
        occupiedCount: 0,
        maxParties: 10,
        reason: "SLOT_EXISTS",
        reservationIds: [],
      },
    ]);
    expect(problem.reservationIds).toEqual([]);
  });

  it("skips a manually modified slot in a series update unless ignoreManualModification", async () => {
    const { slots } = await season();
    await actOk([{ action: "UPDATE", slotId: slots[2]?.id, newMaxParties: 4 }]);
    const series = await actOk([
      { action: "UPDATE", parentSlotId: slots[0]?.id, newMaxParties: 8 },
    ]);
    expect(series.slotActions.updated.map((s) => s.maxParties)).toEqual([8, 8]);
    expect(series.slotActions.skipped).toEqual([
      expect.objectContaining({ slotId: slots[2]?.id, reason: "MANUALLY_MODIFIED" }),
    ]);
    const forced = await actOk([
      {
        action: "UPDATE",
        parentSlotId: slots[0]?.id,
        newMaxParties: 9,
        ignoreManualModification: true,
      },
    ]);
    expect(forced.slotActions.updated.map((s) => [s.maxParties, s.manuallyModified])).toEqual([
      [9, false],
      [9, false],
      [9, false],
    ]);
  });

  it("rolls back the whole call when a later request fails", async () => {
    const experience = await createExperience(tenant);
    const [day] = nextWeekDays("THURSDAY", 1);
    const response = await act([
      { action: "CREATE", experienceId: experience.id, day, time: "10:00" },
      { action: "UPDATE", slotId: crypto.randomUUID(), newMaxParties: 3 },
    ]);
    await expectProblem(response, 404, "NOT_FOUND");
    expect(await slotRows(tenant.wineryId, experience.id)).toEqual([]);
  });

  it("racing shrinks and seat-taking never leave a slot below its occupants", async () => {
    const { slots } = await season(1);
    const slotId = slots[0]?.id ?? "";
    // What reservations will do: one conditional UPDATE per seat taken.
    const takeSeat = () =>
      testDb().execute(sql`update slots set reserved_count = reserved_count + 1
        where id = ${slotId} and occupied_count + 1 <= max_parties`);
    const shrinks = Array.from({ length: 10 }, (_, i) =>
      act([{ action: "UPDATE", slotId, newMaxParties: i + 1 }]),
    );
    const results = await Promise.all([...shrinks, ...Array.from({ length: 10 }, takeSeat)]);
    for (const r of results.slice(0, 10) as Response[])
      expect([200, 409], await r.clone().text()).toContain(r.status);
    const [row] = await slotRows(tenant.wineryId, slots[0]?.experienceId ?? "");
    expect(row?.occupiedCount).toBeLessThanOrEqual(row?.maxParties ?? -1);
  });
});

describe("E9 and GET /availabilities: errors, tenancy, round trips", () => {
  it.each([
    [
      [
        {
          action: "CREATE",
          experienceId: crypto.randomUUID(),
          startFromValid: "2027-01-01",
          endToValid: "2028-01-02",
          time: "10:00",
        },
      ],
      "requests[0].endToValid",
    ],
    [
      [
        {
          action: "CREATE",
          experienceId: crypto.randomUUID(),
          day: "2027-01-01",
          time: "10:00",
          weekDays: { FUNDAY: true },
        },
      ],
      "requests[0].weekDays.FUNDAY",
    ],
    [
      [
        {
          action: "CREATE",
          experienceId: crypto.randomUUID(),
          startFromValid: "2027-01-01",
          endToValid: "2027-01-31",
          time: "10:00",
          weekDays: { monday: true },
        },
      ],
      "requests[0].weekDays.monday",
    ],
    ...(["startFromValid", "endToValid", "weekDays"] as const).map((field): [unknown[], string] => [
      [
        {
          action: "CREATE",
          experienceId: crypto.randomUUID(),
          day: "2027-01-04",
          time: "10:00",
          [field]: field === "weekDays" ? { MONDAY: true } : "2027-01-04",
        },
      ],
      `requests[0].${field}`,
    ]),
    // Half a range names the missing bound (an outside audit got requests[0].day).
    ...(
      [
        ["startFromValid", "endToValid"],
        ["endToValid", "startFromValid"],
      ] as const
    ).map(([given, missing]): [unknown[], string] => [
      [
        {
          action: "CREATE",
          experienceId: crypto.randomUUID(),
          [given]: "2027-01-04",
          time: "10:00",
        },
      ],
      `requests[0].${missing}`,
    ]),
    [[{ action: "CREATE", experienceId: crypto.randomUUID(), time: "10:00" }], "requests[0].day"],
    [[{ action: "MOVE" }], "requests[0].action"],
    [[{ action: "UPDATE" }], "requests[0].slotId"],
    [[], "requests"],
  ])("answers 400 for %j naming %s", async (requests, path) => {
    const experience = await createExperience(tenant);
    const body = JSON.parse(
      JSON.stringify(requests).replaceAll(
        /"experienceId":"[^"]+"/g,
        `"experienceId":"${experience.id}"`,
      ),
    );
    const problem = await expectProblem(await act(body), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("refuses a CREATE whose minimum exceeds its capacity, as UPDATE does", async () => {
    // The experience's defaults: maxParties 10, minPartiesToEnable 1.
    const experience = await createExperience(tenant, { minPartiesToEnable: 4 });
    const [day] = nextWeekDays("MONDAY", 1);
    const cases: [Record<string, number>, string][] = [
      [{ newMinParties: 5, newMaxParties: 2 }, "requests[0].newMinParties"],
      [{ newMinParties: 11 }, "requests[0].newMinParties"],
      [{ newMaxParties: 3 }, "requests[0].newMaxParties"],
    ];
    for (const [values, path] of cases) {
      const create = { action: "CREATE", experienceId: experience.id, day, time: "10:00" };
      const problem = await expectProblem(
        await act([{ ...create, ...values }]),
        400,
        "VALIDATION_ERROR",
      );
      expect(problem.errors).toEqual([{ path, message: "minParties must not exceed maxParties" }]);
    }
    expect(await slotRows(tenant.wineryId, experience.id)).toEqual([]);
  });

  it("refuses a listing range over 366 days, naming query.to", async () => {
    const problem = await expectProblem(
      await list("from=2027-01-01&to=2028-01-02"),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.[0]?.path).toBe("to");
    expect((await list("from=2027-01-01&to=2028-01-01")).status).toBe(200);
  });

  it("another winery's experience, slot and series are 404", async () => {
    const theirs = await createExperience(other);
    const [day] = nextWeekDays("MONDAY", 1);
    const created = await api("/v2/availabilities/actions", {
      key: other.apiKey,
      body: { requests: [{ action: "CREATE", experienceId: theirs.id, day, time: "10:00" }] },
    });
    const [slot] = (await created.json()) as BusinessLocation[];
    const slotId = slot?.slotActions.created[0]?.id;
    await expectProblem(
      await act([{ action: "CREATE", experienceId: theirs.id, day, time: "11:00" }]),
      404,
      "NOT_FOUND",
    );
    await expectProblem(await act([{ action: "DELETE", slotId }]), 404, "NOT_FOUND");
    await expectProblem(await act([{ action: "DELETE", parentSlotId: slotId }]), 404, "NOT_FOUND");
    await expectProblem(
      await list(`experienceId=${theirs.id}&from=${day}&to=${day}`),
      404,
      "NOT_FOUND",
    );
    expect(await slotRows(other.wineryId, theirs.id)).toHaveLength(1);
  });

  it("E9 is one round trip (30 or 300 slots); the listing is one", async () => {
    const trips = [];
    for (const days of [30, 300]) {
      const experience = await createExperience(tenant);
      const from = nextWeekDays("MONDAY", 1)[0] ?? "";
      const to = new Date(Date.parse(from) + (days - 1) * 86_400_000).toISOString().slice(0, 10);
      const { result, trips: t } = await countRoundTrips(() =>
        act([
          {
            action: "CREATE",
            experienceId: experience.id,
            startFromValid: from,
            endToValid: to,
            time: "10:00",
          },
        ]),
      );
      expect(result.status).toBe(200);
      const body = (await result.json()) as BusinessLocation[];
      expect(body[0]?.slotActions.created, JSON.stringify(body).slice(0, 300)).toHaveLength(days);
      trips.push(t);
      const listed = await countRoundTrips(() =>
        list(`experienceId=${experience.id}&from=${from}&to=${to}`),
      );
      expect(((await listed.result.json()) as Slot[]).length).toBe(days);
      expect(listed.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    }
    // CREATE requests only: one HTTP batch (createSlotsInOneRequest).
    expect(trips[0]).toEqual({ httpRequests: 1, wsSessions: 0 });
    expect(trips[1]).toEqual(trips[0]);
  });
});
