import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client";
import { orderItems, orders, salesChannels } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import { DuplicateOrderError, NotFoundError } from "../../lib/errors";
import type { ExternalOrder } from "../../schemas/orders";
import {
  cacheResponse,
  claimIdempotencyKey,
  completeIdempotencyKey,
  type IdempotencyScope,
  type ReplayCache,
  replayFromCache,
  requestHash,
  type StoredResponse,
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

export interface ImportOrderResult {
  response: StoredResponse;
  replayed: boolean;
}

export interface ImportOrderDeps {
  db: Database;
  kv: ReplayCache;
  waitUntil: (promise: Promise<unknown>) => void;
}

/**
 * The order, its items and its receipt, in the caller's transaction; answers the stored order.
 * Any Drizzle Postgres handle will do, so the seed writes demo orders the way E1 does.
 */
export async function writeOrder(
  tx: AnyDb,
  wineryId: string,
  channel: { id: string; apiChannelKey: string },
  input: ExternalOrder,
) {
  const [order] = await tx
    .insert(orders)
    .values(orderValues(input, { wineryId, channelId: channel.id }))
    .onConflictDoNothing({ target: [orders.wineryId, orders.channelId, orders.externalId] })
    .returning();
  if (!order) {
    const [existing] = await tx
      .select({ id: orders.id })
      .from(orders)
      .where(
        and(
          eq(orders.wineryId, wineryId),
          eq(orders.channelId, channel.id),
          eq(orders.externalId, input.id),
        ),
      );
    throw new DuplicateOrderError(existing?.id ?? 0);
  }
  const values = itemValues(input, order.id, wineryId);
  const items = values.length > 0 ? await tx.insert(orderItems).values(values).returning() : [];
  const stored = { ...order, items, channel: { apiChannelKey: channel.apiChannelKey } };
  await issueOrderReceipt(tx, stored);
  return toOrder(stored);
}

/**
 * E1. Budget: at most one KV read (the replay cache) and one database transaction, which resolves
 * the channel, claims the idempotency key, writes the order with its items and issues the receipt,
 * all or nothing. Without a key, the external id alone guards against duplicates (DUPLICATE_ORDER).
 */
export async function importOrder(
  deps: ImportOrderDeps,
  request: ImportOrderRequest,
): Promise<ImportOrderResult> {
  const { wineryId, apiChannelKey, idempotencyKey } = request;
  const scope: IdempotencyScope | undefined = idempotencyKey
    ? { wineryId, route: ORDER_IMPORT_ROUTE, key: idempotencyKey }
    : undefined;
  // The channel is part of the fingerprint: one key on two channels is two different requests.
  const hash = scope ? await requestHash({ apiChannelKey, body: request.rawBody }) : "";

  if (scope) {
    const cached = await replayFromCache(deps.kv, scope, hash);
    if (cached) return { response: cached, replayed: true };
  }

  const result = await deps.db.transaction(async (tx): Promise<ImportOrderResult> => {
    const [channel] = await tx
      .select({ id: salesChannels.id, apiChannelKey: salesChannels.apiChannelKey })
      .from(salesChannels)
      .where(
        and(
          eq(salesChannels.wineryId, wineryId),
          eq(salesChannels.apiChannelKey, apiChannelKey),
          isNull(salesChannels.deletedAt),
        ),
      );
    if (!channel) throw new NotFoundError("Sales channel", apiChannelKey);

    if (scope) {
      const previous = await claimIdempotencyKey(tx, scope, hash);
      if (previous) return { response: previous, replayed: true };
    }
    const order = await writeOrder(tx, wineryId, channel, request.order);
    const response = { status: 200, body: JSON.stringify(order) };
    if (scope) await completeIdempotencyKey(tx, scope, response);
    return { response, replayed: false };
  });

  if (scope) deps.waitUntil(cacheResponse(deps.kv, scope, hash, result.response));
  return result;
}
