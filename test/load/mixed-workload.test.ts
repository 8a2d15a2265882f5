import { describe, expect, it } from "vitest";
import { createTenant } from "../helpers/factories";
import { couponScenario, sessionScenario } from "./commerce-scenarios";
import { importScenario, orderUpdateScenario } from "./order-scenarios";
import { refundScenario } from "./refund-scenario";
import { slotScenario } from "./slot-scenario";
import { CONCURRENCY, LOAD_REQUESTS, runPool, type Scenario, seeded, stats } from "./workload";

/**
 * Issue 19, "proof under load": a bounded mixed workload with CONCURRENCY client operations in
 * flight, then the database is checked for what concurrency breaks first: duplicate orders, lost
 * updates, sessions mixing two writers' items, slots over capacity, uses consumed by validation.
 * The work is the same on every run (seeded); LOAD_REQUESTS scales it (default 400 requests).
 */
const size = (share: number, min: number) => Math.max(min, Math.round(LOAD_REQUESTS * share));

describe("mixed workload at 50 concurrent clients", () => {
  it(
    `runs about ${LOAD_REQUESTS} requests and leaves the database consistent`,
    async () => {
      const random = seeded(19);
      const tenant = await createTenant();
      const scenarios: Scenario[] = [
        importScenario(random, size(1 / 40, 4), size(1 / 80, 2)),
        orderUpdateScenario(size(1 / 100, 2), 6),
        sessionScenario(random, size(1 / 100, 2), 6),
        slotScenario(random, size(1 / 8, 10), size(1 / 20, 5), size(1 / 40, 2), size(1 / 40, 2)),
        couponScenario(size(1 / 8, 10)),
        refundScenario(random, size(1 / 100, 2), 6),
      ];
      for (const scenario of scenarios) await scenario.arrange(tenant);
      const tasks = random.shuffle(scenarios.flatMap((s) => s.tasks(tenant))).flat();
      const errors = await runPool(tasks, CONCURRENCY);
      expect(errors.map(String)).toEqual([]);
      // The writers of one order or session start together, so some must lose their lock: without
      // a single STALE_UPDATE the no-lost-update checks below would prove nothing.
      expect(stats.answers.get("409 STALE_UPDATE") ?? 0).toBeGreaterThan(0);
      for (const scenario of scenarios) await scenario.verify(tenant);
    },
    Math.max(180_000, LOAD_REQUESTS * 300),
  );
});
