import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { reservations } from "../../src/db/schema";
import { expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createExperience } from "../helpers/experiences";
import { createTenant, type TestTenant } from "../helpers/factories";
import {
  createSlot,
  experienceWithSlot,
  importOk,
  ledgerSum,
  refund,
  refundOk,
  reservationBody,
} from "../helpers/reservations";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
});

/** A reservation of `tenant` paid in-house with `paidTotalCents`. */
async function paidReservation(paidTotalCents: number, owner = tenant) {
  const target = await experienceWithSlot(owner);
  const id = crypto.randomUUID();
  const response = await importOk(
    owner,
    id,
    reservationBody(target, { paidTotalCents, paid: paidTotalCents > 0, state: "CONFIRMED" }),
  );
  return response.id;
}

const stateOf = async (wineryId: string, id: string) =>
  (
    await testDb()
      .select({ state: reservations.state })
      .from(reservations)
      .where(and(eq(reservations.wineryId, wineryId), eq(reservations.id, id)))
  )[0]?.state;

describe("E14 POST /v2/reservations/{reservationID}/refund: happy", () => {
  it("refunds the whole in-house payment; the state does not change", async () => {
    const id = await paidReservation(5000);
    const before = Date.now();
    const view = await refundOk(tenant, id, 5000);
    expect(view).toMatchObject({
      id,
      wineryId: tenant.wineryId,
      refundedTotalCents: 5000,
      state: "CONFIRMED",
      paid: true,
      paymentMethod: "IN_HOUSE",
      checkedIn: null,
      experiencePrices: [],
      masterContactName: "Giulia Rossi",
      time: { hour: 15, minute: 0, second: 0, nano: 0 },
    });
    expect(Date.parse(view.refundedAt ?? "")).toBeGreaterThanOrEqual(before - 5000);
    expect(view.paidAt).not.toBeNull();
    expect(await stateOf(tenant.wineryId, id)).toBe("CONFIRMED");
    expect(await ledgerSum(tenant.wineryId, id)).toBe(5000);
  });

  it("carries the experience's price labels, extras and title translations", async () => {
    const experience = await createExperience(tenant, {
      experiencePriceLabelsAttributes: {
        adult: { id: 1, position: 1, priceCents: 2500, priceCurrency: "EUR" },
        child: { id: 2, position: 2, priceCents: 1000, priceCurrency: "EUR" },
      },
      experiencePriceExtrasAttributes: { cheese: { id: 7, priceCents: 500 } },
    });
    const slot = { experienceId: experience.id, date: "2027-04-10", time: "11:00:00" };
    await createSlot(tenant, experience.id, slot.date, slot.time);
    const id = crypto.randomUUID();
    await importOk(tenant, id, reservationBody(slot, { paidTotalCents: 900 }));
    const view = await refundOk(tenant, id, 100);
    expect(view.experiencePrices).toEqual([
      { id: 1, position: 1, priceCents: 2500, priceCurrency: "EUR" },
      { id: 2, position: 2, priceCents: 1000, priceCurrency: "EUR" },
    ]);
    expect(view.experiencePricesExtras).toEqual([{ id: 7, priceCents: 500 }]);
    expect(view.experienceTranslations).toEqual([
      { experienceId: experience.id, languageIsoCode: "en", text: "Tasting" },
      { experienceId: experience.id, languageIsoCode: "it", text: "Degustazione" },
    ]);
  });

  it.each([
    ["PT1H30M", "2027-03-06T16:30:00.000Z"],
    ["PT45S", "2027-03-06T15:00:45.000Z"],
    // A fraction (of the last part: Java's Duration.parse takes it on seconds) and days.
    ["PT0.5S", "2027-03-06T15:00:00.500Z"],
    ["PT1.5H", "2027-03-06T16:30:00.000Z"],
    ["P1DT2H", "2027-03-07T17:00:00.000Z"],
    ["PT1.5H30M", null],
    ["PT", null],
    ["P1DT", null],
    ["-PT1H", null],
    ["90 minutes", null],
    [null, null],
  ])(
    "startDateTime is the reservation's date and time; endDateTime adds a duration of %s",
    async (duration, end) => {
      const experience = await createExperience(tenant, { duration });
      const target = { experienceId: experience.id, date: "2027-03-06", time: "15:00" };
      await createSlot(tenant, experience.id, target.date, "15:00:00");
      const { id } = await importOk(
        tenant,
        "NEW",
        reservationBody(target, { paidTotalCents: 900 }),
      );
      const view = await refundOk(tenant, id, 100);
      expect([view.startDateTime, view.endDateTime]).toEqual(["2027-03-06T15:00:00.000Z", end]);
    },
  );

  it("an end past the year 9999 is null, never an error", async () => {
    const experience = await createExperience(tenant, { duration: "PT9999H9999M99999S" });
    const target = { experienceId: experience.id, date: "9999-12-31", time: "23:00" };
    const { id } = await importOk(tenant, "NEW", reservationBody(target, { paidTotalCents: 900 }));
    const view = await refundOk(tenant, id, 100);
    expect([view.startDateTime, view.endDateTime]).toEqual(["9999-12-31T23:00:00.000Z", null]);
  });

  it("refunds in parts, twice up to exactly the paid amount, then nothing more", async () => {
    const id = await paidReservation(5000);
    expect((await refundOk(tenant, id, 1200)).refundedTotalCents).toBe(1200);
    expect((await refundOk(tenant, id, 3800)).refundedTotalCents).toBe(5000);
    const problem = await expectProblem(await refund(tenant, id, 1), 400, "NOT_REFUNDABLE");
    expect(problem.detail).toContain("fully refunded");
    expect(await ledgerSum(tenant.wineryId, id)).toBe(5000);
  });

  it("a retry with the same Idempotency-Key refunds once and replays the first answer", async () => {
    const id = await paidReservation(5000);
    const headers = { "Idempotency-Key": `refund-${crypto.randomUUID()}` };
    const first = await refund(tenant, id, 1000, headers);
    expect(first.status).toBe(200);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const firstBody = await first.text();
    const again = await refund(tenant, id, 1000, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(firstBody);
    expect(await ledgerSum(tenant.wineryId, id)).toBe(1000);
  });

  it("20 concurrent partial refunds over the paid amount never exceed it, keyed or not; each refusal names the rest it was refused on; the state is unchanged", async () => {
    const id = await paidReservation(10_000);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        refund(tenant, id, 700, i % 2 ? { "Idempotency-Key": crypto.randomUUID() } : {}),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(14);
    expect(statuses.filter((s) => s === 400)).toHaveLength(6);
    // Refused once 14 refunds had left 200 cents, whatever the rest when the request began.
    for (const response of responses.filter((r) => r.status === 400)) {
      const problem = await expectProblem(response, 400, "NOT_REFUNDABLE");
      expect(problem.detail).toBe(
        `700 cents is over the refundable rest of 200 cents of reservation ${id}.`,
      );
    }
    expect(await ledgerSum(tenant.wineryId, id)).toBe(9800);
    expect(await stateOf(tenant.wineryId, id)).toBe("CONFIRMED");
  });

  it("costs one round trip with or without a key, and answers the same view either way", async () => {
    const id = await paidReservation(5000);
    const plain = await countRoundTrips(() => refund(tenant, id, 1));
    expect(plain.result.status).toBe(200);
    expect(plain.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    const keyed = await countRoundTrips(() =>
      refund(tenant, id, 2, { "Idempotency-Key": crypto.randomUUID() }),
    );
    expect(keyed.result.status).toBe(200);
    expect(keyed.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
    // Only what the second refund changed differs: the refunded total and the refund's time.
    type View = { refundedTotalCents: number; refundedAt: string };
    const first = (await plain.result.json()) as View;
    const second = (await keyed.result.json()) as View;
    expect(second.refundedTotalCents).toBe(3);
    expect(Date.parse(second.refundedAt)).toBeGreaterThanOrEqual(Date.parse(first.refundedAt));
    expect(JSON.stringify({ ...second, refundedTotalCents: 1, refundedAt: first.refundedAt })).toBe(
      JSON.stringify(first),
    );
  });

  it("with a key, a refused refund is kept with the key in the same one request, answered as without a key: another amount needs another key", async () => {
    const id = await paidReservation(5000);
    const unpaid = await paidReservation(0);
    await refundOk(tenant, id, 1);
    const headers = { "Idempotency-Key": `refund-${crypto.randomUUID()}` };
    // Every reason a refund refunds nothing: over the rest, fully refunded, no in-house payment,
    // no such reservation. Each costs one HTTP request with a key, as without one, and answers
    // the same problem, word for word.
    const full = await paidReservation(300);
    await refundOk(tenant, full, 300);
    const missing = crypto.randomUUID();
    for (const [target, amount, status, code] of [
      [id, 6000, 400, "NOT_REFUNDABLE"],
      [full, 1, 400, "NOT_REFUNDABLE"],
      [unpaid, 10, 400, "NOT_REFUNDABLE"],
      [missing, 10, 404, "NOT_FOUND"],
    ] as const) {
      const plain = await expectProblem(await refund(tenant, target, amount), status, code);
      const keyed = await countRoundTrips(() =>
        refund(
          tenant,
          target,
          amount,
          target === id ? headers : { "Idempotency-Key": crypto.randomUUID() },
        ),
      );
      expect(keyed.trips).toEqual({ httpRequests: 1, wsSessions: 0 });
      expect(keyed.result.headers.get("Idempotent-Replayed")).toBeNull();
      const problem = await expectProblem(keyed.result, status, code);
      expect(problem.detail).toBe(plain.detail);
    }
    expect(await ledgerSum(tenant.wineryId, id)).toBe(1);
    await expectProblem(await refund(tenant, id, 5000, headers), 422, "IDEMPOTENCY_KEY_REUSED");
    const fresh = { "Idempotency-Key": `refund-${crypto.randomUUID()}` };
    expect((await refund(tenant, id, 4999, fresh)).status).toBe(200);
    expect(await ledgerSum(tenant.wineryId, id)).toBe(5000);
  });
});

describe("E14: errors", () => {
  it("an amount over the refundable rest is NOT_REFUNDABLE and refunds nothing", async () => {
    const id = await paidReservation(5000);
    await refundOk(tenant, id, 4000);
    const problem = await expectProblem(await refund(tenant, id, 1001), 400, "NOT_REFUNDABLE");
    expect(problem.detail).toContain("1000");
    expect(await ledgerSum(tenant.wineryId, id)).toBe(4000);
  });

  it("a reservation without an in-house payment is NOT_REFUNDABLE", async () => {
    const id = await paidReservation(0);
    const problem = await expectProblem(await refund(tenant, id, 100), 400, "NOT_REFUNDABLE");
    expect(problem.detail).toContain("no in-house payment");
  });

  it.each([
    ["zero", 0],
    ["negative", -5],
    ["fractional", 1.5],
    ["a string", "100"],
    ["past 2^53-1", 2 ** 53],
  ])("amountCents %s is 400 naming amountCents", async (_, amount) => {
    const id = await paidReservation(5000);
    const problem = await expectProblem(await refund(tenant, id, amount), 400, "VALIDATION_ERROR");
    expect(new Set(problem.errors?.map((e) => e.path))).toEqual(new Set(["amountCents"]));
  });

  it("a reservationID that is not a uuid names no reservation (the interface types it a string): 404", async () => {
    for (const id of ["NEW", "R-1001"]) {
      const problem = await expectProblem(await refund(tenant, id, 100), 404, "NOT_FOUND");
      expect(problem.detail).toContain(id);
    }
    // Answered before anything runs: nothing is kept under its key (the route says so).
    const headers = { "Idempotency-Key": `refund-${crypto.randomUUID()}` };
    for (const amount of [100, 100, 200]) {
      const again = await refund(tenant, "R-1001", amount, headers);
      expect(again.headers.get("Idempotent-Replayed")).toBeNull();
      await expectProblem(again, 404, "NOT_FOUND");
    }
    // Its uuid in capitals is the reservation still.
    const id = await paidReservation(5000);
    expect((await refund(tenant, id.toUpperCase(), 100)).status).toBe(200);
    const problem = await expectProblem(
      await refund(tenant, "x".repeat(101), 100),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["reservationID"]);
  });

  it("an unknown reservation is 404", async () => {
    await expectProblem(await refund(tenant, crypto.randomUUID(), 100), 404, "NOT_FOUND");
  });

  it("a refused refund is kept with its key: the retry replays NOT_REFUNDABLE even once it could pass", async () => {
    const id = await paidReservation(1000);
    const headers = { "Idempotency-Key": `refund-${crypto.randomUUID()}` };
    const first = await refund(tenant, id, 1500, headers);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const refused = await expectProblem(first, 400, "NOT_REFUNDABLE");
    const again = await refund(tenant, id, 1500, headers);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    const replayed = await expectProblem(again, 400, "NOT_REFUNDABLE");
    expect(replayed.detail).toBe(refused.detail);
    expect(await ledgerSum(tenant.wineryId, id)).toBe(0);
    const unknown = { "Idempotency-Key": `refund-${crypto.randomUUID()}` };
    const missing = crypto.randomUUID();
    await expectProblem(await refund(tenant, missing, 100, unknown), 404, "NOT_FOUND");
    const notFoundAgain = await refund(tenant, missing, 100, unknown);
    expect(notFoundAgain.headers.get("Idempotent-Replayed")).toBe("true");
    await expectProblem(notFoundAgain, 404, "NOT_FOUND");
  });

  it("the same Idempotency-Key with another amount is 422 and refunds nothing more", async () => {
    const id = await paidReservation(5000);
    const headers = { "Idempotency-Key": `refund-${crypto.randomUUID()}` };
    await refundOk(tenant, id, 1000).then(() => undefined);
    expect((await refund(tenant, id, 500, headers)).status).toBe(200);
    await expectProblem(await refund(tenant, id, 600, headers), 422, "IDEMPOTENCY_KEY_REUSED");
    expect(await ledgerSum(tenant.wineryId, id)).toBe(1500);
  });
});

describe("E14: tenancy", () => {
  it("another winery's reservation is 404 and keeps its payment", async () => {
    const theirs = await paidReservation(5000, other);
    await expectProblem(await refund(tenant, theirs, 100), 404, "NOT_FOUND");
    expect(await ledgerSum(other.wineryId, theirs)).toBe(0);
  });
});
