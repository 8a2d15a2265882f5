import { type SQL, sql } from "drizzle-orm";

/**
 * "Paid", defined once for every place that sums it (decisions.md, Contacts): the paid amount of
 * the contact's orders whose status is not cancelled (E1, E19), plus the in-house payments of its
 * reservations (E11) minus their refunds (E14). A contact is linked to an order by its customer
 * email (lower-cased and trimmed, the contact's `email_key`; the order payload has no contact id),
 * and to a reservation through the reservation's contacts (MASTER or SECONDARY; `exists`, so a
 * contact listed twice counts the payment once). A payment's refunded_cents is its refund ledger's
 * sum (both move in one statement, src/services/reservations/refund-reservation.ts). `contact` is
 * the SQL alias of a contacts row; the answer is integer cents.
 */
export function paidCentsOf(contact: SQL): SQL {
  return sql`(coalesce((
    select sum(o.amount_cents) from orders o
    where o.winery_id = ${contact}.winery_id and o.buyer_email_key = ${contact}.email_key
      and lower(coalesce(o.status, '')) not in ('cancelled', 'canceled')
  ), 0) + coalesce((
    select sum(p.amount_cents - p.refunded_cents) from reservation_payments p
    where p.winery_id = ${contact}.winery_id and p.in_house
      and exists (select 1 from reservation_contacts rc
        where rc.winery_id = p.winery_id and rc.reservation_id = p.reservation_id
          and rc.contact_id = ${contact}.id)
  ), 0))`;
}
