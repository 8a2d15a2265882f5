import type { HttpDb } from "../../db/client";
import { rawBatch, rawQuery } from "../../db/raw-batch";
import type { BusinessLocation } from "../../schemas/business-location";
import type { SlotActionRequest, SlotActionsCommand } from "../../schemas/slot-actions";
import { openBusinessLocation, RECORD_SQL } from "../wineries/read-business-location";
import { slotStateObject, toSlot } from "./slot-rows";
import type { SlotState } from "./slot-set";

/**
 * The one-slot statements' answer, one row when the slot was written (`row` its written or
 * deleted row), none otherwise: the slot as SlotState with its stamps, and the business-location
 * record.
 */
const ANSWER = (row: string) => `${slotStateObject(row)} as slot,
  ${row}.created_at as "createdAt", ${row}.updated_at as "updatedAt",
  (${RECORD_SQL}$1) as record from ${row}`;

/** The request's values ($3, jsonb), each SQL null when absent or null (the planner's `??`). */
const PARAMETERS = `p as (
  select (j ->> 'experienceId')::uuid as experience_id,
    (j ->> 'newMaxParties')::int as new_max, (j ->> 'newMinParties')::int as new_min,
    array(select jsonb_array_elements_text(nullif(j -> 'newEnabledLanguages', 'null'::jsonb)))
      as languages, j ? 'newEnabledLanguages' and j -> 'newEnabledLanguages' <> 'null'::jsonb
      as set_languages,
    array(select jsonb_array_elements_text(nullif(j -> 'newDefaultLanguages', 'null'::jsonb)))
      as default_languages, j ? 'newDefaultLanguages' and j -> 'newDefaultLanguages' <> 'null'::jsonb
      as set_default_languages,
    (j ->> 'newActive')::boolean as active, (j ->> 'newOccupantsCount')::int as occupants,
    nullif(j -> 'extraData', 'null'::jsonb) as extra_data,
    coalesce((j ->> 'ignoreOccupiedSlot')::boolean, false) as ignore_occupied
  from (select $3::jsonb as j) a
)`;

/**
 * E9's UPDATE of one slot by itself as ONE statement: the row is changed only where the planner
 * would change it, the conditions read on the row as the UPDATE locks it (and read again on its
 * latest version when it waited for another writer): the slot is the winery's (and the named
 * experience's); the change changes something (a slot changed by hand already, given its own
 * values, is no change: the planner answers it updated with nothing); a new minimum not above the
 * capacity; the occupants within int4; and, unless ignoreOccupiedSlot, not left with more
 * occupants than its capacity by this change (a lower capacity or more external occupants).
 * Fields not sent keep the row's values, whatever another call wrote meanwhile.
 */
const UPDATE_SQL = `
with ${PARAMETERS},
u as (
  update slots s set
    max_parties = coalesce(p.new_max, s.max_parties),
    min_parties = coalesce(p.new_min, s.min_parties),
    enabled_languages = case when p.set_languages then p.languages else s.enabled_languages end,
    default_languages = case when p.set_default_languages then p.default_languages
      else s.default_languages end,
    active = coalesce(p.active, s.active),
    external_occupants = coalesce(p.occupants, s.external_occupants),
    extra_data = coalesce(p.extra_data, s.extra_data),
    manually_modified = true,
    updated_at = now()
  from p
  where s.winery_id = $1 and s.id = $2
    and (p.experience_id is null or s.experience_id = p.experience_id)
    and (not s.manually_modified
      or coalesce(p.new_max, s.max_parties) <> s.max_parties
      or coalesce(p.new_min, s.min_parties) <> s.min_parties
      or (p.set_languages and p.languages <> s.enabled_languages)
      or (p.set_default_languages and p.default_languages <> s.default_languages)
      or coalesce(p.active, s.active) <> s.active
      or coalesce(p.occupants, s.external_occupants) <> s.external_occupants
      or coalesce(p.extra_data, s.extra_data) is distinct from s.extra_data)
    and not ((p.new_min is not null or p.new_max is not null)
      and coalesce(p.new_min, s.min_parties) > coalesce(p.new_max, s.max_parties))
    and (p.occupants is null or s.reserved_count::bigint + p.occupants <= 2147483647)
    and (p.ignore_occupied
      or s.reserved_count + coalesce(p.occupants, s.external_occupants)
        <= coalesce(p.new_max, s.max_parties)
      or (coalesce(p.new_max, s.max_parties) >= s.max_parties
        and coalesce(p.occupants, s.external_occupants) <= s.external_occupants))
  returning s.*
)
select ${ANSWER("u")}`;

