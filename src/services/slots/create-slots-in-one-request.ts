import type { HttpDb } from "../../db/client";
import { rawBatch } from "../../db/raw-batch";
import type { BusinessLocation } from "../../schemas/business-location";
import type { SlotActionRequest, SlotActionsCommand } from "../../schemas/slot-actions";
import { WEEK_DAYS } from "../../schemas/slots";
import { openBusinessLocation, RECORD_SQL } from "../wineries/read-business-location";
import { MAX_SLOTS_PER_CALL } from "./limits";
import { type ExperienceDefaults, planSlotActions, skippedAnswer } from "./plan-slot-actions";
import { toSlot } from "./slot-rows";
import { SLOT_FIELDS, type SlotField, type SlotState, sameValue } from "./slot-set";

/** Bit of each week day in a request's mask, as Postgres' `extract(dow ...)` numbers them. */
const DOW = new Map(WEEK_DAYS.map((day, i) => [day, (i + 1) % 7]));

/**
 * The call's CREATE requests, as planSlotActions reads them: the candidate dates (`day`, or every
 * date of start..end on the week days of the mask), each slot at (experience, date, time) already
 * there skipped, the first candidate of a key made and the later ones skipped, each new slot given
 * the request's values or the experience's defaults, the slots of a multi-date request a series
 * whose parent is its first new slot. `refused` when planSlotActions would refuse the call: an
 * experience the winery does not have, no maxParties, a new minimum above the capacity, more than MAX_SLOTS_PER_CALL new slots, a new
 * slot above its capacity without ignoreOccupiedSlot; or a dry run. Then nothing is inserted.
 * Rows come back as facts for the planner: the experiences, the slots at the candidates' keys and
 * the new slots in the order they were made; and the winery's business-location record (what the
 * answer reports the slots in: no table this statement writes, so reading it here, in the same
 * statement, answers what a statement of its own after this one would).
 */
