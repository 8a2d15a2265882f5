import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { orders } from "../../src/db/schema";
import { expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { assertDocumented } from "../helpers/documented-responses";
import { createTenant, type TestTenant } from "../helpers/factories";
import { externalOrder } from "../helpers/orders";

/**
 * The IDEMPOTENCY KV namespace failing: E1's replays still come from Postgres, where the claim and
 * the result are written with the order, so a retried import never makes a second order. The
 * failing namespace is the Worker's own binding swapped for the request (no test code in src).
 */

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

/** A KV namespace whose every read and write fails, the way `fail` says; it counts the attempts. */
function failingKv(fail: "throws" | "rejects") {
  const calls = { get: 0, put: 0 };
  const failure = () => {
    const error = new Error("KV GET failed: 503 Service Unavailable");
    if (fail === "throws") throw error;
    return Promise.reject(error);
  };
  const kv = {
    get: () => {
      calls.get++;
      return failure();
    },
    put: () => {
      calls.put++;
      return failure();
    },
  };
  return { kv: kv as unknown as KVNamespace, calls };
}

async function importWith(kv: KVNamespace, order: unknown, key: string) {
  const ctx = createExecutionContext();
  const url = `http://api.test/api/v4/order-import/${tenant.apiChannelKey}`;
  const response = await createApp().fetch(
    new Request(url, {
      method: "POST",
      headers: {
        APIKey: tenant.apiKey,
        "Content-Type": "application/json",
        "Idempotency-Key": key,
      },
      body: JSON.stringify(order),
    }),
    { ...env, IDEMPOTENCY: kv },
    ctx,
  );
  await waitOnExecutionContext(ctx); // the cache write, which fails, has been attempted
  await assertDocumented("POST", url, response);
  return response;
}

const ordersWithExternalId = (externalId: string) =>
  testDb()
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.wineryId, tenant.wineryId), eq(orders.externalId, externalId)));

describe.each(["throws", "rejects"] as const)("E1 with a KV namespace that %s", (fail) => {
  it("replays a retried import from Postgres: the same answer, one order", async () => {
    const { kv, calls } = failingKv(fail);
    const order = externalOrder();
    const key = `kv-down-${crypto.randomUUID()}`;
    const first = await importWith(kv, order, key);
    expect(first.status).toBe(200);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const body = await first.text();
    const retried = await importWith(kv, order, key);
    expect(retried.status).toBe(200);
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await retried.text()).toBe(body);
    expect(await ordersWithExternalId(order.id)).toHaveLength(1);
    // Both requests did try the cache first, and the first tried to fill it.
    expect(calls).toEqual({ get: 2, put: 2 });
  });

  it("still refuses the key reused with another payload (422), from Postgres", async () => {
    const { kv } = failingKv(fail);
    const key = `kv-down-${crypto.randomUUID()}`;
    const order = externalOrder();
    expect((await importWith(kv, order, key)).status).toBe(200);
    await expectProblem(await importWith(kv, externalOrder(), key), 422, "IDEMPOTENCY_KEY_REUSED");
    expect(await ordersWithExternalId(order.id)).toHaveLength(1);
  });
});

describe("E1 with the cache filled, then KV failing", () => {
  it("replays from Postgres what the cache can no longer give", async () => {
    const order = externalOrder();
    const key = `kv-later-${crypto.randomUUID()}`;
    const first = await importWith(env.IDEMPOTENCY, order, key);
    expect(first.status).toBe(200);
    const body = await first.text();
    const { kv, calls } = failingKv("rejects");
    const retried = await importWith(kv, order, key);
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await retried.text()).toBe(body);
    expect(calls.get).toBe(1);
    expect(await ordersWithExternalId(order.id)).toHaveLength(1);
  });
});
