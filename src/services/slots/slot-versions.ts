/**
 * Planning on an unlocked read, writing in one batch: the pieces E9 (slot-actions-in-one-request)
 * and the experience save with slotsRequests (save-after-reading) share. The call reads the slots
 * with a version each (VERSION_OBJECT), plans on them recording what it read (SlotReads), and its
 * batch locks the experiences and their slots as the interactive paths lock them, then checks
 * that every slot the plan read is still at its version (SLOT_GUARD_SQL) before it writes. The locks are held for one batch's statements inside Postgres instead of an
 * interactive transaction's round trips through the Worker.
 */
import { postgresError } from "../../db/errors";
import type { RawStatement } from "../../db/raw-batch";
import type { SlotActionRequest } from "../../schemas/slot-actions";
import { SLOT_STATE_OBJECT } from "./slot-rows";
import { type SlotDiff, type SlotReads, type SlotState, slotKey } from "./slot-set";

/**
 * The experiences a call acts on, as a condition on `e` (experiences): named, or owning a slot or a
 * series named. $2 is a jsonb holding `experienceIds`, `slotIds` (every slot id named, series roots
 * included) and `parentIds` (series roots).
 */
export interface Targets {
  experienceIds: string[];
  slotIds: string[];
  parentIds: string[];
}
const unique = (values: (string | null | undefined)[]) => [
  ...new Set(values.filter((v): v is string => Boolean(v))),
];

/** What an E9 call names: the experiences, slots and series it acts on. */
export function targetsOf(requests: readonly SlotActionRequest[]): Targets {
  return {
    experienceIds: unique(requests.map((r) => r.experienceId)),
    slotIds: unique(requests.flatMap((r) => [r.slotId, r.parentSlotId])),
    parentIds: unique(requests.map((r) => r.parentSlotId)),
  };
}

export const ACTED_ON = `e.winery_id = $1 and (
    e.id in (select jsonb_array_elements_text($2::jsonb -> 'experienceIds')::uuid)
    or e.id in (select s.experience_id from slots s where s.winery_id = $1 and (
      s.id in (select jsonb_array_elements_text($2::jsonb -> 'slotIds')::uuid)
      or s.parent_slot_id in (select jsonb_array_elements_text($2::jsonb -> 'parentIds')::uuid))))`;

/**
 * The most slots a read-then-batch call reads, or writes, over HTTP: a slot is about 500 bytes of
 * json, and Neon answers at most 10 MB to an HTTP query. A call on more is left to the interactive
 * path, whose WebSocket has no such limit.
 */
export const MAX_HTTP_SLOTS = 5000;

/**
 * What a slot `s`'s version is the md5 of: every column a plan writes or branches on, but its
 * reserved seats (and the reservations holding them), which imports change all the time and plans
 * never write: those the batch checks apart, only on the slots the plan changes, and only for
 * growth (`seats` in SLOT_GUARD_SQL), since fewer seats taken never makes a change conflict.
 */
const VERSION_OBJECT = `json_build_object('id', s.id, 'experienceId', s.experience_id,
  'date', s.date, 'time', s.time, 'maxParties', s.max_parties, 'minParties', s.min_parties,
  'enabledLanguages', s.enabled_languages, 'defaultLanguages', s.default_languages,
  'active', s.active, 'parentSlotId', s.parent_slot_id, 'manuallyModified', s.manually_modified,
  'externalOccupants', s.external_occupants, 'extraData', s.extra_data)`;

/**
 * The slots `where` picks (on `s`), each as `{ state, version, createdAt, updatedAt }`, in (date,
 * time, id) order: json; null when they are more than MAX_HTTP_SLOTS.
 */
export const versionedSlots = (where: string) => `case
  when (select count(*) from slots s where ${where}) <= ${MAX_HTTP_SLOTS}
  then coalesce((select json_agg(json_build_object(
      'state', x.o, 'version', x.v, 'createdAt', x.created_at,
      'updatedAt', x.updated_at) order by x.date, x.time, x.id)
    from (select ${SLOT_STATE_OBJECT} as o, md5((${VERSION_OBJECT})::text) as v, s.date, s.time,
        s.id, s.created_at, s.updated_at
      from slots s where ${where}) x), '[]') end`;

