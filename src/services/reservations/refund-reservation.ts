import { type SQL, sql } from "drizzle-orm";
import { NeonHttpDatabase } from "drizzle-orm/neon-http";
import type { Database, HttpDb } from "../../db/client";
import { rawQuery, renderedOnce } from "../../db/raw-batch";
import type { AnyDb } from "../../db/types";
import { AppError, NotFoundError } from "../../lib/errors";
import type { VwReservation } from "../../schemas/reservation-views";
import {
  type IdempotencyOptions,
  type IdempotentResult,
  runIdempotentlyInOneRequest,
  storedAnswerOnce,
  storedProblem,
} from "../idempotency/idempotency";
import { vwReservation } from "./reservation-json";

export const REFUND_ROUTE = "POST /v2/reservations/{reservationID}/refund";

export class NotRefundableError extends AppError {
  constructor(message: string) {
    super("NOT_REFUNDABLE", message);
  }
}

interface RefundOutcome {
  found: boolean;
  refunded: boolean;
  paid_cents: number | null;
  rest_cents: number | null;
  doc: string | null;
}

/**
 * What a refund that refunded nothing answers (writeRefund), by its reason; `rest` is the
 * in-house payment's refundable rest.
 */
function refusals(id: string, amountCents: number) {
  return {
    notFound: () => new NotFoundError("Reservation", id),
    noPayment: () => new NotRefundableError(`Reservation ${id} has no in-house payment to refund.`),
    fullyRefunded: () =>
      new NotRefundableError(
        `The in-house payment of reservation ${id} is already fully refunded.`,
      ),
    overRest: (rest: number | string) =>
      new NotRefundableError(
        `${amountCents} cents is over the refundable rest of ${rest} cents of reservation ${id}.`,
      ),
  };
}

/** The transaction-local setting in which the keyed batch's refund leaves its outcome (keptRefusal). */
const OUTCOME_SETTING = "winery.refund_outcome";
/** Where the refundable rest goes in overRest's kept text (keptRefusal). */
const REST_MARK = "{rest}";

/**
 * writeRefund's statement (see there). With `keep`, it also leaves its outcome (found, refunded,
 * paid, rest) in a transaction-local setting, for the keyed batch's later statement that keeps a
 * refusal with the key (keptRefusal): statements of one batch share no results otherwise, and a
 * later statement reading the tables again could see another refund that committed meanwhile.
 */
