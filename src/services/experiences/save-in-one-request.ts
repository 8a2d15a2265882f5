import { CasingCache } from "drizzle-orm/casing";
import type { HttpDb } from "../../db/client";
import { rawBatch } from "../../db/raw-batch";
import { experiences } from "../../db/schema";
import {
  EXPERIENCE_FIELD_NAMES,
  type Experience,
  type ExperienceField,
  type ExperienceInput,
  type ExperienceValues,
} from "../../schemas/experiences";
import { SlotConflictError } from "../slots/slot-conflict-error";
import { SLOT_STATE_OBJECT } from "../slots/slot-rows";
import type { SlotState } from "../slots/slot-set";
import { type ExperienceState, planExperience, validityWindow, valuesOf } from "./plan-experience";

/** What a client of the experience save can do about a conflict (its input has no override). */
export const SAVE_REMEDY =
  "Save values those slots can hold, move their reservations to other slots first (PUT /v2/reservations/import/{reservationID}), or change the slots themselves with POST /v2/availabilities/actions and ignoreOccupiedSlot.";

/** Each stored field with its column, as drizzle names it (snake_case). */
const casing = new CasingCache("snake_case");
export const FIELD_COLUMNS: [ExperienceField, string][] = EXPERIENCE_FIELD_NAMES.map((field) => [
  field,
  casing.getColumnCasing(experiences[field]),
]);
const quoted = FIELD_COLUMNS.map(([, column]) => `"${column}"`);

/**
 * The slots of experience $2 of winery $1 as the planner's SlotState (JSON, `[]` for none), in
 * (date, time) order, with the reservations on each (what a conflict names); dates and times as
 * Postgres' text, as drizzle reads them. `today` is an SQL expression of today's date as text:
 * then only the slots from today on not changed by hand, which is all that a plan of propagation
 * alone (no `slotsRequests`) looks at; null, every slot. Dates are compared as the planner
 * compares them: as text, byte by byte (collate "C").
 */
export const slotStatesJson = (today: string) => `coalesce((select json_agg(${SLOT_STATE_OBJECT}
      order by s.date, s.time)
    from slots s where s.winery_id = $1 and s.experience_id = $2
      and (${today} is null
        or (s.date::text >= ${today} collate "C" and not s.manually_modified))), '[]')`;

/** The planner's state from the experience row (row_to_json, null when absent) and its slots. */
export function experienceState(
  stored: Record<string, unknown> | null | undefined,
  slots: unknown,
): ExperienceState {
  return {
    values: stored
      ? (Object.fromEntries(
          FIELD_COLUMNS.map(([field, column]) => [field, stored[column] ?? null]),
        ) as ExperienceState["values"])
      : null,
    slots: (slots ?? []) as SlotState[],
  };
}

/**
 * The SET clause that replaces experience `x`'s values with those of the jsonb `values` (its keys
 * the columns: valuesParameter), jsonb_populate_record mapping the JSON onto the columns' types as
 * drizzle's parameters would, and moves its updatedAt forward. `from`: the relations `values` needs.
 */
const replaceValues = (values: string, from?: string) => `(${quoted.join(", ")}) = (
      select ${quoted.map((c) => `r.${c}`).join(", ")}
      from ${from ? `${from}, ` : ""}jsonb_populate_record(null::experiences, ${values}) r),
    updated_at = greatest(now(), x.updated_at + interval '1 millisecond')`;

/** An UPDATE of experience ($1, $2) to the values of $3 (replaceValues), answering the row as json. */
export const REPLACE_EXPERIENCE_SQL = `update experiences x set ${replaceValues("$3::jsonb")}
  where x.winery_id = $1 and x.id = $2 returning row_to_json(x) as experience`;

/** The input's values as replaceValues reads them: an object keyed by column. */
export const valuesByColumn = (values: ExperienceValues) =>
  Object.fromEntries(FIELD_COLUMNS.map(([field, column]) => [column, values[field]]));

