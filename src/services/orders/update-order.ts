import type { HttpDb } from "../../db/client";
import { type RawStatement, rawBatch } from "../../db/raw-batch";
import {
  type FieldError,
  NotFoundError,
  StaleUpdateError,
  ValidationError,
} from "../../lib/errors";
import {
  type Order,
  type SecondaryContact,
  SecondaryContactsSchema,
  type UpdateParam,
} from "../../schemas/orders";
import { ORDER_BY_ID_SQL } from "./order-json";

const SECONDARY_PATH = "userMetadata.secondaryContacts";

/**
 * The fields a change writes, keyed by their wire names, as UPDATE_SQL reads them from its jsonb
 * parameter: scalar fields absent keep the stored value, null clears it; metadata null keeps it too.
 * sourceSyncedAt travels as the instant JavaScript parses, at millisecond precision.
 */
function changes(param: UpdateParam): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  if (param.marketingManual !== undefined) set.marketingManual = param.marketingManual;
  if (param.notes !== undefined) set.notes = param.notes;
  if (param.paymentMethod !== undefined) set.paymentMethod = param.paymentMethod;
  if (param.sourceExternalId !== undefined) set.sourceExternalId = param.sourceExternalId;
  if (param.sourceExternalType !== undefined) set.sourceExternalType = param.sourceExternalType;
  if (param.status !== undefined) set.status = param.status;
  if (param.sourceSyncedAt !== undefined) {
    set.sourceSyncedAt =
      param.sourceSyncedAt === null ? null : new Date(param.sourceSyncedAt).toISOString();
  }
  if (param.extraMetadata != null) set.extraMetadata = param.extraMetadata;
  if (param.userMetadata != null) set.userMetadata = param.userMetadata;
  return set;
}

/** column = the change's value when $3 has the key, else the stored one. */
const changed = (column: string, key: string, value: string) =>
  `${column} = case when $3::jsonb ? '${key}' then ${value} else o.${column} end`;
const text = (column: string, key: string) => changed(column, key, `$3::jsonb ->> '${key}'`);

/**
 * The conditional UPDATE of order $1 of winery $2, the same text for every call: $3 the changes
 * (see changes()); every rule is a condition: $4 the expected updatedAt (null: no lock), $5 the
 * secondary contacts' sum (null: none sent) at most the order's amount, $6 their ids (null: none),
 * all of them the winery's contacts. updatedAt moves forward strictly, at millisecond precision,
 * so every change is visible to the lock.
 */
const UPDATE_SQL = `update orders o set
  ${changed("marketing_manual", "marketingManual", "($3::jsonb ->> 'marketingManual')::boolean")},
  ${text("notes", "notes")},
  ${text("payment_method", "paymentMethod")},
  ${text("source_external_id", "sourceExternalId")},
  ${text("source_external_type", "sourceExternalType")},
  ${text("status", "status")},
  ${changed("source_synced_at", "sourceSyncedAt", "($3::jsonb ->> 'sourceSyncedAt')::timestamptz")},
  ${changed("extra_metadata", "extraMetadata", "$3::jsonb -> 'extraMetadata'")},
  ${changed("user_metadata", "userMetadata", "$3::jsonb -> 'userMetadata'")},
  updated_at = greatest(now(), o.updated_at + interval '1 millisecond')
where o.id = $1 and o.winery_id = $2
  and ($4::timestamptz is null or o.updated_at = $4::timestamptz)
  and ($5::bigint is null or $5::bigint <= o.amount_cents)
  and ($6::bigint[] is null or (select count(*) from contacts c
    where c.winery_id = $2 and c.id = any($6::bigint[])) = cardinality($6::bigint[]))
returning o.id`;

/** Which of the ids $2 are contacts of the winery $1 (the error path's explanation). */
const KNOWN_CONTACTS_SQL =
  "select id from contacts where winery_id = $1 and id = any($2::bigint[])";

/**
 * E2. One round trip: an atomic batch of the conditional UPDATE and the read of the order (and,
 * with secondaryContacts, of which of them are the winery's contacts). Every rule is a condition of
 * the UPDATE itself, so concurrent callers with the same expectedUpdatedAt cannot both win; the
 * read after it tells a missing order, a lost lock and a broken rule apart without another trip.
 */
export async function updateOrder(
  db: HttpDb,
  wineryId: string,
  orderId: number,
  param: UpdateParam,
): Promise<Order> {
  const secondary: SecondaryContact[] | undefined =
    param.userMetadata?.secondaryContacts == null
      ? undefined
      : SecondaryContactsSchema.parse(param.userMetadata.secondaryContacts);
  const contactIds = secondary?.map((c) => c.contactId) ?? [];
  const secondarySum = secondary?.reduce((sum, c) => sum + c.amountCents, 0) ?? 0;
  // The parsed contacts (numeric ids) only feed the rules: userMetadata, a free-form object, is
  // stored exactly as sent, string ids and extra members included.

  const expectedUpdatedAt = param.expectedUpdatedAt
    ? new Date(param.expectedUpdatedAt).toISOString()
    : null;
  const ids = contactIds.length ? contactIds : null;
  const [updated, read, known = []] = await rawBatch(db, [
    [
      UPDATE_SQL,
      [
        orderId,
        wineryId,
        JSON.stringify(changes(param)),
        expectedUpdatedAt,
        secondary ? secondarySum : null,
        ids,
      ],
    ],
    [ORDER_BY_ID_SQL, [orderId, wineryId]],
    ...(ids ? [[KNOWN_CONTACTS_SQL, [wineryId, ids]] satisfies RawStatement] : []),
  ]);

  const current = read?.[0]?.order as Order | undefined;
  if (!current) throw new NotFoundError("Order", orderId);
  if (updated?.length === 1) return current;

  const currentUpdatedAt = current.updatedAt;
  if (
    param.expectedUpdatedAt &&
    Date.parse(current.updatedAt) !== Date.parse(param.expectedUpdatedAt)
  ) {
    throw new StaleUpdateError({ currentUpdatedAt });
  }
  const problems: FieldError[] = [];
  const knownIds = new Set(known.map((c) => Number(c.id)));
  secondary?.forEach((c, index) => {
    if (!knownIds.has(c.contactId)) {
      problems.push({
        path: `${SECONDARY_PATH}[${index}].contactId`,
        message: "is not a contact of this winery",
      });
    }
  });
  if (secondarySum > current.amountCents) {
    problems.push({
      path: SECONDARY_PATH,
      message: `the amounts sum to ${secondarySum}, more than the order's amountCents ${current.amountCents}`,
    });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  // The order changed between the UPDATE and the read (no lock requested): report it as stale.
  throw new StaleUpdateError({ currentUpdatedAt });
}
