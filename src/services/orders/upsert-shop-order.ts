import { sql } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import { NeonHttpDatabase } from "drizzle-orm/neon-http";
import { rowsOf, runAtomically } from "../../db/atomic";
import type { Database, HttpDb } from "../../db/client";
import { columnList, rowJson } from "../../db/json-row";
import { rawBatch, renderedOnce } from "../../db/raw-batch";
import type { AnyDb } from "../../db/types";
import type { ExternalOrder } from "../../schemas/orders";
import {
  type IdempotencyOptions,
  type IdempotentResult,
  runIdempotentlyInOneRequest,
  storedAnswerOnce,
} from "../idempotency/idempotency";
import { ITEM_JSON_COLUMNS, ORDER_JSON_COLUMNS } from "./import-order";
import { itemValues, orderValues } from "./order-record";

/** The upsert key and the owner of the order: a re-post never changes them. */
const KEY_COLUMNS = new Set(["wineryId", "pluginTag", "externalId"]);
/**
 * Columns the back office owns (E2 edits them; no storefront sends them): a document that leaves
 * them out keeps the stored value instead of clearing it.
 */
const BACK_OFFICE_COLUMNS = new Set(["userMetadata", "marketingManual"]);

/** What a re-post sets: every column it writes but the key, the back office's kept when absent. */
const UPDATE_SET = ORDER_JSON_COLUMNS.filter((c) => !KEY_COLUMNS.has(c))
  .map((c) => {
    const column = toSnakeCase(c);
    return BACK_OFFICE_COLUMNS.has(c)
      ? `${column} = coalesce(excluded.${column}, orders.${column})`
      : `${column} = excluded.${column}`;
  })
  .join(", ");

export interface ShopOrderOwner {
  wineryId: string;
  /** The storefront plugin (E19 `tagName`). */
  tagName: string;
}

const UPSERT_PARAMS = ["wineryId", "tagName", "externalId", "order", "items"] as const;
type UpsertParams = Record<(typeof UPSERT_PARAMS)[number], unknown>;

/**
 * The three statements of an upsert, of fixed text whatever the order (the order and its items as
 * one jsonb parameter each, read by jsonb_populate_record(set), with E1's column lists): the order
 * upserted on its plugin key (channel_id stays null: the orders_source check accepts a plugin
 * tag), its old items removed, its new ones inserted. The items find their order through a
 * subquery on the upsert key, so nothing has to be read first.
 */
function upsertTemplates(p: UpsertParams) {
  const orderId = sql`(select id from orders
    where winery_id = ${p.wineryId} and plugin_tag = ${p.tagName} and external_id = ${p.externalId})`;
  return {
    upsert: sql`insert into orders (${sql.raw(columnList(ORDER_JSON_COLUMNS))})
      select ${sql.raw(columnList(ORDER_JSON_COLUMNS, "r."))}
      from jsonb_populate_record(null::orders, ${p.order}::jsonb) r
      on conflict (winery_id, plugin_tag, external_id) do update set ${sql.raw(UPDATE_SET)},
        -- Strictly increasing at millisecond precision, like E2, so an E2 lock sees every re-post.
        updated_at = greatest(now(), orders.updated_at + interval '1 millisecond')
      returning id`,
    removeItems: sql`delete from order_items
      where winery_id = ${p.wineryId} and order_id = ${orderId}`,
    insertItems: sql`insert into order_items (order_id, ${sql.raw(columnList(ITEM_JSON_COLUMNS))})
      select ${orderId}, ${sql.raw(columnList(ITEM_JSON_COLUMNS, "r."))}
      from jsonb_populate_recordset(null::order_items, ${p.items}::jsonb) r`,
  };
}

function upsertParams(owner: ShopOrderOwner, input: ExternalOrder): UpsertParams {
  const values = orderValues(input, { wineryId: owner.wineryId, pluginTag: owner.tagName });
  return {
    wineryId: owner.wineryId,
    tagName: owner.tagName,
    externalId: input.id,
    order: JSON.stringify(rowJson(values, ORDER_JSON_COLUMNS)),
    items: JSON.stringify(
      itemValues(input, owner.wineryId).map((item) => rowJson(item, ITEM_JSON_COLUMNS)),
    ),
  };
}