/**
 * The save's last statement, the same text for every call (one jsonb parameter, $3): what
 * planExperience's `propagate` does, set-wise, then the experience row replaced.
 * - `e`: the stored values it compares the input with (the row is locked by the statement before);
 * - `f`: which of the propagating fields this save changes (a new null changes nothing), and
 *   whether it changes the validity window (flatTranslations.validityFrom/To, compared as given);
 * - `locked`: every slot of the experience, locked by date, time and id, as the interactive save
 *   locks them; `p`: those from today on not changed by hand, with their values after the save,
 *   `doomed` when a changed window leaves them out (dates compared as the text the planner compares);
 * - `conflicts`: an occupied slot deleted, or shrunk below its occupants. With one, nothing below
 *   writes (every write is conditioned on there being none) and the answer says so;
 * - the deletes, the updates of the slots whose values change, and the experience row, replaced by
 *   the input's values (jsonb_populate_record maps the JSON onto the columns' types, as drizzle's
 *   parameters would), its updatedAt moved forward.
 */
const SAVE_SQL = `
with arg as (select $3::jsonb as j),
e as (
  select max_parties, min_parties_to_enable, languages_iso_code, active,
    nullif(flat_translations -> 'validityFrom', 'null'::jsonb) as validity_from,
    nullif(flat_translations -> 'validityTo', 'null'::jsonb) as validity_to
  from experiences where winery_id = $1 and id = $2
),
v as (
  select (j ->> 'maxParties')::int as max_parties,
    (j ->> 'minPartiesToEnable')::int as min_parties,
    nullif(j -> 'languagesIsoCode', 'null'::jsonb) as languages,
    array(select t.v from jsonb_array_elements_text(
      case jsonb_typeof(j -> 'languagesIsoCode') when 'array' then j -> 'languagesIsoCode'
      else '[]'::jsonb end) with ordinality as t(v, n) order by t.n) as enabled_languages,
    (j ->> 'active')::boolean as active,
    nullif(j -> 'validityFrom', 'null'::jsonb) as validity_from,
    nullif(j -> 'validityTo', 'null'::jsonb) as validity_to,
    j ->> 'from' as window_from, j ->> 'to' as window_to, j ->> 'today' as today,
    j -> 'values' as "values"
  from arg
),
f as (
  select v.*,
    v.max_parties is not null and e.max_parties is distinct from v.max_parties as set_max,
    v.min_parties is not null and e.min_parties_to_enable is distinct from v.min_parties as set_min,
    v.languages is not null and e.languages_iso_code is distinct from v.languages as set_languages,
    v.active is not null and e.active is distinct from v.active as set_active,
    e.validity_from is distinct from v.validity_from
      or e.validity_to is distinct from v.validity_to as window_changed
  from e cross join v
),
locked as materialized (
  select id, date, max_parties, min_parties, enabled_languages, active, manually_modified,
    occupied_count
  from slots where winery_id = $1 and experience_id = $2
  order by date, time, id
  for update
),
p as materialized (
  select l.id, l.occupied_count, l.max_parties as max_before,
    f.window_changed and (coalesce(l.date::text < f.window_from, false)
      or coalesce(l.date::text > f.window_to, false)) as doomed,
    case when f.set_max then f.max_parties else l.max_parties end as max_parties,
    case when f.set_min then f.min_parties else l.min_parties end as min_parties,
    case when f.set_languages then f.enabled_languages else l.enabled_languages end
      as enabled_languages,
    case when f.set_active then f.active else l.active end as active,
    (f.set_max and l.max_parties is distinct from f.max_parties)
      or (f.set_min and l.min_parties is distinct from f.min_parties)
      or (f.set_languages and l.enabled_languages is distinct from f.enabled_languages)
      or (f.set_active and l.active is distinct from f.active) as changed
  from locked l cross join f
  where l.date::text >= f.today and not l.manually_modified
),
conflicts as (
  select 1 from p
  where (p.doomed and p.occupied_count > 0)
    or (not p.doomed and p.changed and p.occupied_count > p.max_parties
      and p.max_parties < p.max_before)
),
deleted as (
  delete from slots s using p
  where s.id = p.id and s.winery_id = $1 and p.doomed and not exists (select 1 from conflicts)
  returning s.id
),
updated as (
  update slots s set max_parties = p.max_parties, min_parties = p.min_parties,
    enabled_languages = p.enabled_languages, active = p.active, updated_at = now()
  from p
  where s.id = p.id and s.winery_id = $1 and not p.doomed and p.changed
    and not exists (select 1 from conflicts)
  returning s.id
),
saved as (
  update experiences x set ${replaceValues('f."values"', "f")}
  where x.winery_id = $1 and x.id = $2 and not exists (select 1 from conflicts)
  returning x.*
)
select (select count(*) from conflicts)::int as conflicts,
  (select count(*) from deleted)::int as deleted,
  (select count(*) from updated)::int as updated,
  (select row_to_json(saved) from saved) as experience,
  case when exists (select 1 from conflicts) then json_build_object(
    'experience', (select row_to_json(x) from experiences x where x.winery_id = $1 and x.id = $2),
    'slots', ${slotStatesJson("(select today from v)")}) end as state`;