function refundStatement(wineryId: unknown, id: unknown, amountCents: unknown, keep = false): SQL {
  const kept = keep
    ? sql`, set_config(${OUTCOME_SETTING}, json_build_object('found', found, 'refunded', refunded,
        'paid', paid_cents, 'rest', rest_cents)::text, true) as kept`
    : sql``;
  return sql`
    with held as materialized (
      select p.id, p.amount_cents, p.refunded_cents from reservation_payments p
      where p.winery_id = ${wineryId} and p.reservation_id = ${id} and p.in_house
      for no key update
    ),
    pay as (
      update reservation_payments p set refunded_cents = p.refunded_cents + ${amountCents}::bigint
      from held h
      where p.id = h.id and h.refunded_cents + ${amountCents}::bigint <= h.amount_cents
      returning p.id, p.refunded_cents
    ),
    ledger as (
      insert into reservation_refunds (winery_id, reservation_id, payment_id, amount_cents)
      select ${wineryId}, ${id}, pay.id, ${amountCents}::bigint from pay
      returning created_at
    ),
    outcome as (
    select exists (select 1 from pay) as refunded,
      r.id is not null as found,
      (select amount_cents from held) as paid_cents,
      (select amount_cents - refunded_cents from held) as rest_cents,
      case when r.id is null then null else (${vwReservation({
        refundedTotalCents: sql`(select refunded_cents from pay)`,
        refundedAt: sql`(select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') from ledger)`,
      })})::text end as doc
    from (select 1) one
    left join reservations r on r.winery_id = ${wineryId} and r.id = ${id}
    left join experiences e on e.winery_id = r.winery_id and e.id = r.experience_id
    )
    select found, refunded, paid_cents, rest_cents, doc ${kept} from outcome`;
}

/**
 * The answer of a refund this transaction made, read after refundStatement within the same
 * transaction: the view with refundedTotalCents from the payment and refundedAt from the ledger
 * row this transaction inserted (xmin is its id); no row of this transaction (nothing refunded)
 * is a null answer.
 */
function refundAnswer(wineryId: unknown, id: unknown): SQL {
  const ours = sql`from reservation_refunds f
    where f.winery_id = ${wineryId} and f.reservation_id = ${id} and f.xmin = pg_current_xact_id()::xid`;
  return sql`select case when exists (select 1 ${ours}) then (${vwReservation({
    refundedTotalCents: sql`(select p.refunded_cents from reservation_payments p
      where p.winery_id = r.winery_id and p.reservation_id = r.id and p.in_house)`,
    refundedAt: sql`(select to_char(f.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') ${ours}
      order by f.id desc limit 1)`,
  })}) end
    from reservations r
    left join experiences e on e.winery_id = r.winery_id and e.id = r.experience_id
    where r.winery_id = ${wineryId} and r.id = ${id}`;
}

/**
 * The kept problem of a refund that refunded nothing, chosen as writeRefund chooses its error, from
 * the outcome refundStatement left (`keep`): the texts are storedProblem's of refusals' errors,
 * passed in as parameters (overRest's with REST_MARK where the rest goes). Null when it refunded,
 * or when no outcome was left (the batch then fails, and the transaction path answers).
 */
function keptRefusal(m: Record<(typeof REFUSAL_PARAMS)[number], string>): SQL {
  return sql`select case
      when o is null or (o->>'refunded')::boolean then null
      when not (o->>'found')::boolean then ${m.notFound}::text
      when o->>'paid' is null then ${m.noPayment}::text
      when coalesce((o->>'rest')::bigint, 0) <= 0 then ${m.fullyRefunded}::text
      else replace(${m.overRest}::text, ${REST_MARK}, o->>'rest') end
    from (select nullif(current_setting(${OUTCOME_SETTING}, true), '')::jsonb as o) outcome`;
}

const REFUND_PARAMS = ["wineryId", "id", "amountCents"] as const;
const REFUSAL_PARAMS = ["notFound", "noPayment", "fullyRefunded", "overRest"] as const;

/** The HTTP path's statements, rendered once per isolate (renderedOnce). */
const renderedRefund = {
  refund: renderedOnce(REFUND_PARAMS, (m) => refundStatement(m.wineryId, m.id, m.amountCents)),
  /** With an Idempotency-Key: the same, leaving its outcome for storedAnswer. */
  keyedRefund: renderedOnce(REFUND_PARAMS, (m) =>
    refundStatement(m.wineryId, m.id, m.amountCents, true),
  ),
  /** With an Idempotency-Key: refundAnswer, or else the refusal, stored as the key's result. */
  storedAnswer: storedAnswerOnce(
    [...REFUND_PARAMS, ...REFUSAL_PARAMS],
    (m) => refundAnswer(m.wineryId, m.id),
    keptRefusal,
  ),
};

/** The kept problems of refusals' errors, as keptRefusal's parameters. */
function refusalTexts(
  id: string,
  amountCents: number,
): Record<(typeof REFUSAL_PARAMS)[number], string> {
  const refused = refusals(id, amountCents);
  const text = (error: AppError) => storedProblem(error) ?? "";
  return {
    notFound: text(refused.notFound()),
    noPayment: text(refused.noPayment()),
    fullyRefunded: text(refused.fullyRefunded()),
    overRest: text(refused.overRest(REST_MARK)),
  };
}

/**
 * The check and the write are one statement: the in-house payment's row is locked first (a
 * concurrent refund waits, then reads the value committed before it), its refunded_cents moves
 * only while refunded_cents + amount <= amount_cents on that locked value, and the ledger row is
 * inserted from that UPDATE's result. So refunds can never exceed what was paid, the counter
 * always equals the ledger's sum, and a refusal names the rest as it was when refused (the
 * statement's snapshot, taken before it waited, may hold an older one). The same statement reads the answer: the view's refundedTotalCents and
 * refundedAt come from this statement's own writes, which its snapshot does not yet show.
 */
export async function writeRefund(
  db: AnyDb,
  wineryId: string,
  id: string,
  amountCents: number,
): Promise<VwReservation> {
  // On the HTTP handle fixed text (rendered once per isolate); on another (the Idempotency-Key
  // path's transaction) the same statement built by drizzle.
  const rows =
    db instanceof NeonHttpDatabase
      ? await rawQuery(db as HttpDb, ...renderedRefund.refund({ wineryId, id, amountCents }))
      : (
          (await db.execute(refundStatement(wineryId, id, amountCents))) as unknown as {
            rows: unknown[];
          }
        ).rows;
  const row = rows[0] as RefundOutcome | undefined;
  const refused = refusals(id, amountCents);
  if (!row?.found) throw refused.notFound();
  if (!row.refunded || row.doc === null) {
    if (row.paid_cents === null) throw refused.noPayment();
    const rest = Number(row.rest_cents ?? 0);
    throw rest <= 0 ? refused.fullyRefunded() : refused.overRest(rest);
  }
  return JSON.parse(row.doc) as VwReservation;
}

/**
 * E14: refunds `amountCents` of the reservation's in-house payment; its state never changes.
 * Without an Idempotency-Key one statement (one round trip); with one, the shared idempotency
 * rules (replay, 409 in flight, 422 on another payload) at one KV read plus one batch that also
 * claims the key and keeps the answer, or the refusal (404, NOT_REFUNDABLE), with it
 * (runIdempotentlyInOneRequest; its transaction path answers what the batch cannot: the key's own
 * conflicts).
 */
export async function refundReservation(
  db: Database,
  wineryId: string,
  reservationId: string,
  amountCents: number,
  options: { idempotency?: IdempotencyOptions } = {},
): Promise<IdempotentResult<VwReservation>> {
  if (!options.idempotency) {
    return {
      value: await writeRefund(db.http, wineryId, reservationId, amountCents),
      replayed: false,
    };
  }
  const scope = { wineryId, route: REFUND_ROUTE, key: options.idempotency.key };
  const p = { wineryId, id: reservationId, amountCents };
  return runIdempotentlyInOneRequest(
    db,
    scope,
    options.idempotency,
    {
      statements: [renderedRefund.keyedRefund(p)],
      // When nothing was refunded (no such reservation, or not refundable), the refusal's problem.
      storedAnswer: (key) =>
        renderedRefund.storedAnswer({
          ...p,
          ...refusalTexts(reservationId, amountCents),
          ...key,
        }),
    },
    (tx) => writeRefund(tx, wineryId, reservationId, amountCents),
  );
}
