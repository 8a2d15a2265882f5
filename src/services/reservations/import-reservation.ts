import { and, eq, sql } from "drizzle-orm";
import { retryOnDeadlock } from "../../db/atomic";
import type { Database } from "../../db/client";
import { postgresError } from "../../db/errors";
import {
  reservationContacts,
  reservationPayments,
  reservationPriceItems,
  reservations,
} from "../../db/schema";
import type { AnyDb } from "../../db/types";
import { AppError, NotFoundError } from "../../lib/errors";
import type { Reservation } from "../../schemas/reservation-views";
import type { ReservationInput } from "../../schemas/reservations";
import { contactUpsertStatement } from "../contacts/upsert-contact";
import { importInOneRequest } from "./import-in-one-request";
import { reservationDocumentStatement } from "./reservation-json";
import { followSeats, lockExperiencesStatement, SlotFullError } from "./reservation-seats";
import { priceItemRows, reservationValues } from "./reservation-values";

/** The path values of E11 that create a reservation with a new id. */
export const NEW_RESERVATION_PATHS = ["NEW", "null"];

export const IN_HOUSE_PROVIDER = "IN_HOUSE";

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;
const utcNow = sql`(now() at time zone 'utc')`;

/** 409 CONFLICT: the new paidTotalCents would fall below what E14 already refunded. */
class PaymentBelowRefundsError extends AppError {
  constructor(reservationId: string, refundedCents: number) {
    super(
      "CONFLICT",
      `Reservation ${reservationId} has ${refundedCents} cents refunded; paidTotalCents cannot go below that. Nothing was written.`,
      { extensions: { reservationId, refundedCents } },
    );
  }
}

/** The in-house payment follows paidTotalCents; it never goes below what was refunded. */
async function followPayment(tx: AnyDb, wineryId: string, id: string, paidCents: number) {
  const key = and(
    eq(reservationPayments.wineryId, wineryId),
    eq(reservationPayments.reservationId, id),
    eq(reservationPayments.inHouse, true),
  );
  if (paidCents > 0) {
    const rows = await tx
      .insert(reservationPayments)
      .values({
        wineryId,
        reservationId: id,
        provider: IN_HOUSE_PROVIDER,
        inHouse: true,
        amountCents: paidCents,
      })
      .onConflictDoUpdate({
        target: [reservationPayments.wineryId, reservationPayments.reservationId],
        targetWhere: sql`${reservationPayments.inHouse}`,
        set: { amountCents: sql`excluded.amount_cents` },
        setWhere: sql`${reservationPayments.refundedCents} <= excluded.amount_cents`,
      })
      .returning({ id: reservationPayments.id });
    if (rows.length > 0) return;
  } else {
    await tx.delete(reservationPayments).where(and(key, eq(reservationPayments.refundedCents, 0)));
  }
  // Not written: a payment with refunds stands in the way (the conditional write said so).
  const [kept] = await tx
    .select({ refundedCents: reservationPayments.refundedCents })
    .from(reservationPayments)
    .where(key);
  if (kept) throw new PaymentBelowRefundsError(id, kept.refundedCents);
}

/**
 * E11's writes in the caller's transaction (the route's, or a seed script's), in this order: the
 * experience and the slot at (date, time) are found (404 for another winery's experience); the
 * reservation row is inserted if absent and then locked, so two imports of one id queue instead of
 * both creating it; seats move with conditional UPDATEs (409, nothing written, when the slot is
 * full); the row, its contacts (each upserted by the E13 rule), price items and in-house payment
 * are replaced; the stored reservation is read back as JSON built by Postgres.
 */
