import { type SQL, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { microsecondBound } from "../../lib/instant";
import { paidCentsOf } from "./paid";

export type ContactExportShape = "v2" | "v3";

export interface ContactExportQuery {
  wineryId: string;
  dateFrom: string;
  dateTo: string;
}

export const EXPORT_BATCH_SIZE = 1000;

/** The v2 document of one contact (`c`), built by Postgres as JSON. */
const V2_FIELDS = sql`
  'id', c.id,
  'wineryId', c.winery_id,
  'firstName', c.first_name,
  'lastName', c.last_name,
  'emails', json_build_array(json_build_object('email', c.email, 'master', true, 'type', 'PRIMARY'))::jsonb
    || coalesce((select jsonb_agg(jsonb_build_object('email', e.email, 'master', false, 'type', e.type) order by e.id)
                 from contact_emails e where e.contact_id = c.id), '[]'::jsonb),
  'phoneNumbers', (case when c.phone_number is null then '[]'::jsonb
                   else jsonb_build_array(jsonb_build_object('phone', c.phone_number, 'type', 'PRIMARY')) end)
    || coalesce((select jsonb_agg(jsonb_build_object('phone', p.phone, 'type', p.type) order by p.id)
                 from contact_phones p where p.contact_id = c.id), '[]'::jsonb),
  'addresses', coalesce((select jsonb_agg(jsonb_build_object('address', a.address, 'city', a.city,
                   'countryISO', a.country_iso, 'province', a.province, 'zipcode', a.zipcode) order by a.id)
                 from contact_addresses a where a.contact_id = c.id), '[]'::jsonb),
  'cap', c.zipcode,
  'city', c.city,
  'country', c.country,
  'countryISO', c.country_iso,
  'dateOfBirth', c.date_of_birth,
  'languageISO', c.language_iso,
  'province', c.province`;

/** v3 adds the privacy flags and the contact's value: what it has paid, in currency units. */
const V3_FIELDS = sql`${V2_FIELDS},
  'acceptedMarketing', c.accepted_marketing,
  'acceptedPrivacyTerms', c.accepted_privacy_terms,
  'acceptedProfiling', c.accepted_profiling,
  'manualMarketing', c.manual_marketing,
  'unsubscribed', c.unsubscribed,
  'contactValue', ${paidCentsOf(sql.raw("c"))}::float8 / 100`;

const FIELDS: Record<ContactExportShape, SQL> = { v2: V2_FIELDS, v3: V3_FIELDS };

/**
 * The size of one text Postgres sends for a part of a batch (bytes of JSON, plus the document that
 * crosses it). Large enough that a batch of 1,000 contacts is a few dozen rows, not 1,000; small
 * enough that no text reaches V8's large-object space (128 KiB), where each string is fresh memory:
 * one text per batch (~0.6 MB) cost the Worker more CPU to parse and encode than 1,000 rows.
 */
export const EXPORT_PART_BYTES = 32_768;

/**
 * One keyset batch: the winery's contacts after `afterId` in the range. Postgres builds the JSON
 * documents and joins them, in id order, into parts of about EXPORT_PART_BYTES: one row per part
 * (none when the batch is empty), in order, each with its contacts' count and last id. The Worker
 * then does no work per contact. The inner query walks the (winery_id, id) index, so its cost
 * does not grow with other wineries' contacts.
 */
export function exportBatchQuery(
  query: ContactExportQuery,
  shape: ContactExportShape,
  afterId: string,
  batchSize: number,
): SQL {
  // [from, to) over stored instants: both bounds up to the microsecond at or after them, as text
  // Postgres reads exactly (it would round a longer fraction to the nearest, either way).
  const from = microsecondBound(query.dateFrom, "up");
  const to = microsecondBound(query.dateTo, "up");
  return sql`
      select string_agg(p.doc, ',' order by p.id) as docs, count(*)::int as count,
             max(p.id)::text as last_id
      from (
        select b.id, b.doc,
               sum(octet_length(b.doc)) over (order by b.id rows unbounded preceding)
                 / ${EXPORT_PART_BYTES}::int as part
        from (
          select c.id, json_build_object(${FIELDS[shape]})::text as doc
          from contacts c
          where c.winery_id = ${query.wineryId}
            and c.id > ${afterId}::bigint
            and ((c.created_at >= ${from}::timestamptz and c.created_at < ${to}::timestamptz)
              or (c.updated_at >= ${from}::timestamptz and c.updated_at < ${to}::timestamptz))
          order by c.winery_id, c.id
          limit ${batchSize}
        ) b
      ) p
      group by p.part
      order by p.part`;
}

/** One part of a batch: its documents joined by commas, how many, and the last one's id. */
export type ExportPart = {
  docs: string;
  count: number;
  last_id: string;
};

/**
 * E17/E18: contacts created or updated in [dateFrom, dateTo), ordered by id, as JSON documents,
 * one keyset batch (one round trip) at a time. A batch comes back as a few texts of comma-joined
 * documents (exportBatchQuery) that are passed on without being parsed or split, so memory stays at
 * one batch whatever the size of the export.
 */
export async function* exportContacts(
  db: HttpDb,
  query: ContactExportQuery,
  shape: ContactExportShape,
  batchSize = EXPORT_BATCH_SIZE,
): AsyncGenerator<string[]> {
  let afterId = "0";
  for (;;) {
    const { rows } = await db.execute<ExportPart>(
      exportBatchQuery(query, shape, afterId, batchSize),
    );
    const last = rows.at(-1);
    if (!last) return;
    yield rows.map((part) => part.docs);
    if (rows.reduce((count, part) => count + part.count, 0) < batchSize) return;
    afterId = last.last_id;
  }
}
