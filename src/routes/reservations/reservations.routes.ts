import { createRoute, z } from "@hono/zod-openapi";
import { STREAM_FAILURE_NOTE } from "../../lib/json-stream";
import { jsonRequestBody, jsonResponse, replayableResponse } from "../../lib/openapi";
import { slotFullResponse } from "../../schemas/experience-preview";
import { idempotencyKeyHeaders } from "../../schemas/idempotency";
import { errorResponses, withReplayedProblems } from "../../schemas/problem";
import { ReservationSchema, VwReservationSchema } from "../../schemas/reservation-views";
import {
  RefundRequestSchema,
  ReservationIdParamsSchema,
  ReservationImportParamsSchema,
  ReservationInputSchema,
  ReservationQueryParamsSchema,
  ReservationQuerySchema,
} from "../../schemas/reservations";

export const importReservationRoute = createRoute({
  method: "put",
  path: "/reservations/import/{reservationID}",
  tags: ["Reservations"],
  operationId: "importReservation",
  summary: "E11. Update one reservation by id (or create)",
  description: [
    "`NEW` or `null` as reservationID creates a reservation with a new uuid; an unknown uuid creates one with that id; a known one is updated (replaced: fields left out are cleared). Any other value is 400 naming reservationID. The body's `id`, `reservation`, `reservationMasterContact`, `contactId`, `paidAt`, `refundedAt` and `refundedTotalCents` are ignored (the path names the reservation; the others are derived), though they are type-checked like every field the reservation shape names (`reservation` and `reservationMasterContact` as objects).",
    "Contacts: at least one, exactly one MASTER (else 400 naming reservationContacts); each is upserted into the winery's contacts by E13's rule (same lower(trim(email)) = same contact) and linked. Two entries whose emails are equal once trimmed and lower-cased name one contact: 400 naming the later entry's email (reservationContacts[i].email).",
    "experienceId must be an experience of the API key's winery (404 otherwise). The reservation sits on the experience's slot at the same date and time and holds guestCountTotal seats there, taken with one conditional UPDATE (occupied_count + seats <= maxParties); on update the old slot's seats are released and the new one's taken in the same transaction. A slot without room is 409 CONFLICT naming the slot (`slotId`) and the reservation (`reservationId`: null for a reservation the call was creating under a new id, path `NEW` or `null`, which was never stored), and nothing is written. A closed slot (active false) still takes an imported reservation: the source system has booked it. When the experience has no slot at that date and time, the reservation is stored without one (`slotId` null) and holds no seats; closeSlots/openSlots then act on nothing. If E9 later deletes the slot (ignoreOccupiedSlot), the reservation stays with `slotId` null.",
    "`closeSlots` true closes the slot (active false), `openSlots` true reopens it; both true is 400. Neither is answered: they are input only, as the interface's Reservation table says.",
    "A positive `paidTotalCents` records the in-house payment that E14 refunds; on update the payment follows the new amount, and 0 or absent removes it. It never goes below what was already refunded: 409 CONFLICT, nothing written. `paid` is stored as sent; left out (or null), it is true when a positive `paidTotalCents` records a payment (as `paidAt` is then that payment's instant), else null.",
    "createdAt/updatedAt are local date-times without zone, stored as sent, rounded half up to the millisecond once over every digit sent (answered with three fraction digits: `10:00:00` as `10:00:00.000`, `10:00:00.123956` as `10:00:00.124`, `10:00:00.1234999` as `10:00:00.123`; one that rounds past 9999-12-31T23:59:59.999 is 400); when absent, createdAt is the first import's and updatedAt the import's UTC clock time. `experienceTitle` is the experience title in the reservation's languageIso, chosen as E16 chooses it (the reservation's own experienceTitleTranslations label first, by languageISO or `language`).",
    "Everything is one transaction (one WebSocket session). A concurrent first import of the same new id waits for the other and then updates it.",
  ].join("\n\n"),
  request: {
    params: ReservationImportParamsSchema,
    body: jsonRequestBody(ReservationInputSchema),
  },
  responses: {
    200: jsonResponse(
      ReservationSchema,
      "The stored reservation, with the nested reservation, its contacts and master contact.",
    ),
    ...errorResponses("FORBIDDEN", "NOT_FOUND"),
    ...slotFullResponse,
  },
});