export async function writeReservation(
  tx: AnyDb,
  wineryId: string,
  id: string,
  input: ReservationInput,
): Promise<Reservation> {
  await tx.execute(lockExperiencesStatement(wineryId, id, input.experienceId));
  const [target] = rowsOf<{ slot_id: string | null }>(
    await tx.execute(sql`
      select s.id as slot_id from experiences e
      left join slots s on s.winery_id = e.winery_id and s.experience_id = e.id
        and s.date = ${input.date}::date and s.time = ${input.time}::time
      where e.winery_id = ${wineryId} and e.id = ${input.experienceId}`),
  );
  if (!target) throw new NotFoundError("Experience", input.experienceId);

  const values = reservationValues(input);
  const key = and(eq(reservations.wineryId, wineryId), eq(reservations.id, id));
  await tx
    .insert(reservations)
    .values({ id, wineryId, ...values, ...(input.createdAt && { createdAt: input.createdAt }) })
    .onConflictDoNothing();
  const [current] = await tx
    .select({ slotId: reservations.slotId, guestCountTotal: reservations.guestCountTotal })
    .from(reservations)
    .where(key)
    .for("update");
  if (!current) throw new Error("reservation row vanished inside its transaction");

  await followSeats(
    tx,
    wineryId,
    id,
    { slotId: current.slotId, seats: current.guestCountTotal ?? 0 },
    { slotId: target.slot_id, seats: input.guestCountTotal ?? 0 },
    { close: input.closeSlots === true, open: input.openSlots === true },
  );

  await tx
    .update(reservations)
    .set({
      ...values,
      slotId: target.slot_id,
      ...(input.createdAt && { createdAt: input.createdAt }),
      updatedAt: input.updatedAt ?? utcNow,
    })
    .where(key);

  const links = [];
  for (const [position, contact] of input.reservationContacts.entries()) {
    const [row] = await contactUpsertStatement(tx, wineryId, contact);
    if (!row) throw new Error("contact upsert returned no row");
    links.push({
      wineryId,
      reservationId: id,
      contactId: row.id,
      contactType: contact.contactType,
      position,
    });
  }
  await tx
    .delete(reservationContacts)
    .where(
      and(eq(reservationContacts.wineryId, wineryId), eq(reservationContacts.reservationId, id)),
    );
  await tx.insert(reservationContacts).values(links);

  await tx
    .delete(reservationPriceItems)
    .where(
      and(
        eq(reservationPriceItems.wineryId, wineryId),
        eq(reservationPriceItems.reservationId, id),
      ),
    );
  const items = priceItemRows(wineryId, id, input);
  if (items.length > 0) await tx.insert(reservationPriceItems).values(items);

  await followPayment(tx, wineryId, id, input.paidTotalCents ?? 0);

  const [read] = rowsOf<{ doc: string }>(
    await tx.execute(
      reservationDocumentStatement(
        input.languageIso ?? null,
        sql`r.winery_id = ${wineryId} and r.id = ${id}`,
      ),
    ),
  );
  if (!read) throw new Error("reservation read-back returned no row");
  return JSON.parse(read.doc) as Reservation;
}

/**
 * E11: all or nothing. `NEW` or `null` in the path creates a reservation with a new id; a uuid
 * updates the winery's reservation, or creates one with that id. One HTTP batch does it
 * (importInOneRequest); when that batch met an error condition (no such experience, a payment
 * below its refunds, a race) it wrote nothing, and the interactive transaction
 * (importInTransaction) does it again and gives the answer it always gave. A slot without room
 * the batch answers itself, with the interactive path's 409.
 */
export async function importReservation(
  db: Database,
  wineryId: string,
  pathId: string,
  input: ReservationInput,
): Promise<Reservation> {
  const generated = NEW_RESERVATION_PATHS.includes(pathId);
  const id = generated ? crypto.randomUUID() : pathId.toLowerCase();
  let reservation: Reservation;
  try {
    reservation =
      (await importInOneRequest(db.http, wineryId, id, input)) ??
      (await retryOnDeadlock(() => importInTransaction(db, wineryId, id, input)));
  } catch (error) {
    // The id this call chose was never stored: the conflict names no reservation.
    if (generated && error instanceof SlotFullError)
      throw new SlotFullError(error.slotId, null, error.seats);
    throw error;
  }
  // closeSlots and openSlots are not answered: "present on the top-level input only" (the
  // interface's Reservation table). An outside audit found them echoed when sent.
  return reservation;
}

/**
 * E11 in one interactive transaction (one WebSocket session): writeReservation, and the answers
 * to the races its foreign keys catch.
 */
export async function importInTransaction(
  db: Database,
  wineryId: string,
  id: string,
  input: ReservationInput,
): Promise<Reservation> {
  try {
    return await db.transaction((tx) => writeReservation(tx, wineryId, id, input));
  } catch (error) {
    const constraint = postgresError(error)?.constraint;
    // The experience vanished between the check and the insert: as if it never existed.
    if (constraint === "reservations_experience_fk")
      throw new NotFoundError("Experience", input.experienceId);
    // E9 deleted the slot between the lookup and the write (only possible when no seat moved).
    if (constraint === "reservations_slot_id_slots_id_fk")
      throw new AppError(
        "CONFLICT",
        `The slot of reservation ${id} was deleted meanwhile; nothing was written. Retry the import.`,
      );
    throw error;
  }
}
