import { and, eq, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { HttpDb, TxDb } from "../../db/client";
import { postgresError } from "../../db/errors";
import { orderItems, orders, salesChannels } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import { DuplicateOrderError, NotFoundError } from "../../lib/errors";
import type { ExternalOrder, Order } from "../../schemas/orders";
import {
  type IdempotencyDeps,
  type IdempotentResult,
  runIdempotently,
} from "../idempotency/idempotency";
import { orderReceiptStatement } from "../receipts/issue-order-receipt";
import { itemValues, orderValues, toOrder } from "./order-record";

export const ORDER_IMPORT_ROUTE = "POST /v4/order-import";

export interface ImportOrderRequest {
  wineryId: string;
  apiChannelKey: string;
  order: ExternalOrder;
  /** The body as the client sent it, for the idempotency fingerprint. */
  rawBody: unknown;
  idempotencyKey?: string;
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
 * (winery, channel, external id). So they run as one HTTP batch, or one after the other inside an
 * interactive transaction. A second import of the external id fails the order's unique key.
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

type OrderRow = typeof orders.$inferSelect;
type ItemRow = typeof orderItems.$inferSelect;

function storedOrder(apiChannelKey: string, [order]: OrderRow[], items: ItemRow[] = []): Order {
  if (!order) throw new Error("order insert returned no row");
  return toOrder({ ...order, items, channel: { apiChannelKey } });
}

/** One HTTP round trip: the statements as one atomic batch. */
async function writeOrderInBatch(
  db: HttpDb,
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
  if (!insertItems) {
    const [orderRows] = await db.batch([insertOrder, issueReceipt]);
    return storedOrder(apiChannelKey, orderRows);
  }
  const [orderRows, itemRows] = await db.batch([
    insertOrder,
    insertItems,
    issueReceipt,
  ] as const satisfies readonly BatchItem<"pg">[]);
  return storedOrder(apiChannelKey, orderRows, itemRows);
}

/**
 * The same statements in the caller's transaction (the Idempotency-Key path, and the seed, which
 * writes demo orders the way E1 does). Any Drizzle Postgres handle will do.
 */
export async function writeOrder(
  tx: AnyDb,
  wineryId: string,
  apiChannelKey: string,
  input: ExternalOrder,
) {
  const { insertOrder, insertItems, issueReceipt } = orderImportStatements(
    tx,
    wineryId,
    apiChannelKey,
    input,
  );
  const orderRows = await insertOrder;
  const itemRows = insertItems ? await insertItems : [];
  await issueReceipt;
  return storedOrder(apiChannelKey, orderRows, itemRows);
}

/** The order's key conflicts, or its channel is unknown: say so in the interface's terms. */
async function explainWriteError(
  error: unknown,
  db: HttpDb,
  request: ImportOrderRequest,
): Promise<never> {
  const pg = postgresError(error);
  if (pg?.code === "23514" && pg.constraint === "orders_source") {
    throw new NotFoundError("Sales channel", request.apiChannelKey);
  }
  if (pg?.code === "23505" && pg.constraint === "orders_channel_external_id") {
    const [existing] = await db
      .select({ id: orders.id })
      .from(orders)
      .where(
        and(
          eq(orders.wineryId, request.wineryId),
          eq(orders.channelId, channelIdOf(request.wineryId, request.apiChannelKey)),
          eq(orders.externalId, request.order.id),
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
  deps: IdempotencyDeps,
  request: ImportOrderRequest,
): Promise<IdempotentResult> {
  const { wineryId, apiChannelKey, idempotencyKey, order } = request;
  try {
    if (idempotencyKey === undefined) {
      const stored = await writeOrderInBatch(deps.db.http, wineryId, apiChannelKey, order);
      return { response: { status: 200, body: JSON.stringify(stored) }, replayed: false };
    }
    // The channel is part of the fingerprint: one key on two channels is two different requests.
    const scope = { wineryId, route: ORDER_IMPORT_ROUTE, key: idempotencyKey };
    return await runIdempotently(
      deps,
      scope,
      { apiChannelKey, body: request.rawBody },
      async (tx: TxDb) => {
        const stored = await writeOrder(tx, wineryId, apiChannelKey, order);
        return { status: 200, body: JSON.stringify(stored) };
      },
    );
  } catch (error) {
    return explainWriteError(error, deps.db.http, request);
  }
}
