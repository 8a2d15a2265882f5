import type { HttpDb } from "../../db/client";
import { postgresError } from "../../db/errors";
import { rawBatch, rawQuery, rawStatement } from "../../db/raw-batch";
import type { BusinessLocation } from "../../schemas/business-location";
import type { SlotActionsCommand } from "../../schemas/slot-actions";
import { openBusinessLocation, RECORD_SQL } from "../wineries/read-business-location";
import { type ExperienceDefaults, planSlotActions, skippedAnswer } from "./plan-slot-actions";
import { SLOT_STATE_OBJECT, slotDiffStatements, toSlot } from "./slot-rows";
import { noReads, type SlotReads, type SlotState, slotKey } from "./slot-set";

/**
 * The experiences an E9 call acts on, as a condition on `e` (experiences): named by a request, or
 * owning a slot or a series named by one. $2 is a jsonb holding `experienceIds`, `slotIds` (every
 * slotId and parentSlotId) and `parentIds`. The interactive path's own reading.
 */
const ACTED_ON = `e.winery_id = $1 and (
    e.id in (select jsonb_array_elements_text($2::jsonb -> 'experienceIds')::uuid)
    or e.id in (select s.experience_id from slots s where s.winery_id = $1 and (
      s.id in (select jsonb_array_elements_text($2::jsonb -> 'slotIds')::uuid)
      or s.parent_slot_id in (select jsonb_array_elements_text($2::jsonb -> 'parentIds')::uuid))))`;

/** What planSlotActions reads of experience `e` (ExperienceDefaults), as json. */
const EXPERIENCE_OBJECT = `json_build_object('id', e.id, 'maxParties', e.max_parties,
  'minPartiesToEnable', e.min_parties_to_enable, 'languagesIsoCode', e.languages_iso_code)`;

/**
 * ONE statement, one snapshot, nothing locked: the experiences acted on and all their slots as the
 * planner reads them (in date, time, id order, as the interactive path locks them), each with the
 * md5 of its json text (its version: what the batch checks), and the business-location record.
 */
const READ_SQL = `
with ex as materialized (
  select ${EXPERIENCE_OBJECT} as o from experiences e where ${ACTED_ON}
),
sl as materialized (
  select ${SLOT_STATE_OBJECT} as o, s.date, s.time, s.id, s.created_at, s.updated_at
  from slots s
  where s.winery_id = $1 and s.experience_id in (select e.id from experiences e where ${ACTED_ON})
)
select
  coalesce((select json_agg(json_build_object('state', o, 'version', md5(o::text))) from ex), '[]')
    as experiences,
  coalesce((select json_agg(json_build_object('state', o, 'version', md5(o::text),
      'createdAt', created_at, 'updatedAt', updated_at) order by date, time, id) from sl), '[]')
    as slots,
  (${RECORD_SQL}$1) as record`;

/** The batch's first statement: the experiences acted on, locked in id order, as E9 locks them. */
const LOCK_EXPERIENCES_SQL = `select e.id from experiences e where ${ACTED_ON} order by e.id for update`;

/** Then all their slots, locked in (date, time, id) order, as E9 and experience saves lock them. */
const LOCK_SLOTS_SQL = `select 1 from slots s
  where s.winery_id = $1 and s.experience_id in (select e.id from experiences e where ${ACTED_ON})
  order by s.date, s.time, s.id for update of s`;

/**
 * Then, a statement of its own and so a snapshot taken once everything is locked (every writer of
 * these slots locks their experience first: E9, saves, E11), the guard: the versions of what the
 * plan read ($2 `experiences` and `slots`: id and version) against those of the rows there now,
 * chosen as the plan chose them (`ids` looked up, series `roots` walked, `keys` looked at, or `all`
 * the slots), so a row changed, gone or come since the read fails the statement, and with it the
 * batch: nothing written. The failure is a cast of a text naming the row to int, per row of
 * `changed` at run time (a cast of a constant would be folded, and raise, when planned).
 */
const GUARD_SQL = `
with arg as (select $2::jsonb as j),
cur as (
  select s.id, md5((${SLOT_STATE_OBJECT})::text) as version from slots s, arg
  where s.winery_id = $1 and s.experience_id in (select e.id from experiences e where ${ACTED_ON})
    and ((arg.j ->> 'all')::boolean
      or s.id in (select jsonb_array_elements_text(arg.j -> 'ids')::uuid)
      or s.parent_slot_id in (select jsonb_array_elements_text(arg.j -> 'roots')::uuid)
      or (s.experience_id::text || '|' || s.date::text || '|' || s.time::text)
        in (select jsonb_array_elements_text(arg.j -> 'keys')))
),
want as (
  select w.id, w.version from arg, jsonb_to_recordset(arg.j -> 'slots') as w(id uuid, version text)
),
cur_e as (
  select e.id, md5((${EXPERIENCE_OBJECT})::text) as version from experiences e where ${ACTED_ON}
),
want_e as (
  select w.id, w.version
  from arg, jsonb_to_recordset(arg.j -> 'experiences') as w(id uuid, version text)
),
changed as (
  select coalesce(c.id, w.id) as id from cur c full join want w on w.id = c.id
  where c.version is distinct from w.version
  union all
  select coalesce(c.id, w.id) from cur_e c full join want_e w on w.id = c.id
  where c.version is distinct from w.version
)
select cast('${"E9 batch: changed since read: "}' || id as int) from changed`;

/** The guard's failure (GUARD_SQL). */
const CHANGED = /E9 batch: changed since read: /;

