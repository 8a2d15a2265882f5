import { and, eq, type SQL, sql } from "drizzle-orm";
import { NeonHttpDatabase } from "drizzle-orm/neon-http";
import { rowsOf, runAtomically } from "../../db/atomic";
import type { Database, HttpDb } from "../../db/client";
import { postgresError } from "../../db/errors";
import { columnList, rowJson } from "../../db/json-row";
import { rawBatch, renderedOnce } from "../../db/raw-batch";
import { orders } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import { DuplicateOrderError, NotFoundError } from "../../lib/errors";
import type { ExternalOrder, Order } from "../../schemas/orders";
import {
  type IdempotencyOptions,
  type IdempotentResult,
  runIdempotentlyInOneRequest,
  storedAnswerOnce,
  storedProblem,
} from "../idempotency/idempotency";
import {
  orderReceiptCtes,
  orderReceiptParams,
  RECEIPT_PARAMS,
} from "../receipts/issue-order-receipt";
import { orderDocumentWhere } from "./order-json";
import { itemValues, orderValues } from "./order-record";

export const ORDER_IMPORT_ROUTE = "POST /v4/order-import";

export interface ImportOrderInput {
  /** The sales channel of the key's winery that the order is imported on. */
  apiChannelKey: string;
  order: ExternalOrder;
}

/** The query of the sales channel named by apiChannelKey: no row when the winery has no such channel. */
function channelOf(wineryId: unknown, apiChannelKey: unknown): SQL {
  return sql`select id from sales_channels
    where winery_id = ${wineryId} and api_channel_key = ${apiChannelKey} and deleted_at is null`;
}

/** The sales channel named by apiChannelKey, as SQL: null when the winery has no such channel. */
const channelIdOf = (wineryId: unknown, apiChannelKey: unknown): SQL =>
  sql`(${channelOf(wineryId, apiChannelKey)})`;

/**
 * The columns an import writes from orderValues (all of its keys but channel_id, which the
 * statement resolves from apiChannelKey) and from itemValues (all of its keys; order_id is the
 * order's). test/unit/order-import-statements.test.ts holds them equal to those functions' keys.
 */
export const ORDER_JSON_COLUMNS = [
  "wineryId",
  "pluginTag",
  "externalId",
  "sourceExternalId",
  "sourceExternalType",
  "address",
  "addressName",
  "city",
  "countryIso",
  "province",
  "region",
  "zipcode",
  "amountCents",
  "amountDiscountCents",
  "amountExciseDutyCents",
  "amountVatCents",
  "amountShipmentCents",
  "amountVatPercentage",
  "buyerEmail",
  "buyerFirstname",
  "buyerLastname",
  "buyerPhone",
  "orderDate",
  "extraMetadata",
  "userMetadata",
  "marketingManual",
  "notes",
  "paymentMethod",
  "schemaVersion",
  "status",
  "quantity",
  "sourceSyncedAt",
  "totals",
] as const;
export const ITEM_JSON_COLUMNS = [
  "wineryId",
  "lineIndex",
  "amountCents",
  "amountDiscountCents",
  "attributesSnapshot",
  "commercialDiscounts",
  "discounts",
  "externalId",
  "extraMetadata",
  "name",
  "pricingBreakdown",
  "quantity",
  "sku",
  "type",
  "unitPriceCents",
  "vatPercentage",
] as const;

/** Every value the import's statements bind (see importTemplates): the receipt's and three more. */
const IMPORT_PARAMS = [...RECEIPT_PARAMS, "apiChannelKey", "order", "items"] as const;
type ImportParams = Record<(typeof IMPORT_PARAMS)[number], unknown>;

/**
 * The two statements of an import, of fixed text whatever the order (every value a parameter:
 * the order and its items as one jsonb parameter each, read by jsonb_populate_record(set)):
 * `write`, the order, its items and its receipt as one statement of data-modifying CTEs chained on
 * the order's RETURNING, and `answer`, its Order document (what E1 answers, as GET, E2 and E20 do;
 * a statement of its own, since a statement does not see what its CTEs write). Nothing is read
 * first: the order's INSERT joins the channel named by apiChannelKey, so an unknown channel
 * inserts no order, and then no items, no receipt and no answer (the 404).
 *
 * A second import of the external id: on a drizzle handle (the Idempotency-Key path's transaction,
 * whose operation runs under a savepoint; the seed) it fails the order's unique key. In an HTTP
 * batch (`inBatch`) it does not fail, so that DUPLICATE_ORDER costs no second request: the
 * order's INSERT does nothing on its key (after waiting for a concurrent import of it to end), so
 * nothing is written after it and no receipt number is taken; the answer is only for an order this
 * transaction inserted (its xmin is the transaction's id: an HTTP batch runs its statements in one
 * transaction without savepoints), null for any other, and `existing` is the order already
 * imported under the key (null when the channel is unknown).
 */