export const queryReservationsRoute = createRoute({
  method: "post",
  path: "/reservations/query",
  tags: ["Reservations"],
  operationId: "queryReservations",
  summary: "E16. Retrieve reservations by filter",
  description: [
    "Reservations of the API key's winery. Every filter is optional and they are combined with AND: startTime/endTime bound the reservation date, both inclusive; `ids` and `states` are any-of lists (an empty list filters nothing; states compare case-insensitively; an id that is not a uuid matches nothing). A wineryId other than the key's is 403.",
    `Ordered by date, time, id. Every answer is one state of the data, as it stood at one moment of the request: a reservation that another client adds, removes or moves (E11 changing its date) while the answer is read appears once, where it was then, or not at all if it did not exist or match then; never twice, never left out. An answer of up to 500 reservations is one database statement (one round trip: most calls). A larger one is read again from the start, in batches of 500, inside one read-only REPEATABLE READ transaction (one more round trip: a WebSocket session that holds that snapshot until the body ends), and streamed batch by batch, so answers of any size run in constant memory. A client that stops reading the body for over 30 s mid-answer lets the database end that snapshot, which cuts the body off as a failure does. ${STREAM_FAILURE_NOTE}`,
    "Language: body `lang`, else query `Lang` (or `lang`; an empty value counts as not sent), picks the language of each reservation's `experienceTitle`: the reservation's own experienceTitleTranslations label in that language (a label whose languageISO is that code, compared case-insensitively, or whose `language` is that language: ENGLISH is en, ITALIAN it, GERMAN de, FRENCH fr, SPANISH es, PORTUGUESE pt, DANISH da, BULGARIAN bg, ARABIC ar, CHINESE zh, RUSSIAN ru, ROMANIAN ro, POLISH pl, CROATIAN hr), else the experience's titleTranslations entry; a regional code falls back to its base language (en-US to en), then to the reservation's languageIso, then to English, then to any title. Without either, the reservation's languageIso decides.",
  ].join("\n\n"),
  request: {
    query: ReservationQueryParamsSchema,
    body: jsonRequestBody(ReservationQuerySchema),
  },
  responses: {
    200: {
      description: "The matching reservations (E11's shape).",
      content: { "application/json": { schema: z.array(ReservationSchema) } },
    },
    ...errorResponses("FORBIDDEN"),
  },
});

const RefundIdempotencySchema = idempotencyKeyHeaders(
  "Optional, as on E1: 1 to 255 printable ASCII characters, or the quoted form of RFC 8941 (the key in double quotes, backslash-escaped, optionally followed by `;parameters`): the pattern states both. Scope: (winery, route, key), kept 24 hours. The same key with the same reservationID and amount replays the first answer with `Idempotent-Replayed: true` and refunds nothing more; another payload is 422 IDEMPOTENCY_KEY_REUSED; while the first is in flight, 409 IDEMPOTENCY_KEY_IN_USE with Retry-After. A refund the service refused once it ran (400 NOT_REFUNDABLE, 404 for an unknown reservation) is kept too: the same key and payload replay that problem (its requestId and X-Request-Id the replaying request's) with `Idempotent-Replayed: true`, so a new attempt needs a new key. A request refused before it ran (400 for its body or headers, 401, 403, 413, 415, 429) or failing with 5xx keeps nothing.",
);

export const refundReservationRoute = createRoute({
  method: "post",
  path: "/reservations/{reservationID}/refund",
  tags: ["Reservations"],
  operationId: "refundReservation",
  summary: "E14. Refund a reservation payment",
  description: [
    "Refunds amountCents (an integer > 0) of the reservation's in-house payment (the one E11's paidTotalCents records), fully or in parts. Each refund is a ledger row; the reservation's state never changes.",
    "400 NOT_REFUNDABLE when the reservation has no in-house payment, nothing is left to refund, or amountCents is over the refundable rest (paid minus refunded). An unknown reservation, or another winery's, is 404; so is a reservationID that is not a uuid (the interface types it a string, and reservations are identified by uuid): it names none, and is answered before anything runs, so nothing is kept under its Idempotency-Key.",
    "The check and the write are one statement (a conditional UPDATE of the payment's refunded amount plus the ledger insert), so concurrent refunds can never exceed what was paid. Without an Idempotency-Key: one database round trip; with one: one transaction (plus one KV read).",
    "The answer is VwReservation: refundedTotalCents (the ledger's sum) and refundedAt (the last refund's instant); createdAt/updatedAt are the stored local date-times read as UTC, and so is startDateTime (the reservation's date and time); endDateTime adds the experience's duration when that is an ISO 8601 duration of days and time (PT1H30M, PT0.5S, PT1.5H, P1DT2H; a fraction on the last part only), else it is null; paymentId is null (payments are not identified by uuid); other fields the service does not hold are null, arrays it does not hold empty.",
  ].join("\n\n"),
  request: {
    params: ReservationIdParamsSchema,
    headers: RefundIdempotencySchema,
    body: jsonRequestBody(RefundRequestSchema),
  },
  responses: {
    200: replayableResponse(
      VwReservationSchema,
      "The reservation after the refund (or, with Idempotent-Replayed: true, the first answer again).",
    ),
    ...withReplayedProblems(
      errorResponses(
        "NOT_FOUND",
        "NOT_REFUNDABLE",
        "IDEMPOTENCY_KEY_IN_USE",
        "IDEMPOTENCY_KEY_REUSED",
      ),
      "NOT_FOUND",
      "NOT_REFUNDABLE",
    ),
  },
});
