import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { ORDER_IMPORT_ROUTE } from "../../src/services/orders/import-order";
import { expectProblem } from "../helpers/api";
import { testDb, untilSomeoneWaitsOnALock } from "../helpers/db";
import { createTenant } from "../helpers/factories";
import { externalOrder, importOrder } from "../helpers/orders";
import { countRoundTrips } from "../helpers/round-trips";

describe("E1 idempotency: the race between a claim and its commit", () => {
  it("answers 409 IDEMPOTENCY_KEY_IN_USE while another request holds the key", async () => {
    const tenant = await createTenant();
    const key = `race-${crypto.randomUUID()}`;
    // Another request in flight: it holds the key's advisory lock (as a claim does) until it ends.
    const { answer } = await createDatabase(env, () => {}).transaction(async (tx) => {
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtextextended(${`${tenant.wineryId}:${ORDER_IMPORT_ROUTE}:${key}`}, 0))`,
      );
      const { result, trips } = await countRoundTrips(() =>
        importOrder(tenant, externalOrder(), { "Idempotency-Key": key }),
      );
      // The batch's claim fails, and one read finds the key's lock held: no WebSocket session.
      expect(trips).toEqual({ httpRequests: 2, wsSessions: 0 });
      return { answer: result };
    });
    const problem = await expectProblem(answer, 409, "IDEMPOTENCY_KEY_IN_USE");
    expect(answer.headers.get("Retry-After")).toBeTruthy();
    expect(problem.detail).toMatch(/in flight/);
  });

  it("answers on what the holder committed, once it has: 422 for another payload", async () => {
    const tenant = await createTenant();
    const key = `race-${crypto.randomUUID()}`;
    // Another request's claim, held open: its row is written but not committed. The request under
    // test blocks on the claim row; when the holder commits, the key is finished with another
    // payload, and that is what the request answers (its one-request batch could not claim the
    // key, so the transaction path reads the committed record). It is never a 200 that writes a
    // second order under the key.
    // The pending answer is wrapped so the transaction does not wait for it before committing.
    const { pending } = await createDatabase(env, () => {}).transaction(async (tx) => {
      await tx.execute(sql`
        insert into idempotency_keys (winery_id, route, key, request_hash, response_body, expires_at)
        values (${tenant.wineryId}, ${ORDER_IMPORT_ROUTE}, ${key}, ${"another payload"}, ${"{}"},
                now() + interval '1 hour')`);
      const pending = importOrder(tenant, externalOrder(), { "Idempotency-Key": key });
      await untilSomeoneWaitsOnALock();
      return { pending };
    });
    const answer = await pending;
    await expectProblem(answer, 422, "IDEMPOTENCY_KEY_REUSED");
    const { rows } = await testDb().execute<{ n: string }>(
      sql`select count(*)::text as n from orders where winery_id = ${tenant.wineryId}`,
    );
    expect(rows[0]?.n).toBe("0");
  });
});
