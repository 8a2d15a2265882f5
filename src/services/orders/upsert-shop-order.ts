import { and, eq, type SQL, sql } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { runAtomically } from "../../db/atomic";
import type { Database } from "../../db/client";
import { orderItems, orders } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import type { ExternalOrder } from "../../schemas/orders";
import {
  type IdempotencyOptions,
  type IdempotentResult,
  runIdempotentlyInOneRequest,
} from "../idempotency/idempotency";
import { itemValues, orderValues } from "./order-record";

/** The upsert key and the owner of the order: a re-post never changes them. */
const KEY_COLUMNS = new Set(["wineryId", "channelId", "pluginTag", "externalId"]);
/**
 * Columns the back office owns (E2 edits them; no storefront sends them): a document that leaves
 * them out keeps the stored value instead of clearing it.
 */
const BACK_OFFICE_COLUMNS: Record<string, AnyPgColumn> = {
  userMetadata: orders.userMetadata,
  marketingManual: orders.marketingManual,
};

const excluded = (column: string) => sql.raw(`excluded."${toSnakeCase(column)}"`);

export interface ShopOrderOwner {
  wineryId: string;
  /** The storefront plugin (E19 `tagName`). */
  tagName: string;
}

/** The three statements of an upsert, built on whichever handle will run them. */
function upsertStatements<D extends AnyDb>(db: D, owner: ShopOrderOwner, input: ExternalOrder) {
  const values = orderValues(input, { wineryId: owner.wineryId, pluginTag: owner.tagName });
  const set: Record<string, SQL> = {};
  for (const column of Object.keys(values)) {
    if (KEY_COLUMNS.has(column)) continue;
    const stored = BACK_OFFICE_COLUMNS[column];
    set[column] = stored ? sql`coalesce(${excluded(column)}, ${stored})` : excluded(column);
  }
  // Strictly increasing at millisecond precision, like E2, so an E2 lock sees every re-post.
  set.updatedAt = sql`greatest(now(), ${orders.updatedAt} + interval '1 millisecond')`;

  const upsert = db
    .insert(orders)
    .values(values)
    .onConflictDoUpdate({ target: [orders.wineryId, orders.pluginTag, orders.externalId], set })
    .returning({ id: orders.id });

  const orderId = sql`(${db
    .select({ id: orders.id })
    .from(orders)
    .where(
      and(
        eq(orders.wineryId, owner.wineryId),
        eq(orders.pluginTag, owner.tagName),
        eq(orders.externalId, input.id),
      ),
    )})`;
  const removeItems = db
    .delete(orderItems)
    .where(and(eq(orderItems.wineryId, owner.wineryId), eq(orderItems.orderId, orderId)));
  const items = itemValues(input, owner.wineryId).map((item) => ({ ...item, orderId }));
  const insertItems = items.length > 0 ? db.insert(orderItems).values(items) : undefined;
  return { upsert, removeItems, insertItems };
}

/** upsertStatements in the order they run: the order, the old items removed, the new ones. */
function upsertStatementList<D extends AnyDb>(db: D, owner: ShopOrderOwner, input: ExternalOrder) {
  const { upsert, removeItems, insertItems } = upsertStatements(db, owner, input);
  return insertItems
    ? ([upsert, removeItems, insertItems] as const)
    : ([upsert, removeItems] as const);
}

/**
 * Upserts the order atomically: one HTTP batch (one transaction) on the Neon HTTP driver, or the
 * same statements inside the caller's transaction (the Idempotency-Key path). The items find their
 * order through a subquery on the upsert key, so nothing has to be read first. Concurrent re-posts
 * converge on one row: under READ COMMITTED ON CONFLICT DO UPDATE waits for, then locks the order
 * row until its transaction ends, so the delete-and-insert of items runs one request at a time.
 */
export async function writeShopOrder(db: AnyDb, owner: ShopOrderOwner, input: ExternalOrder) {
  const [upserted] = await runAtomically(db, (handle) => upsertStatementList(handle, owner, input));
  const row = (upserted as { id: number }[])[0];
  if (!row) throw new Error("shop order upsert returned no row");
  return row.id;
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
  return runIdempotentlyInOneRequest(
    db,
    scope,
    options.idempotency,
    {
      statements: (http) => upsertStatementList(http, owner, input.order),
      // The upserted order's id as a JSON string, the answer writeShopOrder's caller makes.
      answer: sql`select to_json(${orders.id}::text) from ${orders}
        where ${orders.wineryId} = ${wineryId} and ${orders.pluginTag} = ${input.tagName}
          and ${orders.externalId} = ${input.order.id}`,
    },
    async (tx) => String(await writeShopOrder(tx, owner, input.order)),
  );
}
