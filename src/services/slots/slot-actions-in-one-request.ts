import type { HttpDb } from "../../db/client";
import { rawBatch, rawQuery, rawStatement } from "../../db/raw-batch";
import type { BusinessLocation } from "../../schemas/business-location";
import type { SlotActionsCommand } from "../../schemas/slot-actions";
import { openBusinessLocation, RECORD_SQL } from "../wineries/read-business-location";
import { type ExperienceDefaults, planSlotActions, skippedAnswer } from "./plan-slot-actions";
import { slotDiffStatements, toSlot } from "./slot-rows";
import { noReads, type SlotState } from "./slot-set";
import {
  ACTED_ON,
  isStalePlan,
  LOCK_EXPERIENCES_SQL,
  LOCK_SLOTS_SQL,
  STALE,
  slotGuard,
  targetsOf,
  tooManyToWrite,
  type VersionedSlot,
  versionedSlots,
} from "./slot-versions";

/** What planSlotActions reads of experience `e` (ExperienceDefaults), as json. */
const EXPERIENCE_OBJECT = `json_build_object('id', e.id, 'maxParties', e.max_parties,
  'minPartiesToEnable', e.min_parties_to_enable, 'languagesIsoCode', e.languages_iso_code)`;

/**
 * ONE statement, one snapshot, nothing locked: the experiences acted on and all their slots as the
 * planner reads them, each with its version (the md5 of its json text: what the batch checks), and
 * the business-location record.
 */
const READ_SQL = `
select
  coalesce((select json_agg(json_build_object('state', x.o, 'version', md5(x.o::text)))
    from (select ${EXPERIENCE_OBJECT} as o from experiences e where ${ACTED_ON}) x), '[]')
    as experiences,
  ${versionedSlots(`s.winery_id = $1
    and s.experience_id in (select e.id from experiences e where ${ACTED_ON})`)} as slots,
  (${RECORD_SQL}$1) as record`;

/**
 * The guard of the experiences' values the plan read ($2 `experiences`: id and version; only a
 * CREATE reads them, for its defaults), as SLOT_GUARD_SQL guards the slots (slot-versions.ts). A
 * save that changes another field of the experience does not fail an UPDATE or a DELETE.
 */
const EXPERIENCE_GUARD_SQL = `
with arg as (select $2::jsonb as j),
cur as (
  select e.id, md5((${EXPERIENCE_OBJECT})::text) as version from experiences e, arg
  where ${ACTED_ON} and e.id in (select w.id from jsonb_to_recordset(arg.j -> 'experiences')
    as w(id uuid))
),
want as (
  select w.id, w.version
  from arg, jsonb_to_recordset(arg.j -> 'experiences') as w(id uuid, version text)
),
changed as (
  select coalesce(c.id, w.id) as id from cur c full join want w on w.id = c.id
  where c.version is distinct from w.version
)
select cast('${STALE}experience ' || id as int) from changed`;

/**
 * The seats reserved on the slots the batch changes or deletes, read once everything is locked,
 * before it writes: what its answer reports (imports may have released some since the read).
 */
const SEATS_SQL = `select id, reserved_count as "reservedCount" from slots
  where winery_id = $1 and id in (select jsonb_array_elements_text($2::jsonb)::uuid)`;

/** The written slots' stamps, the batch's last statement. */
const STAMPS_SQL = `select id, created_at as "createdAt", updated_at as "updatedAt" from slots
  where winery_id = $1 and id in (select jsonb_array_elements_text($2::jsonb)::uuid)`;

interface ReadOutcome {
  experiences: { state: ExperienceDefaults; version: string }[];
  /** Null: more than MAX_HTTP_SLOTS. */
  slots: VersionedSlot[] | null;
  record: NonNullable<Parameters<typeof openBusinessLocation>[0]>["record"] | null;
}

/** Reads, plans and batches are tried this many times before the call is left to the caller. */
export const ONE_REQUEST_ATTEMPTS = 2;