const CREATE_SQL = `
with arg as (select $2::jsonb as j),
r as materialized (
  select r.* from arg, jsonb_to_recordset(arg.j -> 'requests') as r(
    i int, experience_id uuid, day date, start_from date, end_to date, week_days int,
    "time" time, new_max int, new_min int, languages jsonb, default_languages jsonb,
    active boolean, occupants int, extra_data jsonb, ignore_occupied boolean)
),
e as materialized (
  select id, max_parties, min_parties_to_enable, languages_iso_code from experiences
  where winery_id = $1 and id in (select experience_id from r)
),
c as materialized (
  select r.i, d.date, r.experience_id, r."time", count(*) over (partition by r.i) as n_dates
  from r cross join lateral (
    select r.day as date where r.day is not null
    union all
    select g::date from generate_series(r.start_from, r.end_to, interval '1 day') g
    where r.day is null
      and (r.week_days is null or (r.week_days >> extract(dow from g)::int) & 1 = 1)
  ) d
),
x as materialized (
  select c.*, s.id as existing_id,
    row_number() over (partition by c.experience_id, c.date, c."time" order by c.i) as key_rank
  from c left join slots s on s.winery_id = $1 and s.experience_id = c.experience_id
    and s.date = c.date and s.time = c."time"
),
planned as materialized (
  select x.i, x.date, x.experience_id, x."time", x.n_dates, gen_random_uuid() as id,
    row_number() over (order by x.i, x.date) as ordinal
  from x where x.existing_id is null and x.key_rank = 1
),
made as materialized (
  select p.id, p.ordinal, p.experience_id, p.date, p."time",
    case when p.n_dates > 1 and p.ordinal <> min(p.ordinal) over (partition by p.i)
      then first_value(p.id) over (partition by p.i order by p.ordinal) end as parent_slot_id,
    coalesce(r.new_max, e.max_parties) as max_parties,
    coalesce(r.new_min, e.min_parties_to_enable, 1) as min_parties,
    case when r.languages is not null
      then array(select t.v from jsonb_array_elements_text(r.languages)
        with ordinality as t(v, n) order by t.n)
      else array(select t.v #>> '{}' from jsonb_array_elements(
          case jsonb_typeof(e.languages_iso_code) when 'array' then e.languages_iso_code
          else '[]'::jsonb end) with ordinality as t(v, n)
        where jsonb_typeof(t.v) = 'string' order by t.n) end as enabled_languages,
    case when r.default_languages is not null
      then array(select t.v from jsonb_array_elements_text(r.default_languages)
        with ordinality as t(v, n) order by t.n)
      else '{}'::text[] end as default_languages,
    coalesce(r.active, true) as active,
    coalesce(r.occupants, 0) as external_occupants,
    r.extra_data,
    coalesce(r.ignore_occupied, false) as ignore_occupied
  from planned p join r on r.i = p.i left join e on e.id = p.experience_id
),
refusals as (
  select 1 from r left join e on e.id = r.experience_id
  where e.id is null or coalesce(r.new_max, e.max_parties) is null
    or ((r.new_min is not null or r.new_max is not null)
      and coalesce(r.new_min, e.min_parties_to_enable, 1) > coalesce(r.new_max, e.max_parties))
  union all
  select 1 from arg where (select count(*) from planned) > (j ->> 'maxSlots')::int
    or (j ->> 'dryRun')::boolean
  union all
  select 1 from made where external_occupants > max_parties and not ignore_occupied
),
inserted as (
  insert into slots (id, winery_id, experience_id, date, time, max_parties, min_parties,
    enabled_languages, default_languages, active, parent_slot_id, manually_modified,
    reserved_count, external_occupants, extra_data)
  select id, $1, experience_id, date, "time", max_parties, min_parties, enabled_languages,
    default_languages, active, parent_slot_id, false, 0, external_occupants, extra_data
  from made where not exists (select 1 from refusals)
  returning id, created_at, updated_at
)
select exists (select 1 from refusals) as refused,
  coalesce((select json_agg(json_build_object('id', e.id, 'maxParties', e.max_parties,
    'minPartiesToEnable', e.min_parties_to_enable, 'languagesIsoCode', e.languages_iso_code))
    from e), '[]') as experiences,
  coalesce((select json_agg(json_build_object('id', s.id, 'experienceId', s.experience_id,
    'date', s.date, 'time', s.time, 'maxParties', s.max_parties, 'minParties', s.min_parties,
    'enabledLanguages', s.enabled_languages, 'defaultLanguages', s.default_languages,
    'active', s.active, 'parentSlotId', s.parent_slot_id,
    'manuallyModified', s.manually_modified, 'reservedCount', s.reserved_count,
    'externalOccupants', s.external_occupants, 'extraData', s.extra_data))
    from slots s where s.id in (select existing_id from x)), '[]') as existing,
  coalesce((select json_agg(json_build_object('id', m.id, 'experienceId', m.experience_id,
    'date', m.date, 'time', m."time", 'maxParties', m.max_parties, 'minParties', m.min_parties,
    'enabledLanguages', m.enabled_languages, 'defaultLanguages', m.default_languages,
    'active', m.active, 'parentSlotId', m.parent_slot_id,
    'externalOccupants', m.external_occupants, 'extraData', m.extra_data,
    'createdAt', w.created_at, 'updatedAt', w.updated_at) order by m.ordinal)
    from made m left join inserted w on w.id = m.id
    where (select count(*) from planned) <= (select (j ->> 'maxSlots')::int from arg)), '[]')
    as made,
  (${RECORD_SQL}$1) as record`;

type Made = Omit<SlotState, "manuallyModified" | "reservedCount" | "reservationIds"> & {
  createdAt: string | null;
  updatedAt: string | null;
};

interface Outcome {
  refused: boolean;
  experiences: ExperienceDefaults[];
  existing: SlotState[];
  made: Made[];
  /** Null when the winery has no row (openBusinessLocation then fails loudly). */
  record: NonNullable<Parameters<typeof openBusinessLocation>[0]>["record"] | null;
}

/** What the interactive path needs and this one does not: anything but a well-formed CREATE. */
function isPlainCreate(r: SlotActionRequest): boolean {
  return (
    r.action === "CREATE" &&
    typeof r.experienceId === "string" &&
    Boolean(r.time) &&
    Boolean(r.day || (r.startFromValid && r.endToValid))
  );
}

export const onlyPlainCreates = (command: SlotActionsCommand) =>
  command.requests.every(isPlainCreate);

/**
 * The values a slot Postgres made must share with the slot planned: SLOT_FIELDS, the fields a plan
 * may change on a slot, less `manuallyModified` (a CREATE always writes false, and CREATE_SQL does
 * not return it), plus what a plan sets only when it creates a slot, so SLOT_FIELDS leaves out:
 * its experience and its series (`experienceId`, `parentSlotId`).
 */
