import { type SQL, sql } from "drizzle-orm";
import type { LANGUAGES } from "../../schemas/experience-parts";

/**
 * The reservation documents, built by Postgres as JSON in the statement that reads them (E11's
 * read-back, E16's batches, E14's refund): contacts, price items, payments and refunds come from
 * correlated subqueries on the reservation row `r` (and its experience `e`), never one query per
 * reservation. Every subquery filters by r.winery_id.
 */

const LOCAL_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS.MS'`;
const UTC_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
/** A local timestamp (no zone) as the interface's local date-time text. */
const local = (column: string) => sql.raw(`to_char(${column}, ${LOCAL_FORMAT})`);
/** A timestamptz as an ISO instant in UTC. */
const utc = (expr: string) => sql.raw(`to_char((${expr}) at time zone 'UTC', ${UTC_FORMAT})`);

const CONTACT_OBJECT =
  sql.raw(`jsonb_build_object('contactId', c.id, 'contactType', rc.contact_type,
  'countryIso', c.country_iso, 'email', c.email, 'firstName', c.first_name, 'lastName', c.last_name,
  'phoneNumber', c.phone_number, 'acceptedMarketing', c.accepted_marketing,
  'acceptedPrivacyTerms', c.accepted_privacy_terms, 'acceptedProfiling', c.accepted_profiling,
  'manualMarketing', c.manual_marketing, 'unsubscribed', c.unsubscribed, 'otherData', c.other_data)`);
const CONTACTS_FROM = sql.raw(`from reservation_contacts rc
  join contacts c on c.id = rc.contact_id and c.winery_id = rc.winery_id
  where rc.winery_id = r.winery_id and rc.reservation_id = r.id`);

const contacts = sql`coalesce((select jsonb_agg(${CONTACT_OBJECT} order by rc.position) ${CONTACTS_FROM}), '[]'::jsonb)`;
const masterContact = sql`(select ${CONTACT_OBJECT} ${CONTACTS_FROM} and rc.contact_type = 'MASTER' order by rc.position limit 1)`;
const masterContactId = sql.raw(
  `(select rc.contact_id from reservation_contacts rc where rc.winery_id = r.winery_id and rc.reservation_id = r.id and rc.contact_type = 'MASTER' order by rc.position limit 1)`,
);

function priceItems(kind: "EXTRA" | "LABEL"): SQL {
  const label =
    kind === "LABEL" ? sql.raw(`|| jsonb_build_object('islabel1', pi.islabel1)`) : sql``;
  return sql`coalesce((select jsonb_agg(jsonb_build_object(
      'created_at', ${local("pi.item_created_at")}, 'experience_id', pi.experience_id, 'id', pi.item_id,
      'position', pi.position, 'price_cents', pi.price_cents, 'price_currency', pi.price_currency,
      'quantity', pi.quantity, 'title_translations', pi.title_translations,
      'updated_at', ${local("pi.item_updated_at")}) ${label} order by pi.sort_order)
    from reservation_price_items pi
    where pi.winery_id = r.winery_id and pi.reservation_id = r.id and pi.kind = ${kind}), '[]'::jsonb)`;
}

const paidAt = sql`(select ${utc("min(p.captured_at)")} from reservation_payments p
  where p.winery_id = r.winery_id and p.reservation_id = r.id)`;
/**
 * The refunds' sum from the payments' counters (E14 moves a payment's `refunded_cents` in the
 * statement that writes its ledger row, so they always agree), and their last instant from the
 * (winery, reservation, created_at) index, one entry read backwards. Both were aggregates over the
 * reservation's ledger rows: after many refunds of one reservation (E14 a cent at a time on the
 * demo reservation, 3,500 rows) the planner expected thousands of ledger rows for every
 * reservation and scanned the whole ledger twice per document: E16's batch of 500 took 177 ms of
 * Postgres instead of 29 (a mixed soak under npm run dev; E16 8 s at p50 with 4,361 reservations).
 */