/** The written slots' stamps, the batch's last statement. */
const STAMPS_SQL = `select id, created_at as "createdAt", updated_at as "updatedAt" from slots
  where winery_id = $1 and id in (select jsonb_array_elements_text($2::jsonb)::uuid)`;

interface Versioned<T> {
  state: T;
  version: string;
}
interface ReadOutcome {
  experiences: Versioned<ExperienceDefaults>[];
  slots: (Versioned<SlotState> & { createdAt: string; updatedAt: string })[];
  record: NonNullable<Parameters<typeof openBusinessLocation>[0]>["record"] | null;
}

/** Reads, plans and writes are tried this many times before the call is left to the caller. */
export const ONE_REQUEST_ATTEMPTS = 2;

const unique = (values: (string | null | undefined)[]) => [
  ...new Set(values.filter((v): v is string => Boolean(v))),
];

/**
 * E9 in two HTTP requests and no interactive transaction, for any call: one statement reads the
 * experiences acted on and their slots (no lock), planSlotActions plans on them, recording what it
 * read (SlotReads), and then
 * - a refused call (404, 400, 409) or a dry run is answered from that reading, having locked and
 *   written nothing: what the call would have met at that instant;
 * - otherwise ONE batch (one transaction) locks the experiences and their slots as the interactive
 *   path does, checks that every row the plan read is as read (GUARD_SQL), writes the plan's diff
 *   (slotDiffStatements, the interactive path's own statements) and reads back the written slots'
 *   stamps. The locks are held for that one batch's statements inside Postgres, not for the
 *   interactive path's round trips through the Worker, which is what made calls on one busy
 *   experience queue for seconds.
 * A row changed between the read and the batch (another call was first) fails the guard, with
 * nothing written, and the call is read and planned again, up to ONE_REQUEST_ATTEMPTS times; then
 * the answer is `undefined` and the caller runs the interactive path, whose locks come first.
 * Changes to rows the plan did not read (another slot of the experience taking a reservation) do
 * not fail it: the plan does not depend on them, and the batch's locks keep them out while it
 * writes.
 */
export async function slotActionsInOneRequest(
  db: HttpDb,
  wineryId: string,
  command: SlotActionsCommand,
  options: { integrationsKey: string },
): Promise<BusinessLocation[] | undefined> {
  const { requests } = command;
  const targets = {
    experienceIds: unique(requests.map((r) => r.experienceId)),
    slotIds: unique(requests.flatMap((r) => [r.slotId, r.parentSlotId])),
    parentIds: unique(requests.map((r) => r.parentSlotId)),
  };
  const argument = JSON.stringify(targets);
  for (let attempt = 1; attempt <= ONE_REQUEST_ATTEMPTS; attempt++) {
    const [read] = (await rawQuery(db, READ_SQL, [wineryId, argument])) as unknown as [ReadOutcome];
    const reads = noReads();
    const plan = planSlotActions(
      requests,
      new Map(read.experiences.map(({ state }) => [state.id, state])),
      read.slots.map(({ state }) => state),
      undefined,
      reads,
    );
    const { diff } = plan;
    const asRead = new Map(read.slots.map((slot) => [slot.state.id, slot]));
    let written = new Map<string, { createdAt: string; updatedAt: string }>();
    if (!plan.dryRun) {
      const changed = [...diff.create, ...diff.update.map((u) => u.after)].map((s) => s.id);
      const guard = JSON.stringify({
        ...targets,
        ...readSet(reads),
        experiences: read.experiences.map(({ state, version }) => ({ id: state.id, version })),
        slots: read.slots
          .filter(({ state }) => wasRead(reads, state))
          .map(({ state, version }) => ({ id: state.id, version })),
      });
      let results: Record<string, unknown>[][];
      try {
        results = await rawBatch(db, [
          [LOCK_EXPERIENCES_SQL, [wineryId, argument]],
          [LOCK_SLOTS_SQL, [wineryId, argument]],
          [GUARD_SQL, [wineryId, guard]],
          ...slotDiffStatements(wineryId, diff).map(rawStatement),
          [STAMPS_SQL, [wineryId, JSON.stringify(changed)]],
        ]);
      } catch (error) {
        if (CHANGED.test(postgresError(error)?.message ?? "")) continue;
        throw error;
      }
      const stamps = (results.at(-1) ?? []) as {
        id: string;
        createdAt: string;
        updatedAt: string;
      }[];
      written = new Map(stamps.map((row) => [row.id, row]));
    }
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
          updated: diff.update.map(({ after }) => toSlot(after, stamped(after.id))),
          deleted: diff.delete.map((s) => toSlot(s, stamped(s.id))),
          skipped: skippedAnswer(plan.skipped),
        },
      ),
    ];
  }
  return undefined;
}

/** GUARD_SQL's choice of the slots to check, from what the plan read. */
const readSet = (reads: SlotReads) => ({
  all: reads.all,
  ids: [...new Set([...reads.ids, ...reads.roots])],
  roots: [...reads.roots],
  keys: [...reads.keys],
});

/** Whether the plan read `slot`: GUARD_SQL's choice, in the same terms. */
const wasRead = (reads: SlotReads, slot: SlotState) =>
  reads.all ||
  reads.ids.has(slot.id) ||
  reads.roots.has(slot.id) ||
  (slot.parentSlotId !== null && reads.roots.has(slot.parentSlotId)) ||
  reads.keys.has(slotKey(slot));