/** Whether a plan's diff is more than a batch should carry over HTTP (MAX_HTTP_SLOTS). */
export const tooManyToWrite = (diff: SlotDiff) =>
  diff.create.length + diff.update.length + diff.delete.length > MAX_HTTP_SLOTS;

export interface VersionedSlot {
  state: SlotState;
  version: string;
  createdAt: string;
  updatedAt: string;
}

/** The batch's first statement: the experiences acted on, locked in id order. */
export const LOCK_EXPERIENCES_SQL = `select e.id from experiences e where ${ACTED_ON}
  order by e.id for update`;

/**
 * Then all their slots, locked in (date, time, id) order, as E9 and experience saves lock them.
 * The statements after it take their snapshot once everything is locked (every writer of these
 * slots locks their experience first: E9, saves, E11), so they see the last committed rows.
 */
export const LOCK_SLOTS_SQL = `select 1 from slots s
  where s.winery_id = $1 and s.experience_id in (select e.id from experiences e where ${ACTED_ON})
  order by s.date, s.time, s.id for update of s`;

/** The text every guard's failure starts with. */
export const STALE = "stale plan: ";

/**
 * The guard: the versions of the slots the plan read ($2 `slots`: id and version) against those
 * of the slots there now, chosen as the plan chose them (`ids` looked up, series `roots` walked,
 * `keys` looked at, or `all`), and the seats reserved on the slots the plan changes or deletes
 * (`seats`: id and reserved seats as read) against theirs now, so a slot changed, gone or come
 * since the read, or one the plan changes holding more seats, fails the statement, and with it
 * the batch: nothing written. The failure is a cast of a text naming the slot to int,
 * per row of `changed` at run time (a cast of a constant would be folded, and raise, when planned).
 */
const SLOT_GUARD_SQL = `
with arg as (select $2::jsonb as j),
cur as (
  select s.id, md5((${VERSION_OBJECT})::text) as version from slots s, arg
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
changed as (
  select coalesce(c.id, w.id) as id from cur c full join want w on w.id = c.id
  where c.version is distinct from w.version
  union all
  select s.id from arg, jsonb_to_recordset(arg.j -> 'seats') as w(id uuid, reserved int)
  join slots s on s.winery_id = $1 and s.id = w.id
  where s.reserved_count > w.reserved
)
select cast('${STALE}slot ' || id as int) from changed`;

/** Whether a batch failed on a guard: something the plan read changed since (nothing written). */
export const isStalePlan = (error: unknown) =>
  (postgresError(error)?.message ?? "").includes(STALE);

/** SLOT_GUARD_SQL for a plan on `slots` (as read) that read `reads` of them and makes `diff`. */
export function slotGuard(
  wineryId: string,
  targets: Targets,
  reads: SlotReads,
  slots: readonly VersionedSlot[],
  diff: SlotDiff,
): RawStatement {
  const seats = [...diff.update.map(({ before }) => before), ...diff.delete].map((slot) => ({
    id: slot.id,
    reserved: slot.reservedCount,
  }));
  const ids = new Set([...reads.ids, ...reads.roots]);
  const read = ({ state }: VersionedSlot) =>
    reads.all ||
    ids.has(state.id) ||
    (state.parentSlotId !== null && reads.roots.has(state.parentSlotId)) ||
    reads.keys.has(slotKey(state));
  return [
    SLOT_GUARD_SQL,
    [
      wineryId,
      JSON.stringify({
        ...targets,
        all: reads.all,
        ids: [...ids],
        roots: [...reads.roots],
        keys: [...reads.keys],
        slots: slots.filter(read).map(({ state, version }) => ({ id: state.id, version })),
        seats,
      }),
    ],
  ];
}