const SLOT_VALUES: readonly (keyof Made & keyof SlotState)[] = [
  "experienceId",
  "parentSlotId",
  ...SLOT_FIELDS.filter(
    (field): field is Exclude<SlotField, "manuallyModified"> => field !== "manuallyModified",
  ),
];

/**
 * E9 for a call of CREATE requests only (onlyPlainCreates), as ONE Neon HTTP batch (one round
 * trip, one transaction) instead of an interactive session, whose WebSocket costs the Worker
 * several ms of CPU before its first query: lock the experiences named (FOR UPDATE, in id order,
 * as the interactive path does), then CREATE_SQL plans and inserts the slots in Postgres (dates
 * expanded by generate_series, existing slots found by a join, nothing read that the answer does
 * not need: no other slot of the experiences is read or locked, since making new rows changes
 * none) and reads the business-location record: two statements. The answer is still
 * planSlotActions' own, run on the facts the batch returns and naming the new slots by the ids
 * Postgres gave them: its errors (404, 400, 409) when it refuses the call, in which case the batch
 * inserted nothing, its created and skipped lists otherwise. Should Postgres have refused a call that the planner accepts, the
 * answer is `undefined` (nothing was written; the caller runs the interactive path). Should the
 * inserted slots differ from the plan, a bug, the request fails loudly.
 */
export async function createSlotsInOneRequest(
  db: HttpDb,
  wineryId: string,
  command: SlotActionsCommand,
  options: { integrationsKey: string },
): Promise<BusinessLocation[] | undefined> {
  const { requests } = command;
  const dryRun = requests.some((r) => r.dryRun === true);
  const experienceIds = [...new Set(requests.map((r) => r.experienceId))];
  const argument = JSON.stringify({
    dryRun,
    maxSlots: MAX_SLOTS_PER_CALL,
    experienceIds,
    requests: requests.map((r, i) => ({
      i,
      experience_id: r.experienceId,
      day: r.day ?? null,
      start_from: r.startFromValid ?? null,
      end_to: r.endToValid ?? null,
      week_days: r.weekDays
        ? [...r.weekDays].reduce((mask, day) => mask | (1 << (DOW.get(day as never) ?? 0)), 0)
        : null,
      time: r.time,
      new_max: r.newMaxParties ?? null,
      new_min: r.newMinParties ?? null,
      languages: r.newEnabledLanguages ?? null,
      default_languages: r.newDefaultLanguages ?? null,
      active: r.newActive ?? null,
      occupants: r.newOccupantsCount ?? null,
      extra_data: r.extraData ?? null,
      ignore_occupied: r.ignoreOccupiedSlot ?? null,
    })),
  });
  const [, [outcome]] = (await rawBatch(db, [
    [
      `select id from experiences where winery_id = $1 and id in
        (select jsonb_array_elements_text($2::jsonb -> 'experienceIds')::uuid)
       order by id for update`,
      [wineryId, argument],
    ],
    [CREATE_SQL, [wineryId, argument]],
  ])) as [unknown, [Outcome]];

  const made = outcome.made;
  const record = outcome.record === null ? undefined : { record: outcome.record };
  const written = !outcome.refused;
  let next = 0;
  let plan: ReturnType<typeof planSlotActions>;
  try {
    plan = planSlotActions(
      requests,
      new Map(outcome.experiences.map((e) => [e.id, e])),
      outcome.existing,
      () => made[next++]?.id ?? crypto.randomUUID(),
    );
  } catch (error) {
    if (written) throw new Error("E9: Postgres made slots the plan refuses", { cause: error });
    throw error;
  }
  const created = plan.diff.create;
  if (!written && !plan.dryRun) return undefined;
  if (
    created.length !== made.length ||
    created.some((slot, i) =>
      SLOT_VALUES.some((field) => !sameValue(slot[field], made[i]?.[field])),
    )
  )
    throw new Error("E9: the slots Postgres made are not the slots planned");
  return [
    await openBusinessLocation(record, options.integrationsKey, {
      dryRun: plan.dryRun,
      created: created.map((slot, i) => {
        const stamps = made[i];
        return toSlot(
          slot,
          written && stamps?.createdAt && stamps.updatedAt
            ? { createdAt: new Date(stamps.createdAt), updatedAt: new Date(stamps.updatedAt) }
            : undefined,
        );
      }),
      updated: [],
      deleted: [],
      skipped: skippedAnswer(plan.skipped),
    }),
  ];
}
