import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { NotFoundError } from "../../lib/errors";
import { idempotencyOptions, replayHeaders } from "../../lib/idempotent-route";
import { streamedArrayResponse, streamHandler } from "../../lib/stream-response";
import { assertOwnWinery } from "../../lib/tenancy";
import { Uuid } from "../../schemas/common";
import { importReservation } from "../../services/reservations/import-reservation";
import { queryReservations } from "../../services/reservations/query-reservations";
import { refundReservation } from "../../services/reservations/refund-reservation";
import type {
  importReservationRoute,
  queryReservationsRoute,
  refundReservationRoute,
} from "./reservations.routes";

export const importReservationHandler: RouteHandler<typeof importReservationRoute, AppEnv> = async (
  c,
) => {
  const input = c.req.valid("json");
  const reservation = await importReservation(
    c.get("db"),
    c.get("principal").wineryId,
    c.req.valid("param").reservationID,
    input,
  );
  return c.json(reservation, 200);
};

/**
 * E16: a JSON array streamed in keyset batches (constant memory) from one snapshot of the data
 * (queryReservations), answered through the context.
 */
export const queryReservationsHandler = streamHandler<typeof queryReservationsRoute>(async (c) => {
  const filter = c.req.valid("json");
  // The interface types this filter a string: any value but the key's winery is 403 (the body
  // middleware has answered another winery's uuid already).
  assertOwnWinery(c, filter.wineryId);
  const query = c.req.valid("query");
  // An empty language names none: the next source decides, as if it had not been sent.
  const lang = filter.lang || query.Lang || query.lang || null;
  return streamedArrayResponse(
    c,
    queryReservations(c.get("db"), {
      ...filter,
      wineryId: c.get("principal").wineryId,
      lang,
    }),
  );
});

/** E14. A replay answers the first result again, serialised to the same bytes. */
export const refundReservationHandler: RouteHandler<typeof refundReservationRoute, AppEnv> = async (
  c,
) => {
  const id = Uuid.safeParse(c.req.valid("param").reservationID);
  if (!id.success) throw new NotFoundError("Reservation", c.req.valid("param").reservationID);
  const reservationID = id.data;
  const { amountCents } = c.req.valid("json");
  const key = c.req.valid("header")["Idempotency-Key"];
  const idempotency = idempotencyOptions(c, key, { reservationID, amountCents });
  const { value, replayed } = await refundReservation(
    c.get("db"),
    c.get("principal").wineryId,
    reservationID,
    amountCents,
    idempotency ? { idempotency } : {},
  );
  return c.json(value, 200, replayHeaders(replayed));
};