/**
 * E9 in two HTTP requests and no interactive transaction, for any call: one statement reads the
 * experiences acted on and their slots (no lock), planSlotActions plans on them, recording what it
 * read (SlotReads), and then
 * - a refused call (404, 400, 409), a dry run or a call that changes nothing is answered from that
 *   reading, having locked and written nothing: what the call would have met at that instant;
 * - otherwise ONE batch (one transaction) locks the experiences and their slots as the interactive
 *   path does, checks that the experiences' values and every slot the plan read are as read
 *   (slot-versions.ts), writes the plan's diff (slotDiffStatements, the interactive path's own
 *   statements) and reads back the written slots' stamps. The locks are held for that one batch's
 *   statements inside Postgres, not for the interactive path's round trips through the Worker,
 *   which is what made calls on one busy experience queue for seconds.
 * Something the plan read changed between the read and the batch (another call was first) fails
 * the batch, with nothing written, and the call is read and planned again, up to
 * ONE_REQUEST_ATTEMPTS times; then the answer is `undefined` and the caller runs the interactive
 * path, whose locks come first; as it is for experiences of more than MAX_HTTP_SLOTS slots, or a
 * plan writing more. Changes to slots the plan did not read (another slot of the
 * experience taking a reservation) do not fail it, nor seats released on the slots it did: the
 * plan does not depend on them, and the batch's locks keep them out while it writes; its answer
 * reports the seats as the batch found them.
 */
export async function slotActionsInOneRequest(
  db: HttpDb,
  wineryId: string,
  command: SlotActionsCommand,
  options: { integrationsKey: string },
): Promise<BusinessLocation[] | undefined> {
  const { requests } = command;
  const targets = targetsOf(requests);
  const argument = JSON.stringify(targets);
  for (let attempt = 1; attempt <= ONE_REQUEST_ATTEMPTS; attempt++) {
    const [read] = (await rawQuery(db, READ_SQL, [wineryId, argument])) as unknown as [ReadOutcome];
    const slots = read.slots;
    if (!slots) return undefined;
    const reads = noReads();
    const plan = planSlotActions(
      requests,
      new Map(read.experiences.map(({ state }) => [state.id, state])),
      slots.map(({ state }) => state),
      undefined,
      reads,
    );
    const { diff } = plan;
    const asRead = new Map(slots.map((slot) => [slot.state.id, slot]));
    let written = new Map<string, { createdAt: string; updatedAt: string }>();
    const reservedNow = new Map<string, number>();
    const writes = diff.create.length + diff.update.length + diff.delete.length > 0;
    if (!plan.dryRun && writes) {
      if (tooManyToWrite(diff)) return undefined;
      const changed = [...diff.create, ...diff.update.map((u) => u.after)].map((s) => s.id);
      const touched = [...diff.update.map((u) => u.after), ...diff.delete].map((s) => s.id);
      const versions = read.experiences
        .filter(({ state }) => reads.experiences.has(state.id))
        .map(({ state, version }) => ({ id: state.id, version }));
      let results: Record<string, unknown>[][];
      try {
        results = await rawBatch(db, [
          [LOCK_EXPERIENCES_SQL, [wineryId, argument]],
          [LOCK_SLOTS_SQL, [wineryId, argument]],
          [EXPERIENCE_GUARD_SQL, [wineryId, JSON.stringify({ ...targets, experiences: versions })]],
          slotGuard(wineryId, targets, reads, slots, diff),
          [SEATS_SQL, [wineryId, JSON.stringify(touched)]],
          ...slotDiffStatements(wineryId, diff).map(rawStatement),
          [STAMPS_SQL, [wineryId, JSON.stringify(changed)]],
        ]);
      } catch (error) {
        if (isStalePlan(error)) continue;
        throw error;
      }
      const stamps = (results.at(-1) ?? []) as {
        id: string;
        createdAt: string;
        updatedAt: string;
      }[];
      written = new Map(stamps.map((row) => [row.id, row]));
      // The seats reserved as the batch found them (no more than read: the guard saw to that).
      const seats = (results[4] ?? []) as { id: string; reservedCount: number }[];
      for (const { id, reservedCount } of seats) reservedNow.set(id, reservedCount);
    }
    const withSeats = (slot: SlotState) => {
      const reservedCount = reservedNow.get(slot.id);
      return reservedCount === undefined ? slot : { ...slot, reservedCount };
    };
    const stamped = (id: string) => {
      const row = written.get(id) ?? asRead.get(id);
      return row
        ? { createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) }
        : undefined;
    };
    return [
      await openBusinessLocation(
        read.record === null ? undefined : { record: read.record },
        options.integrationsKey,
        {
          dryRun: plan.dryRun,
          created: diff.create.map((s) => toSlot(s, stamped(s.id))),
          updated: diff.update.map(({ after }) => toSlot(withSeats(after), stamped(after.id))),
          deleted: diff.delete.map((s) => toSlot(withSeats(s), stamped(s.id))),
          skipped: skippedAnswer(plan.skipped),
        },
      ),
    ];
  }
  return undefined;
}