const refundedTotal =
  sql.raw(`(select coalesce(sum(p.refunded_cents), 0) from reservation_payments p
  where p.winery_id = r.winery_id and p.reservation_id = r.id)`);
const refundedAt = sql`(select ${utc("max(rf.created_at)")} from reservation_refunds rf
  where rf.winery_id = r.winery_id and rf.reservation_id = r.id)`;

/** The ISO 639-1 code of each LabelTranslations `language` value. */
export const LANGUAGE_ISO: Record<(typeof LANGUAGES)[number], string> = {
  SPANISH: "es",
  FRENCH: "fr",
  BULGARIAN: "bg",
  ARABIC: "ar",
  DANISH: "da",
  CHINESE: "zh",
  RUSSIAN: "ru",
  ENGLISH: "en",
  PORTUGUESE: "pt",
  ITALIAN: "it",
  GERMAN: "de",
  ROMANIAN: "ro",
  POLISH: "pl",
  CROATIAN: "hr",
};
/** A label's language (lower case): its languageISO, else the code of its `language` value. */
const LABEL_LANGUAGES = sql.raw(
  `lower(t->>'languageISO'), case t->>'language' ${Object.entries(LANGUAGE_ISO)
    .map(([name, iso]) => `when '${name}' then '${iso}'`)
    .join(" ")} end`,
);

/**
 * The title in language `lang` (lower case): the reservation's own label first (one whose
 * languageISO or whose `language` names it), then the experience's.
 */
function titleIn(lang: SQL): SQL {
  return sql`coalesce(
    (select t->>'label' from jsonb_array_elements(case when jsonb_typeof(r.experience_title_translations->'translations') = 'array'
        then r.experience_title_translations->'translations' else '[]'::jsonb end) t
      where ${lang} in (${LABEL_LANGUAGES}) limit 1),
    e.title_translations->>${lang})`;
}

/**
 * The experience title in the requested language, else its base language (`en-US` -> `en`), else
 * the reservation's language, else English, else any title the experience has.
 */
function experienceTitle(lang: string | null): SQL {
  const requested = sql`lower(${lang}::text)`;
  return sql`coalesce(${titleIn(requested)},
    ${titleIn(sql`split_part(replace(${requested}, '_', '-'), '-', 1)`)},
    ${titleIn(sql`lower(r.language_iso)`)},
    ${titleIn(sql`'en'`)},
    (select x.value from jsonb_each_text(e.title_translations) x order by x.key limit 1))`;
}

/**
 * E11/E16's reservation fields (without the nested `reservation`), as the JSON text of one object:
 * built as `json` (text as it goes, no binary jsonb to build, sort and print), its subqueries'
 * jsonb values printed into it.
 */
function reservationFields(lang: string | null): SQL {
  return sql`json_build_object(
      'id', r.id, 'wineryId', r.winery_id, 'experienceId', r.experience_id, 'slotId', r.slot_id,
      'giftId', r.gift_id, 'contactId', ${masterContactId},
      'createdAt', ${local("r.created_at")}, 'updatedAt', ${local("r.updated_at")},
      'date', r.date, 'time', r.time::text, 'state', r.state,
      'guestCount01', r.guest_count01, 'guestCountTotal', r.guest_count_total,
      'discountTotalCents', r.discount_total_cents, 'dueTotalCents', r.due_total_cents,
      'grossTotalCents', r.gross_total_cents, 'netTotalCents', r.net_total_cents,
      'manualDiscountTotalCents', r.manual_discount_total_cents, 'paidTotalCents', r.paid_total_cents,
      'paid', r.paid, 'languageIso', r.language_iso, 'message', r.message, 'origin', r.origin,
      'paymentCurrency', r.payment_currency, 'optionalData', r.optional_data, 'otherData', r.other_data,
      'refundedTotalCents', ${refundedTotal}, 'paidAt', ${paidAt}, 'refundedAt', ${refundedAt},
      'additionalQuestionAnswers', coalesce(r.additional_question_answers, '[]'::jsonb),
      'experiencePriceExtras', ${priceItems("EXTRA")},
      'experiencePriceLabels', ${priceItems("LABEL")},
      'experienceTitleTranslations', r.experience_title_translations,
      'experienceTitle', ${experienceTitle(lang)},
      'reservationContacts', ${contacts},
      'reservationMasterContact', ${masterContact})::text`;
}

