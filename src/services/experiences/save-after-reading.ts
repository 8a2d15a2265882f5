import type { HttpDb } from "../../db/client";
import { rawBatch, rawQuery, rawStatement } from "../../db/raw-batch";
import type { Experience, ExperienceInput } from "../../schemas/experiences";
import { SlotConflictError } from "../slots/slot-conflict-error";
import { slotDiffStatements } from "../slots/slot-rows";
import { noReads } from "../slots/slot-set";
import {
  isStalePlan,
  LOCK_EXPERIENCES_SQL,
  LOCK_SLOTS_SQL,
  STALE,
  slotGuard,
  type Targets,
  tooManyToWrite,
  type VersionedSlot,
  versionedSlots,
} from "../slots/slot-versions";
import { planExperience, valuesOf } from "./plan-experience";
import {
  experienceState,
  REPLACE_EXPERIENCE_SQL,
  SAVE_REMEDY,
  savedExperience,
  valuesByColumn,
} from "./save-in-one-request";

/**
 * ONE statement, one snapshot, nothing locked: experience ($1, $2) as row_to_json with its version
 * (the md5 of that text), and its slots with theirs (slot-versions.ts). No row: a new experience.
 */
const READ_SQL = `select row_to_json(e) as experience, md5(row_to_json(e)::text) as version,
  ${versionedSlots("s.winery_id = $1 and s.experience_id = $2")} as slots
  from experiences e where e.winery_id = $1 and e.id = $2`;

/**
 * The guard of the experience row ($3: its version as read), as SLOT_GUARD_SQL guards the slots:
 * changed or gone, the statement fails (a cast of a text naming it to int, on a row only then).
 */
const ROW_GUARD_SQL = `select cast('${STALE}experience ' || coalesce(e.id::text, 'gone') as int)
  from (select 1) one left join experiences e on e.winery_id = $1 and e.id = $2
  where md5(row_to_json(e)::text) is distinct from $3`;

/** Reads, plans and batches are tried this many times before the save is left to the caller. */
const ATTEMPTS = 2;

/**
 * PUT /experiences/{id} with `slotsRequests`, of an experience that exists, in two HTTP requests
 * and no interactive transaction (E9's way: slot-versions.ts): one statement reads the experience
 * and its slots, planExperience plans on them recording what it read, and then
 * - a plan with conflicts (409) or errors (400) is answered from that reading, having locked and
 *   written nothing;
 * - otherwise ONE batch locks the experience and its slots as the interactive save does, checks
 *   that the experience row and every slot the plan read are as read (propagation reads every slot
 *   from today on; slot requests alone read the slots they name and the dates and times they look
 *   at), replaces the experience's values and writes the slot diff (slotDiffStatements, the
 *   interactive save's own statements).
 * Something read changed meanwhile fails the batch, with nothing written, and the save is read and
 * planned again, up to ATTEMPTS times; then, or for an experience not there yet (whose row the
 * interactive save inserts and locks first), or one of more than MAX_HTTP_SLOTS slots, or a plan
 * writing more, the answer is `undefined` and the caller runs the
 * interactive save.
 */
export async function saveAfterReading(
  db: HttpDb,
  wineryId: string,
  id: string,
  input: ExperienceInput,
  today: string,
): Promise<Experience | undefined> {
  const targets: Targets = { experienceIds: [id], slotIds: [], parentIds: [] };
  const argument = JSON.stringify(targets);
  const values = JSON.stringify(valuesByColumn(valuesOf(input)));
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const [read] = (await rawQuery(db, READ_SQL, [wineryId, id])) as unknown as [
      | { experience: Record<string, unknown>; version: string; slots: VersionedSlot[] | null }
      | undefined,
    ];
    const slots = read?.slots;
    if (!read || !slots) return undefined;
    const reads = noReads();
    const state = experienceState(
      read.experience,
      slots.map((slot) => slot.state),
    );
    const plan = planExperience(id, state, input, today, reads);
    if (plan.conflicts.length > 0) throw new SlotConflictError(plan.conflicts, SAVE_REMEDY);
    if (tooManyToWrite(plan.slots)) return undefined;
    try {
      const results = await rawBatch(db, [
        [LOCK_EXPERIENCES_SQL, [wineryId, argument]],
        [LOCK_SLOTS_SQL, [wineryId, argument]],
        [ROW_GUARD_SQL, [wineryId, id, read.version]],
        slotGuard(wineryId, targets, reads, slots, plan.slots),
        [REPLACE_EXPERIENCE_SQL, [wineryId, id, values]],
        ...slotDiffStatements(wineryId, plan.slots).map(rawStatement),
      ]);
      return savedExperience(results[4]?.[0]?.experience as Parameters<typeof savedExperience>[0]);
    } catch (error) {
      if (!isStalePlan(error)) throw error;
    }
  }
  return undefined;
}
