import { and, eq, sql } from "drizzle-orm";
import type { TxDb } from "../../db/client";
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
import { issueOrderReceipt } from "../receipts/issue-order-receipt";
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

/**
 * The order, its items and its receipt, in the caller's transaction; answers the stored order.
 * Three statements: the order (its channel resolved inside the INSERT: an unknown channel leaves
 * channel_id null, which the orders_source check refuses), the items, the receipt. Any Drizzle
 * Postgres handle will do, so the seed writes demo orders the way E1 does.
 */
export async function writeOrder(
  tx: AnyDb,
  wineryId: string,
  apiChannelKey: string,
  input: ExternalOrder,
): Promise<Order> {
  const channelId = sql`(select ${salesChannels.id} from ${salesChannels}
    where ${salesChannels.wineryId} = ${wineryId} and ${salesChannels.apiChannelKey} = ${apiChannelKey}
      and ${salesChannels.deletedAt} is null)`;
  const [order] = await tx
    .insert(orders)
    .values({ ...orderValues(input, { wineryId }), channelId })
    .onConflictDoNothing({ target: [orders.wineryId, orders.channelId, orders.externalId] })
    .returning()
    .catch((error: unknown) => {
      const pg = postgresError(error);
      if (pg?.code === "23514" && pg.constraint === "orders_source") {
        throw new NotFoundError("Sales channel", apiChannelKey);
      }
      throw error;
    });
  if (!order) {
    const [existing] = await tx
      .select({ id: orders.id })
      .from(orders)
      .where(
        and(
          eq(orders.wineryId, wineryId),
          eq(orders.channelId, channelId),
          eq(orders.externalId, input.id),
        ),
      );
    throw new DuplicateOrderError(existing?.id ?? 0);
  }
  const values = itemValues(input, order.id, wineryId);
  const items = values.length > 0 ? await tx.insert(orderItems).values(values).returning() : [];
  const stored = { ...order, items, channel: { apiChannelKey } };
  await issueOrderReceipt(tx, stored);
  return toOrder(stored);
}

/**
 * E1. Budget: at most one KV read (the replay cache) and one database transaction, which claims
 * the idempotency key, writes the order (resolving its channel) with its items and issues the
 * receipt, all or nothing. Without a key, the external id alone guards against duplicates (DUPLICATE_ORDER).
 */
export async function importOrder(
  deps: IdempotencyDeps,
  request: ImportOrderRequest,
): Promise<IdempotentResult> {
  const { wineryId, apiChannelKey, idempotencyKey } = request;
  const execute = async (tx: TxDb) => {
    const order = await writeOrder(tx, wineryId, apiChannelKey, request.order);
    return { status: 200, body: JSON.stringify(order) };
  };
  if (idempotencyKey === undefined) {
    return { response: await deps.db.transaction(execute), replayed: false };
  }
  // The channel is part of the fingerprint: one key on two channels is two different requests.
  const scope = { wineryId, route: ORDER_IMPORT_ROUTE, key: idempotencyKey };
  return runIdempotently(deps, scope, { apiChannelKey, body: request.rawBody }, execute);
}
