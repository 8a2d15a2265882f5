import { and, eq, sum } from "drizzle-orm";
import { expect } from "vitest";
import { reservationPayments } from "../../src/db/schema";
import { testDb } from "../helpers/db";
import type { TestTenant } from "../helpers/factories";
import { experienceWithSlot, importOk, ledgerSum, reservationBody } from "../helpers/reservations";
import { type Burst, call, pause, type Random, type Scenario, unexpected } from "./workload";

/**
 * E14 under load: `count` reservations paid in-house, each refunded by `clients` clients at once
 * (amounts drawn so that together they ask for more than was paid), every other client sending
 * its Idempotency-Key twice. Afterwards, per reservation: the ledger holds exactly the refunds
 * answered 200 without Idempotent-Replayed, never more than was paid, and the payment's refunded
 * amount equals the ledger.
 */
export function refundScenario(random: Random, count: number, clients: number): Scenario {
  const paid = new Map<string, number>();
  const refunded = new Map<string, number>();
  const refundOnce = async (t: TestTenant, id: string, amountCents: number, key?: string) => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const answer = await call(`/v2/reservations/${id}/refund`, {
        key: t.apiKey,
        body: { amountCents },
        ...(key && { headers: { "Idempotency-Key": key } }),
      });
      if (answer.status === 200) {
        if (answer.headers.get("Idempotent-Replayed") !== "true")
          refunded.set(id, (refunded.get(id) ?? 0) + amountCents);
        return;
      }
      if (answer.status === 400 && answer.body.code === "NOT_REFUNDABLE") return;
      if (answer.status !== 409 || answer.body.code !== "IDEMPOTENCY_KEY_IN_USE")
        throw unexpected("E14", answer);
      await pause(random.int(5, 40));
    }
    throw new Error("E14: the key stayed in use for 100 retries");
  };
  return {
    name: "E14 concurrent refunds",
    arrange: async (t) => {
      for (let i = 0; i < count; i++) {
        const id = crypto.randomUUID();
        const amount = random.int(1_000, 9_000);
        const target = await experienceWithSlot(t);
        await importOk(t, id, reservationBody(target, { paidTotalCents: amount, paid: true }));
        paid.set(id, amount);
      }
    },
    tasks: (t) =>
      [...paid].map(
        ([id, amount]): Burst =>
          Array.from({ length: clients }, (_, c) => {
            const amountCents = random.int(1, Math.ceil((2 * amount) / clients));
            const key = c % 2 === 0 ? `refund-${crypto.randomUUID()}` : undefined;
            return key
              ? () =>
                  Promise.all([0, 1].map(() => refundOnce(t, id, amountCents, key))).then(() => {})
              : () => refundOnce(t, id, amountCents);
          }),
      ),
    verify: async (t) => {
      for (const [id, amount] of paid) {
        const ledger = await ledgerSum(t.wineryId, id);
        expect(ledger).toBe(refunded.get(id) ?? 0);
        expect(ledger).toBeLessThanOrEqual(amount);
        const [payment] = await testDb()
          .select({ refunded: sum(reservationPayments.refundedCents).mapWith(Number) })
          .from(reservationPayments)
          .where(
            and(
              eq(reservationPayments.wineryId, t.wineryId),
              eq(reservationPayments.reservationId, id),
            ),
          );
        expect(payment?.refunded).toBe(ledger);
      }
    },
  };
}