type SavedRow = Record<string, unknown> & {
  id: string;
  winery_id: string;
  created_at: string;
  updated_at: string;
};

/**
 * PUT /experiences/{id} without `slotsRequests`, as ONE Neon HTTP batch (one transaction, one
 * round trip) instead of an interactive session: a WebSocket session costs the Worker several ms of
 * CPU before its first query (connection, start-up, BEGIN, COMMIT), more than everything else the
 * save does. Without slot requests the plan is only propagation (planExperience's `propagate`),
 * which Postgres applies set-wise on the rows locked as the interactive save locks them: the
 * experience row (inserted if absent, so that a new experience is locked like an existing one),
 * then its slots (SAVE_SQL). The lock is a statement of its own, so that the next one reads the
 * slots committed before it was granted.
 *
 * When the change would delete an occupied slot or shrink one below its occupants, the batch
 * writes nothing and answers the state it locked (`state`: the experience row and its slots from
 * today on, with their reservations, as E8 reads them), on which planExperience, the interactive
 * save's own planner, names the conflicts: 409 naming the slots and the reservations on them, as
 * the interactive save answers. Running that save instead took the same locks again to find the
 * same conflicts, a second turn in the line on the experience for every such 409. Should the
 * planner find none (it never should), the answer is `undefined` and the caller runs the
 * interactive save. E8's preview of the same input is planned by planExperience on the same
 * state; the tests hold the two to agree.
 */
export async function saveInOneRequest(
  db: HttpDb,
  wineryId: string,
  id: string,
  input: ExperienceInput,
  today: string,
): Promise<Experience | undefined> {
  const values = valuesOf(input);
  const window = validityWindow(values);
  const parameters = JSON.stringify({
    maxParties: values.maxParties,
    minPartiesToEnable: values.minPartiesToEnable,
    languagesIsoCode: values.languagesIsoCode,
    active: values.active,
    validityFrom: window.validityFrom,
    validityTo: window.validityTo,
    from: window.from,
    to: window.to,
    today,
    values: valuesByColumn(values),
  });
  const [, , rows] = await rawBatch(db, [
    [
      "insert into experiences (id, winery_id) values ($2, $1) on conflict do nothing",
      [wineryId, id],
    ],
    ["select 1 from experiences where winery_id = $1 and id = $2 for update", [wineryId, id]],
    [SAVE_SQL, [wineryId, id, parameters]],
  ]);
  const outcome = rows?.[0] as
    | {
        conflicts: number;
        experience: SavedRow | null;
        state: { experience: Record<string, unknown> | null; slots: unknown } | null;
      }
    | undefined;
  if (!outcome) return undefined;
  if (outcome.conflicts > 0) {
    const state = outcome.state && experienceState(outcome.state.experience, outcome.state.slots);
    const conflicts = state ? planExperience(id, state, input, today).conflicts : [];
    if (conflicts.length > 0) throw new SlotConflictError(conflicts, SAVE_REMEDY);
    return undefined;
  }
  return savedExperience(outcome.experience);
}

/** The answer of a save from the row it wrote (row_to_json). */
export function savedExperience(row: SavedRow | null | undefined): Experience {
  if (!row) throw new Error("experience upsert returned no row");
  return {
    ...(Object.fromEntries(
      FIELD_COLUMNS.map(([field, column]) => [field, row[column] ?? null]),
    ) as Omit<Experience, "id" | "wineryId" | "createdAt" | "updatedAt">),
    id: row.id,
    wineryId: row.winery_id,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
