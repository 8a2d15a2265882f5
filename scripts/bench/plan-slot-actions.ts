/**
 * E9's planner alone, in Node: 1,000 series UPDATEs (dry run) over 24 series of 365 slots, the
 * call an outside audit found stopping `npm run dev` for ~4 s. Prints the plan's time per round.
 * Run: `npx tsx scripts/bench/plan-slot-actions.ts` (session 14: 1.4-1.9 s per plan, 0.13-0.18 s
 * once series came from an index and unmoved slots kept their key).
 */
import { eachDay } from "../../src/lib/calendar";
import type { SlotActionRequest } from "../../src/schemas/slot-actions";
import { planSlotActions } from "../../src/services/slots/plan-slot-actions";
import type { SlotState } from "../../src/services/slots/slot-set";

const experienceId = "7d3c2b1a-0f4e-4d5c-8b6a-1e2f3a4b5c6d";
const rows: SlotState[] = [];
const parents: string[] = [];
for (let hour = 0; hour < 24; hour++) {
  let parent: string | null = null;
  for (const date of eachDay("2042-01-01", "2042-12-31")) {
    const id = crypto.randomUUID();
    rows.push({
      id,
      experienceId,
      date,
      time: `${String(hour).padStart(2, "0")}:30:00`,
      maxParties: 10,
      minParties: 1,
      enabledLanguages: ["en"],
      defaultLanguages: [],
      active: true,
      parentSlotId: parent,
      manuallyModified: false,
      reservedCount: 0,
      externalOccupants: 0,
      extraData: null,
    });
    if (!parent) {
      parent = id;
      parents.push(id);
    }
  }
}
const experiences = new Map([
  [
    experienceId,
    { id: experienceId, maxParties: 10, minPartiesToEnable: 1, languagesIsoCode: ["en"] },
  ],
]);
const requests = Array.from(
  { length: 1000 },
  (_, i) =>
    ({
      action: "UPDATE",
      parentSlotId: parents[i % parents.length],
      newMaxParties: 5 + (i % 50),
      ignoreManualModification: true,
      dryRun: true,
    }) as SlotActionRequest,
);
for (let round = 1; round <= 5; round++) {
  const started = performance.now();
  const plan = planSlotActions(requests, experiences, rows);
  const ms = Math.round(performance.now() - started);
  console.log(`round ${round}: ${ms} ms, ${plan.diff.update.length} slots updated`);
}