/**
 * E9's DELETE of one slot by itself as ONE statement: deleted only when it is the winery's (and
 * the named experience's) and, unless ignoreOccupiedSlot, holds no occupants (no seats reserved,
 * no external occupants), read on the row as the DELETE locks it. The statement before it in the
 * batch locks the slot's experience first (LOCK_OWNER_SQL), as every E9 path does: deleting the
 * slot also writes the reservations on it (their slot becomes null), which an import holds while
 * it waits for the slot, and that lock keeps imports of the experience out meanwhile.
 */
const LOCK_OWNER_SQL = `select e.id from experiences e
  where e.winery_id = $1
    and e.id = (select s.experience_id from slots s where s.winery_id = $1 and s.id = $2)
  for update`;

const DELETE_SQL = `
with ${PARAMETERS},
d as (
  delete from slots s using p
  where s.winery_id = $1 and s.id = $2
    and (p.experience_id is null or s.experience_id = p.experience_id)
    and (p.ignore_occupied or s.reserved_count + s.external_occupants = 0)
  returning s.*
)
select ${ANSWER("d")}`;

/**
 * The one request of a call that acts on one slot by itself, not a dry run: an UPDATE that does
 * not move it (no newDay, no newTime), or a DELETE. What actOnOneSlot does in one statement.
 */
export function oneSlotAction(command: SlotActionsCommand): SlotActionRequest | undefined {
  const [request, ...others] = command.requests;
  if (!request || others.length > 0 || !request.slotId || request.dryRun) return undefined;
  if ((request.effectPolicy ?? "SINGLE") !== "SINGLE") return undefined;
  if (request.action === "DELETE") return request;
  if (request.action === "UPDATE" && request.newDay == null && request.newTime == null)
    return request;
  return undefined;
}

/**
 * E9 for a call of one request on one slot by itself (oneSlotAction) as ONE statement (a DELETE
 * after its experience's lock, in the same HTTP request), as E11 takes seats: the slot's row is
 * changed (or deleted) by a conditional UPDATE (or DELETE) whose conditions are the planner's own
 * refusals, read on the row as it locks it, so no lock is held beyond that statement and nothing
 * read before it can be stale; the business-location record in the same statement. `undefined` when it changed nothing: the slot is not there, the call is
 * refused (400, 409), or it changes nothing; the caller then plans it (slotActionsInOneRequest),
 * whose answer says which, in the planner's words.
 */
export async function actOnOneSlot(
  db: HttpDb,
  wineryId: string,
  request: SlotActionRequest,
  options: { integrationsKey: string },
): Promise<BusinessLocation[] | undefined> {
  const parameters = [wineryId, request.slotId, JSON.stringify(request)];
  const [row] =
    request.action === "DELETE"
      ? ((
          await rawBatch(db, [
            [LOCK_OWNER_SQL, [wineryId, request.slotId]],
            [DELETE_SQL, parameters],
          ])
        )[1] ?? [])
      : await rawQuery(db, UPDATE_SQL, parameters);
  if (!row) return undefined;
  const answer = toSlot(row.slot as SlotState, {
    createdAt: new Date(row.createdAt as string),
    updatedAt: new Date(row.updatedAt as string),
  });
  return [
    await openBusinessLocation(
      row.record ? { record: row.record as never } : undefined,
      options.integrationsKey,
      {
        dryRun: false,
        created: [],
        updated: request.action === "UPDATE" ? [answer] : [],
        deleted: request.action === "DELETE" ? [answer] : [],
        skipped: [],
      },
    ),
  ];
}