/**
 * The document of every reservation row passing `where` (on `reservations r`, joined to its
 * experience `e`), as a derived table `b` of the keyset columns (date, time, id) and the fields
 * (`fields`, the JSON text of an object); `tail` orders and limits it. A derived table with a LIMIT or OFFSET is never
 * pulled up into the outer query, so the fields are built once per row even though the document
 * uses them twice (see RESERVATION_DOCUMENT).
 */
export function reservationRows(lang: string | null, where: SQL, tail: SQL): SQL {
  return sql`(select r.date, r.time, r.id, ${reservationFields(lang)} as fields
    from reservations r
    left join experiences e on e.winery_id = r.winery_id and e.id = r.experience_id
    where ${where}
    ${tail}) b`;
}

/**
 * The E11/E16 document (JSON text) of a row of reservationRows: the fields as `reservation`, then
 * them again as its own members, spliced as text (the object's text without its `{`), so the
 * fields are printed once. json_build_object always has a member, so that text is never `}`.
 */
export const RESERVATION_DOCUMENT = sql.raw(
  `('{"reservation" : ' || b.fields || ', ' || substr(b.fields, 2))`,
);

/** One statement answering `doc`, the JSON text of each reservation passing `where` (E11's read-back). */
export function reservationDocumentStatement(lang: string | null, where: SQL): SQL {
  return sql`select ${RESERVATION_DOCUMENT} as doc from ${reservationRows(lang, where, sql`offset 0`)}`;
}

export interface VwOverrides {
  /** The refund counter as the statement's own UPDATE left it (the snapshot predates it). */
  refundedTotalCents: SQL;
  refundedAt: SQL;
}

/**
 * The visit's end: its start plus the experience's duration, when that is an ISO 8601 duration of
 * days and time (PT1H30M, PT0.5S, PT1.5H, P1DT2H: what Java's Duration.parse reads, and a decimal
 * fraction on the last part, as ISO 8601 allows; each part a few digits, so the cast cannot fail)
 * and the end stays within the years a DateTime may hold; null otherwise. Postgres reads each of
 * these as the interval it means (PT1.5H is 01:30:00, P1D a calendar day: no time zone here).
 */
const endDateTime = sql.raw(`case when e.duration
    ~ '^P([0-9]{1,4}D)?(T([0-9]{1,4}([.][0-9]{1,9})?H)?([0-9]{1,4}([.][0-9]{1,9})?M)?([0-9]{1,5}([.][0-9]{1,9})?S)?)?$'
    -- A fraction only on the last part; no empty date (P) or time (PT, P1DT) part.
    and e.duration !~ '[.][0-9]+[HM][0-9]' and e.duration !~ 'T$' and e.duration <> 'P'
  -- A nested CASE: Postgres does not promise to test the pattern before an AND'ed cast.
  then case when r.date + r.time + e.duration::interval < '10000-01-01'::timestamp
    then to_char(r.date + r.time + e.duration::interval, ${UTC_FORMAT}) end end`);

/** The values of an experience's map column (price labels or extras), by key; [] for none. */
const mapValues = (column: string) =>
  sql.raw(`coalesce((select jsonb_agg(m.value order by m.key)
    from jsonb_each(case when jsonb_typeof(${column}) = 'object' then ${column} end) m), '[]'::jsonb)`);