/** The HTTP path's statements, rendered once per isolate (renderedOnce). */
const renderedUpsert = {
  upsert: renderedOnce(UPSERT_PARAMS, (m) => upsertTemplates(m).upsert),
  removeItems: renderedOnce(UPSERT_PARAMS, (m) => upsertTemplates(m).removeItems),
  insertItems: renderedOnce(UPSERT_PARAMS, (m) => upsertTemplates(m).insertItems),
  /**
   * With an Idempotency-Key: the upserted order's id as a JSON string (the answer writeShopOrder's
   * caller makes), stored as the key's result (runIdempotentlyInOneRequest).
   */
  storedAnswer: storedAnswerOnce(
    UPSERT_PARAMS,
    (m) => sql`select to_json(id::text) from orders
      where winery_id = ${m.wineryId} and plugin_tag = ${m.tagName} and external_id = ${m.externalId}`,
  ),
};

/** upsertTemplates on a drizzle handle, in the order they run. */
function upsertStatementList<D extends AnyDb>(db: D, p: UpsertParams) {
  const t = upsertTemplates(p);
  return [db.execute(t.upsert), db.execute(t.removeItems), db.execute(t.insertItems)] as const;
}

/**
 * Upserts the order atomically: on the Neon HTTP driver one batch of fixed SQL text (one round
 * trip, one transaction, nothing rendered per call), or the same statements inside the caller's
 * transaction (the Idempotency-Key path). Concurrent re-posts converge on one row: under READ
 * COMMITTED ON CONFLICT DO UPDATE waits for, then locks the order row until its transaction ends,
 * so the delete-and-insert of items runs one request at a time.
 */
export async function writeShopOrder(db: AnyDb, owner: ShopOrderOwner, input: ExternalOrder) {
  const p = upsertParams(owner, input);
  let id: unknown;
  if (db instanceof NeonHttpDatabase) {
    const [upserted] = await rawBatch(db as HttpDb, [
      renderedUpsert.upsert(p),
      renderedUpsert.removeItems(p),
      renderedUpsert.insertItems(p),
    ]);
    id = upserted?.[0]?.id;
  } else {
    const [upserted] = await runAtomically(db, (h) => upsertStatementList(h, p));
    id = rowsOf<{ id?: unknown }>(upserted)[0]?.id;
  }
  if (id === undefined || id === null) throw new Error("shop order upsert returned no row");
  return Number(id);
}

export const SHOP_ORDER_ROUTE = "POST /v2/shopplugin/orders";

export interface ShopOrderInput {
  /** The storefront plugin (E19 `tagName`). */
  tagName: string;
  order: ExternalOrder;
}

/**
 * E19: the order's id, as a string. Without an Idempotency-Key, one atomic batch; with one, the
 * shared idempotency rules (replay, 409 in flight, 422 on another document) at one KV read plus
 * one batch that also claims the key (runIdempotentlyInOneRequest; its transaction path answers
 * whatever the batch refuses).
 */
export async function receiveShopOrder(
  db: Database,
  wineryId: string,
  input: ShopOrderInput,
  options: { idempotency?: IdempotencyOptions } = {},
): Promise<IdempotentResult<string>> {
  const owner = { wineryId, tagName: input.tagName };
  if (!options.idempotency) {
    return { value: String(await writeShopOrder(db.http, owner, input.order)), replayed: false };
  }
  const scope = { wineryId, route: SHOP_ORDER_ROUTE, key: options.idempotency.key };
  const p = upsertParams(owner, input.order);
  return runIdempotentlyInOneRequest(
    db,
    scope,
    options.idempotency,
    {
      statements: [
        renderedUpsert.upsert(p),
        renderedUpsert.removeItems(p),
        renderedUpsert.insertItems(p),
      ],
      storedAnswer: (key) => renderedUpsert.storedAnswer({ ...p, ...key }),
    },
    async (tx) => String(await writeShopOrder(tx, owner, input.order)),
  );
}
