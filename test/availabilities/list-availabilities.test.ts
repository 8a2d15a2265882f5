import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { slots } from "../../src/db/schema";
import type { Slot } from "../../src/schemas/slots";
import { toSlot, toSlotState } from "../../src/services/slots/slot-rows";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createExperience, nextWeekDays, occupy, slotRows } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let experienceId: string;
let days: string[];

/** Three Saturdays at 15:00, created by E9; the answer is JSON text Postgres writes. */
beforeAll(async () => {
  tenant = await createTenant();
  experienceId = (await createExperience(tenant)).id;
  days = nextWeekDays("SATURDAY", 3);
  const response = await api("/v2/availabilities/actions", {
    key: tenant.apiKey,
    body: {
      requests: [
        {
          action: "CREATE",
          experienceId,
          startFromValid: days[0],
          endToValid: days[2],
          weekDays: { SATURDAY: true },
          time: { hour: 15, minute: 0 },
          newMaxParties: 4,
        },
      ],
    },
  });
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
});

const list = (query: string) =>
  api(`/v2/availabilities?from=${days[0]}&to=${days[2]}${query}`, { key: tenant.apiKey });

describe("GET /v2/availabilities: the answer's text", () => {
  it("is the slots as JSON.stringify writes them, extraData included", async () => {
    // jsonb keeps 1.0 and 2.50, orders keys by length ("2", "b", "10"), and writes ", " and ": ";
    // JavaScript reads numbers as numbers and puts integer-like keys first.
    await testDb().execute(sql`update slots set extra_data =
      ${'{"b": 1.0, "10": [1, 2.50, "x\\ny \\"q\\" \\u0001"], "2": {"z": null, "a": true}, "small": 1e-7}'}::jsonb
      where winery_id = ${tenant.wineryId} and date = ${days[1]}::date`);
    const [first] = await testDb()
      .execute<{ id: string }>(
        sql`select id from slots where winery_id = ${tenant.wineryId} and date = ${days[0]}::date`,
      )
      .then((r) => r.rows);
    await occupy(first?.id ?? "", 6);

    const response = await list(`&experienceId=${experienceId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/json");
    const text = await response.text();
    const slots = JSON.parse(text) as Slot[];
    expect(text).toBe(JSON.stringify(slots));
    expect(slots.map((s) => s.date)).toEqual(days);
    expect(slots[0]).toMatchObject({ occupiedCount: 6, availableSeats: 0, extraData: null });
    expect(JSON.stringify(slots[1]?.extraData)).toBe(
      '{"2":{"a":true,"z":null},"10":[1,2.5,"x\\ny \\"q\\" \\u0001"],"b":1,"small":1e-7}',
    );
    expect(slots[1]).toMatchObject({ time: { hour: 15, minute: 0, second: 0, nano: 0 } });
  });

  it("costs one round trip, with or without extraData", async () => {
    await list(""); // verify the key outside the count
    const { result, trips } = await countRoundTrips(() => list(""));
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it("is [] for an experience without slots in the range, 404 for one the winery lacks", async () => {
    const empty = await api(`/v2/availabilities?from=2001-01-01&to=2001-01-02`, {
      key: tenant.apiKey,
    });
    expect(await empty.text()).toBe("[]");
    await expectProblem(await list(`&experienceId=${crypto.randomUUID()}`), 404, "NOT_FOUND");
  });
});

describe("GET /v2/availabilities: the answer's bytes", () => {
  it("are the slots as toSlot builds them and JSON.stringify writes them", async () => {
    const owner = await createTenant();
    const experience = (await createExperience(owner)).id;
    const [d1, d2, d3] = nextWeekDays("MONDAY", 3);
    const parent = crypto.randomUUID();
    const odd = 'a "q" \\ b\nc\t\u0001 é 🍷';
    await testDb()
      .insert(slots)
      .values([
        // Every field away from its default, odd language strings, nested extraData.
        {
          id: parent,
          wineryId: owner.wineryId,
          experienceId: experience,
          date: d1 as string,
          time: "09:05:07",
          maxParties: 3,
          minParties: 0,
          enabledLanguages: ["en", odd, ""],
          defaultLanguages: [odd],
          active: false,
          manuallyModified: true,
          reservedCount: 2,
          externalOccupants: 5,
          extraData: { z: [1, 2.5, { y: null }], a: odd, "10": true, "2": -0.000001 },
          createdAt: new Date("2026-01-02T03:04:05.006Z"),
          updatedAt: new Date("2026-01-02T03:04:05.000Z"),
        },
        // A child of the series, two on one day (ordered by time), defaults otherwise.
        ...["23:59:59", "00:00:00"].map((time) => ({
          wineryId: owner.wineryId,
          experienceId: experience,
          date: d2 as string,
          time,
          maxParties: 10,
          parentSlotId: parent,
        })),
        {
          wineryId: owner.wineryId,
          experienceId: experience,
          date: d3 as string,
          time: "12:00:00",
          maxParties: 0,
          extraData: {},
        },
      ]);
    const rows = await slotRows(owner.wineryId, experience);
    const expected = JSON.stringify(rows.map((row) => toSlot(toSlotState(row), row)));
    for (const query of ["", `&experienceId=${experience}`]) {
      const response = await api(`/v2/availabilities?from=${d1}&to=${d3}${query}`, {
        key: owner.apiKey,
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(expected);
    }
  });
});
