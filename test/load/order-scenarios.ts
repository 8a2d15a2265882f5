import { and, eq, inArray, sql } from "drizzle-orm";
import { expect } from "vitest";
import { orders } from "../../src/db/schema";
import type { ExternalOrder, Order } from "../../src/schemas/orders";
import { testDb } from "../helpers/db";
import type { TestTenant } from "../helpers/factories";
import { externalOrder, importedOrder } from "../helpers/orders";
import { call, pause, type Random, type Scenario, type Task, unexpected } from "./workload";

const importPath = (t: TestTenant) => `/v4/order-import/${t.apiChannelKey}`;

/**
 * E1 under retries: `keyed` orders each sent by `clients` clients at once with one Idempotency-Key,
 * every client retrying its 409 IDEMPOTENCY_KEY_IN_USE until answered; `keyless` orders each sent
 * by `clients` clients without a key. Afterwards: one order per external id, every keyed client
 * holds that order with exactly one first (not replayed) answer, every keyless client but one got
 * 409 DUPLICATE_ORDER naming the order; one receipt per order, progressive numbers without a gap.
 */
export function importScenario(random: Random, keyed: number, keyless: number): Scenario {
  const clients = 4;
  const sent: {
    order: ExternalOrder;
    key?: string;
    answers: { id: number; replayed: boolean }[];
  }[] = [];
  const importOnce = async (t: TestTenant, entry: (typeof sent)[number]) => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const answer = await call(importPath(t), {
        key: t.apiKey,
        body: entry.order,
        ...(entry.key && { headers: { "Idempotency-Key": entry.key } }),
      });
      if (answer.status === 200) {
        const replayed = answer.headers.get("Idempotent-Replayed") === "true";
        entry.answers.push({ id: (answer.body as Order).id, replayed });
        return;
      }
      if (answer.status === 409 && answer.body.code === "DUPLICATE_ORDER" && !entry.key) {
        entry.answers.push({ id: answer.body.orderId, replayed: true });
        return;
      }
      if (answer.status !== 409 || answer.body.code !== "IDEMPOTENCY_KEY_IN_USE")
        throw unexpected("E1", answer);
      await pause(random.int(5, 40));
    }
    throw new Error("E1: the key stayed in use for 100 retries");
  };
  return {
    name: "E1 imports with retries",
    arrange: async () => {
      for (let i = 0; i < keyed + keyless; i++) {
        const key = i < keyed ? `load-${crypto.randomUUID()}` : undefined;
        sent.push({
          order: externalOrder({ amountCents: random.int(100, 90_000) }),
          key,
          answers: [],
        });
      }
    },
    tasks: (t) =>
      sent.map((entry) => Array.from({ length: clients }, (): Task => () => importOnce(t, entry))),
    verify: async (t) => {
      for (const entry of sent) {
        expect(entry.answers).toHaveLength(clients);
        expect(new Set(entry.answers.map((a) => a.id)).size).toBe(1);
        expect(entry.answers.filter((a) => !a.replayed)).toHaveLength(1);
      }
      const db = testDb();
      const stored = await db
        .select({ externalId: orders.externalId, n: sql<number>`count(*)::int` })
        .from(orders)
        .where(
          and(
            eq(orders.wineryId, t.wineryId),
            inArray(
              orders.externalId,
              sent.map((e) => e.order.id ?? ""),
            ),
          ),
        )
        .groupBy(orders.externalId);
      expect(stored).toHaveLength(sent.length);
      expect(stored.filter((row) => row.n !== 1)).toEqual([]);
      // Each order of the winery issued exactly one receipt, numbered 1..n without a gap or a repeat.
      const { rows } = await db.execute<Record<string, number>>(sql`
        select (select count(*) from orders where winery_id = ${t.wineryId})::int as orders,
               (select count(*) from orders o where winery_id = ${t.wineryId}
                  and (select count(*) from receipts r where r.order_id = o.id) <> 1)::int as "ordersWithoutOneReceipt",
               count(*)::int as receipts, count(distinct progressive_number)::int as numbers,
               min(progressive_number)::int as first, max(progressive_number)::int as last
        from receipts where winery_id = ${t.wineryId}`);
      const r = rows[0] ?? {};
      expect(r).toMatchObject({
        ordersWithoutOneReceipt: 0,
        receipts: r.orders,
        numbers: r.orders,
        first: 1,
        last: r.orders,
      });
    },
  };
}

/**
 * E2 without lost updates: `writers` clients per order each append their tag to
 * userMetadata.tags by read-modify-write with expectedUpdatedAt, retrying STALE_UPDATE a bounded
 * number of times. Afterwards the stored tags are exactly the successful writers' tags, and each
 * success saw the whole history before it (its answer's tags are a prefix of the final ones).
 */
export function orderUpdateScenario(count: number, writers: number): Scenario {
  const ids: number[] = [];
  const successes = new Map<number, string[][]>();
  const write = async (t: TestTenant, orderId: number, tag: string) => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const read = await call(`/v4/orders/${orderId}`, { key: t.apiKey });
      if (read.status !== 200) throw unexpected("GET order", read);
      const order = read.body as Order;
      const tags = ((order.userMetadata?.tags as string[] | undefined) ?? []).concat(tag);
      const answer = await call(`/v4/orders/${orderId}`, {
        key: t.apiKey,
        method: "PUT",
        body: { userMetadata: { ...order.userMetadata, tags }, expectedUpdatedAt: order.updatedAt },
      });
      if (answer.status === 200) {
        successes.get(orderId)?.push((answer.body as Order).userMetadata?.tags as string[]);
        return;
      }
      if (answer.status !== 409 || answer.body.code !== "STALE_UPDATE")
        throw unexpected("E2", answer);
    }
  };
  return {
    name: "E2 concurrent updates with expectedUpdatedAt",
    arrange: async (t) => {
      for (let i = 0; i < count; i++) {
        const order = await importedOrder(t, { userMetadata: { tags: [] } });
        ids.push(order.id);
        successes.set(order.id, []);
      }
    },
    tasks: (t) =>
      ids.map((id) =>
        Array.from(
          { length: writers },
          (_, w): Task =>
            () =>
              write(t, id, `w${w}`),
        ),
      ),
    verify: async (t) => {
      const stored = await testDb()
        .select({ id: orders.id, userMetadata: orders.userMetadata })
        .from(orders)
        .where(and(eq(orders.wineryId, t.wineryId), inArray(orders.id, ids)));
      for (const row of stored) {
        const final = (row.userMetadata?.tags as string[]) ?? [];
        const won = successes.get(row.id) ?? [];
        expect(won.length).toBeGreaterThan(0);
        expect(final).toHaveLength(won.length);
        expect(new Set(final).size).toBe(final.length);
        for (const seen of won) expect(final.slice(0, seen.length)).toEqual(seen);
      }
    },
  };
}