function importTemplates(p: ImportParams, inBatch: boolean) {
  const channelId = channelIdOf(p.wineryId, p.apiChannelKey);
  const key = sql`winery_id = ${p.wineryId} and channel_id = ${channelId} and external_id = ${p.externalId}`;
  // Written by this transaction (the order of a duplicate's batch is another's).
  const ours = inBatch ? sql.raw(" and o.xmin = pg_current_xact_id_if_assigned()::xid") : sql``;
  return {
    write: sql`with ord as (
        insert into orders (channel_id, ${sql.raw(columnList(ORDER_JSON_COLUMNS))})
        select ch.id, ${sql.raw(columnList(ORDER_JSON_COLUMNS, "r."))}
        from (${channelOf(p.wineryId, p.apiChannelKey)}) ch,
          jsonb_populate_record(null::orders, ${p.order}::jsonb) r
        ${inBatch ? sql`on conflict (winery_id, channel_id, external_id) do nothing` : sql``}
        returning id, uuid
      ),
      new_items as (
        insert into order_items (order_id, ${sql.raw(columnList(ITEM_JSON_COLUMNS))})
        select o.id, ${sql.raw(columnList(ITEM_JSON_COLUMNS, "r."))}
        from ord o, jsonb_populate_recordset(null::order_items, ${p.items}::jsonb) r
        returning id, line_index
      )${orderReceiptCtes(p, { order: "ord", items: "new_items", channelId })}
      select id from ord`,
    answer: orderDocumentWhere(
      sql`o.winery_id = ${p.wineryId} and o.channel_id = ${channelId} and o.external_id = ${p.externalId}${ours}`,
    ),
    existing: sql`(select id from orders where ${key})`,
  };
}

/**
 * DUPLICATE_ORDER's kept problem for the keyed batch, its orderId set in SQL to the order already
 * imported (importTemplates' `existing`): storedProblem's text of the TypeScript error, whose
 * other members do not depend on the order.
 */
const DUPLICATE_PROBLEM = storedProblem(new DuplicateOrderError(0)) ?? "";

/** The refusal of an import on a channel the winery does not have (404), as every path answers it. */
const unknownChannel = (apiChannelKey: string) => new NotFoundError("Sales channel", apiChannelKey);

/** The import's values, bound to importTemplates' parameters. */
function importParams(wineryId: string, apiChannelKey: string, input: ExternalOrder): ImportParams {
  const values = orderValues(input, { wineryId });
  const items = itemValues(input, wineryId);
  return {
    ...orderReceiptParams(values, items), // wineryId and externalId (the order's) among them
    apiChannelKey,
    order: JSON.stringify(rowJson(values, ORDER_JSON_COLUMNS)),
    items: JSON.stringify(items.map((item) => rowJson(item, ITEM_JSON_COLUMNS))),
  };
}

/** The HTTP path's statements, rendered once per isolate (renderedOnce). */
const renderedImport = {
  write: renderedOnce(IMPORT_PARAMS, (m) => importTemplates(m, true).write),
  /**
   * The Order document (`body`), or the id of the order already imported under the key; neither
   * when the channel is unknown.
   */
  answer: renderedOnce(IMPORT_PARAMS, (m) => {
    const t = importTemplates(m, true);
    return sql`with answer as materialized (select (${t.answer})::text as body)
      select body, case when body is null then ${t.existing} end as duplicate_of from answer`;
  }),
  /**
   * With an Idempotency-Key: the answer, or else DUPLICATE_ORDER with the existing order's id, or
   * the unknown channel's 404 (`unknownChannel`: its kept problem), stored as the key's result
   * (runIdempotentlyInOneRequest).
   */
  storedAnswer: storedAnswerOnce(
    [...IMPORT_PARAMS, "unknownChannel"],
    (m) => importTemplates(m, true).answer,
    (m) => {
      const existing = importTemplates(m, true).existing;
      return sql`select case when ${existing} is null then ${m.unknownChannel}::text
        else jsonb_set(${DUPLICATE_PROBLEM}::jsonb, '{options,extensions,orderId}',
          to_jsonb(${existing}))::text end`;
    },
  ),
};

