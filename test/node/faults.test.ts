// The fault switch of the local Neon stand-ins (scripts/local-db/faults.ts), without a database:
// off unless asked for, validated, and a refusal cuts SQL requests while the control still answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NeonLocal, startNeonLocal } from "../../scripts/local-db";

let local: NeonLocal;
beforeAll(async () => {
  local = await startNeonLocal({ faultInjection: true });
});
afterAll(() => local?.close());

const faultsUrl = () => local.faultsUrl as string;
const post = (body: unknown) => fetch(faultsUrl(), { method: "POST", body: JSON.stringify(body) });

describe("the fault switch", () => {
  it("is not served unless asked for (the dev stack never has one)", async () => {
    const plain = await startNeonLocal({});
    try {
      expect(plain.faultsUrl).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it("starts with no fault, sets one, and resets with mode none", async () => {
    expect(await (await fetch(faultsUrl())).json()).toMatchObject({ mode: "none", tripped: false });
    const set = await post({ mode: "drop", afterQueries: 2 });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ mode: "drop", afterQueries: 2, queries: 0 });
    expect((await post({ mode: "none" })).status).toBe(200);
    expect(await (await fetch(faultsUrl())).json()).toMatchObject({ mode: "none" });
  });

  it.each([
    [{ mode: "explode" }, /mode/],
    [{ mode: "drop", afterQueries: -1 }, /afterQueries/],
    [{ mode: "latency", latencyMs: 60_000 }, /latencyMs/],
  ])("refuses %j", async (body, message) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(message);
  });

  it("refuse: a SQL request gets no answer at all; the control and the counters still answer", async () => {
    await post({ mode: "refuse" });
    try {
      await expect(
        fetch(local.httpEndpoint, { method: "POST", body: '{"query":"select 1"}' }),
      ).rejects.toThrow();
      expect(await (await fetch(faultsUrl())).json()).toMatchObject({ tripped: true });
      expect((await fetch(local.statsUrl)).status).toBe(200);
    } finally {
      await post({ mode: "none" });
    }
  });

  it("stall: the SQL request after `afterQueries` is held open and never answered", async () => {
    await post({ mode: "stall", afterQueries: 0 });
    try {
      await expect(
        fetch(local.httpEndpoint, {
          method: "POST",
          body: '{"query":"select 1"}',
          signal: AbortSignal.timeout(300),
        }),
      ).rejects.toThrow(/abort|timeout/i);
      expect(await (await fetch(faultsUrl())).json()).toMatchObject({ queries: 1, tripped: true });
      expect((await fetch(local.statsUrl)).status).toBe(200);
    } finally {
      await post({ mode: "none" });
    }
  });

  it("drop: the SQL request after `afterQueries` loses its connection once it has arrived", async () => {
    await post({ mode: "drop", afterQueries: 0 });
    try {
      await expect(
        fetch(local.httpEndpoint, { method: "POST", body: '{"query":"select 1"}' }),
      ).rejects.toThrow();
      expect(await (await fetch(faultsUrl())).json()).toMatchObject({ queries: 1, tripped: true });
    } finally {
      await post({ mode: "none" });
    }
  });
});
