import { and, eq, type SQL, sql } from "drizzle-orm";
import { runAtomically } from "../../db/atomic";
import type { Database, HttpDb } from "../../db/client";
import { postgresError } from "../../db/errors";
import { orderItems, orders, salesChannels } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import { DuplicateOrderError, NotFoundError } from "../../lib/errors";
import type { ExternalOrder, Order } from "../../schemas/orders";
import {
  type IdempotencyOptions,
  type IdempotentResult,
  runIdempotentlyInOneRequest,
} from "../idempotency/idempotency";
import { orderReceiptStatement } from "../receipts/issue-order-receipt";
import { orderDocumentWhere } from "./order-json";
import { itemValues, orderValues, toOrder } from "./order-record";

export const ORDER_IMPORT_ROUTE = "POST /v4/order-import";

export interface ImportOrderInput {
  /** The sales channel of the key's winery that the order is imported on. */
  apiChannelKey: string;
  order: ExternalOrder;
}

/** The sales channel named by apiChannelKey, as SQL: null when the winery has no such channel. */
function channelIdOf(wineryId: string, apiChannelKey: string): SQL {
  return sql`(select ${salesChannels.id} from ${salesChannels}
    where ${salesChannels.wineryId} = ${wineryId} and ${salesChannels.apiChannelKey} = ${apiChannelKey}
      and ${salesChannels.deletedAt} is null)`;
}

/**
 * The three statements that import an order: the order, its items, its receipt. Nothing is read
 * first: the channel is resolved inside the order's INSERT (an unknown one leaves channel_id null,
 * which the orders_source check refuses) and the later statements find the order by its key
 * (winery, channel, external id), so they can run atomically without reading anything back. A
 * second import of the external id fails the order's unique key.
 */
function orderImportStatements<D extends AnyDb>(
  db: D,
  wineryId: string,
  apiChannelKey: string,
  input: ExternalOrder,
) {
  const channelId = channelIdOf(wineryId, apiChannelKey);
  const values = orderValues(input, { wineryId });
  const itemRows = itemValues(input, wineryId);
  const key = and(
    eq(orders.wineryId, wineryId),
    eq(orders.channelId, channelId),
    eq(orders.externalId, input.id),
  );
  const ref = (column: typeof orders.id | typeof orders.uuid) =>
    sql`(select ${column} from ${orders} where ${key})`;
  const items = itemRows.map((item) => ({
    ...item,
    orderId: ref(orders.id),
  }));
  return {
    insertOrder: db
      .insert(orders)
      .values({ ...values, channelId })
      .returning(),
    insertItems: items.length > 0 ? db.insert(orderItems).values(items).returning() : undefined,
    issueReceipt: db.execute(
      orderReceiptStatement(values, itemRows, {
        id: ref(orders.id),
        uuid: ref(orders.uuid),
        channelId,
      }),
    ),
  };
}

/** orderImportStatements in the order they run: the order, its items (if any), its receipt. */
function importStatementList<D extends AnyDb>(
  db: D,
  wineryId: string,
  apiChannelKey: string,
  input: ExternalOrder,
) {
  const { insertOrder, insertItems, issueReceipt } = orderImportStatements(
    db,
    wineryId,
    apiChannelKey,
    input,
  );
  return insertItems
    ? ([insertOrder, insertItems, issueReceipt] as const)
    : ([insertOrder, issueReceipt] as const);
}

type OrderRow = typeof orders.$inferSelect;
type ItemRow = typeof orderItems.$inferSelect;

/**
 * Writes the order, its items and its receipt atomically: one HTTP batch on the Neon HTTP driver,
 * or one statement after the other inside the caller's transaction (the Idempotency-Key path, and
 * the seed, which writes demo orders the way E1 does).
 */
export async function writeOrder(
  db: AnyDb,
  wineryId: string,
  apiChannelKey: string,
  input: ExternalOrder,
): Promise<Order> {
  const [orderRows, ...rest] = await runAtomically(db, (handle) =>
    importStatementList(handle, wineryId, apiChannelKey, input),
  );
  const [order] = orderRows as OrderRow[];
  if (!order) throw new Error("order insert returned no row");
  const items = rest.length === 2 ? (rest[0] as ItemRow[]) : [];
  return toOrder({ ...order, items, channel: { apiChannelKey } });
}

/** The order's key conflicts, or its channel is unknown: say so in the interface's terms. */
async function explainWriteError(
  error: unknown,
  db: HttpDb,
  wineryId: string,
  input: ImportOrderInput,
): Promise<never> {
  const pg = postgresError(error);
  if (pg?.code === "23514" && pg.constraint === "orders_source") {
    throw new NotFoundError("Sales channel", input.apiChannelKey);
  }
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
 * (DUPLICATE_ORDER, whose orderId costs a second read on that error path only). With a key: at
 * most one KV read (the replay cache) and one transaction that also claims the key.
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
    return await runIdempotentlyInOneRequest(
      db,
      scope,
      options.idempotency,
      {
        statements: (http) => importStatementList(http, wineryId, apiChannelKey, order),
        // The order just written, found by its key, as GET, E2 and E20 answer it (the same bytes
        // as writeOrder's answer on the other paths).
        answer: orderDocumentWhere(sql`o.winery_id = ${wineryId}
          and o.channel_id = ${channelIdOf(wineryId, apiChannelKey)}
          and o.external_id = ${order.id}`),
      },
      (tx) => writeOrder(tx, wineryId, apiChannelKey, order),
    );
  } catch (error) {
    return explainWriteError(error, db.http, wineryId, input);
  }
}