/**
 * Writes the order, its items and its receipt atomically and answers the Order: on the Neon HTTP
 * driver one batch of fixed SQL text (one round trip, nothing rendered per call), on any other
 * handle (the Idempotency-Key path's transaction, the seed's node-postgres database) the same
 * statements one after the other inside a transaction.
 */
export async function writeOrder(
  db: AnyDb,
  wineryId: string,
  apiChannelKey: string,
  input: ExternalOrder,
): Promise<Order> {
  const p = importParams(wineryId, apiChannelKey, input);
  if (db instanceof NeonHttpDatabase) {
    const results = await rawBatch(db as HttpDb, [
      renderedImport.write(p),
      renderedImport.answer(p),
    ]);
    const answer = results.at(-1)?.[0];
    if (typeof answer?.body !== "string") {
      const duplicateOf = answer?.duplicate_of;
      throw duplicateOf === null || duplicateOf === undefined
        ? unknownChannel(apiChannelKey)
        : new DuplicateOrderError(Number(duplicateOf));
    }
    return JSON.parse(answer.body) as Order;
  }
  const t = importTemplates(p, false);
  const [, answer] = await runAtomically(db, (h) => [
    h.execute(t.write),
    h.execute(sql`select (${t.answer})::text as body`),
  ]);
  const body = rowsOf<{ body?: unknown }>(answer)[0]?.body;
  // No order written and none failed: the channel is unknown.
  if (typeof body !== "string") throw unknownChannel(apiChannelKey);
  return JSON.parse(body) as Order;
}

/** The order's key conflicts: say so in the interface's terms. */
async function explainWriteError(
  error: unknown,
  db: HttpDb,
  wineryId: string,
  input: ImportOrderInput,
): Promise<never> {
  const pg = postgresError(error);
  if (pg?.code === "23505" && pg.constraint === "orders_channel_external_id") {
    const [existing] = await db
      .select({ id: orders.id })
      .from(orders)
      .where(
        and(
          eq(orders.wineryId, wineryId),
          eq(orders.channelId, channelIdOf(wineryId, input.apiChannelKey)),
          eq(orders.externalId, input.order.id),
        ),
      );
    throw new DuplicateOrderError(existing?.id ?? 0);
  }
  throw error;
}

/**
 * E1. Without an Idempotency-Key: one HTTP round trip, an atomic batch that writes the order with
 * its items and issues the receipt; the external id alone guards against duplicates
 * (DUPLICATE_ORDER with the existing orderId, answered by the same batch, as is an unknown
 * channel's 404). With a key: at most one KV read (the replay cache) and one batch that also claims
 * the key and keeps the answer, or the refusal, with it (runIdempotentlyInOneRequest).
 */
export async function importOrder(
  db: Database,
  wineryId: string,
  input: ImportOrderInput,
  options: { idempotency?: IdempotencyOptions } = {},
): Promise<IdempotentResult<Order>> {
  const { apiChannelKey, order } = input;
  try {
    if (!options.idempotency) {
      return { value: await writeOrder(db.http, wineryId, apiChannelKey, order), replayed: false };
    }
    const scope = { wineryId, route: ORDER_IMPORT_ROUTE, key: options.idempotency.key };
    const p = importParams(wineryId, apiChannelKey, order);
    return await runIdempotentlyInOneRequest(
      db,
      scope,
      options.idempotency,
      {
        statements: [renderedImport.write(p)],
        // The order just written, found by its key, as GET, E2 and E20 answer it (the same bytes
        // as writeOrder's answer on the other paths).
        storedAnswer: (key) =>
          renderedImport.storedAnswer({
            ...p,
            unknownChannel: storedProblem(unknownChannel(apiChannelKey)),
            ...key,
          }),
      },
      // The transaction path (a key the batch could not claim, now free): its refusals in the
      // interface's terms inside the transaction, so that the key keeps them (DUPLICATE_ORDER and
      // an unknown channel are replayed like an answer).
      (tx) =>
        writeOrder(tx, wineryId, apiChannelKey, order).catch((error: unknown) =>
          explainWriteError(error, db.http, wineryId, input),
        ),
    );
  } catch (error) {
    return explainWriteError(error, db.http, wineryId, input);
  }
}