/**
 * E14's VwReservation of `r` (with `e`), as one jsonb value. Its experience arrays come from the
 * experience: experiencePrices and experiencePricesExtras are the values of its
 * experiencePriceLabelsAttributes and experiencePriceExtrasAttributes (by key),
 * experienceTranslations one entry per language of its titleTranslations.
 */
export function vwReservation(overrides: VwOverrides): SQL {
  // The stored local date-times read as UTC: VwReservation's fields are instants.
  const at = (column: string) => sql.raw(`to_char(${column}, ${UTC_FORMAT})`);
  return sql`jsonb_build_object(
      'checkedIn', null, 'contactId', ${masterContactId},
      'createdAt', ${at("r.created_at")}, 'updatedAt', ${at("r.updated_at")},
      'date', r.date,
      'time', jsonb_build_object('hour', extract(hour from r.time)::int, 'minute', extract(minute from r.time)::int,
        'second', extract(second from r.time)::int, 'nano', 0),
      'startDateTime', ${at("r.date + r.time")},
      'endDateTime', ${endDateTime},
      'discountTotalCents', r.discount_total_cents, 'dueTotalCents', r.due_total_cents,
      'giftAmountCents', null, 'grossTotalCents', r.gross_total_cents,
      'manualDiscountTotalCents', r.manual_discount_total_cents, 'netTotalCents', r.net_total_cents,
      'refundedTotalCents', ${overrides.refundedTotalCents},
      'guestCount01', r.guest_count01, 'guestCountTotal', r.guest_count_total,
      'manualOriginId', null, 'manualPaymentMethodId', null)
    || jsonb_build_object(
      'employeeId', null, 'experienceId', r.experience_id, 'giftId', r.gift_id, 'id', r.id,
      'paymentId', null, 'roomId', null, 'wineryId', r.winery_id,
      'paidAt', ${paidAt}, 'refundedAt', ${overrides.refundedAt},
      'experience', case when e.id is null then '[]'::jsonb else jsonb_build_array(jsonb_build_object(
        'id', e.id, 'titleTranslations', e.title_translations, 'duration', e.duration)) end,
      'experiencePrices', ${mapValues("e.experience_price_labels_attributes")},
      'experiencePricesExtras', ${mapValues("e.experience_price_extras_attributes")},
      'experienceTranslations', coalesce((select jsonb_agg(jsonb_build_object(
          'experienceId', e.id, 'languageIsoCode', t.key, 'text', t.value #>> '{}') order by t.key)
        from jsonb_each(case when jsonb_typeof(e.title_translations) = 'object'
          then e.title_translations end) t), '[]'::jsonb),
      'reservationContacts', ${contacts},
      'reservationPriceExtras', ${priceItems("EXTRA")},
      'reservationPriceLabels', ${priceItems("LABEL")})
    || jsonb_build_object(
      'experienceTitleIt', ${titleIn(sql`'it'`)}, 'feedback', null, 'languageIso', r.language_iso,
      'masterContactName', (select c.first_name || ' ' || c.last_name ${CONTACTS_FROM} and rc.contact_type = 'MASTER' order by rc.position limit 1),
      'message', r.message, 'notes', null, 'origin', r.origin, 'paymentCurrency', r.payment_currency,
      'paymentMethod', (select 'IN_HOUSE' from reservation_payments p
        where p.winery_id = r.winery_id and p.reservation_id = r.id and p.in_house),
      'reservationOrigin', r.origin, 'reservationOriginIt', null, 'state', r.state, 'type', null,
      'visitReasonId', null, 'wineryChannelId', null, 'wineryChannelTypeId', null,
      'hasPaymentLink', null, 'invoiceData', null, 'isSales', null, 'isTourOperator', null,
      'notifyContact', null, 'paid', r.paid, 'optionalData', r.optional_data,
      'otherData', r.other_data, 'reservationMasterContact', ${masterContact})`;
}

/** The ledger's current sum and last instant, for a VwReservation outside a refund. */
export const ledgerTotals: VwOverrides = { refundedTotalCents: refundedTotal, refundedAt };
