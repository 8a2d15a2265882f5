import { type SQL, sql } from "drizzle-orm";

/**
 * "Paid", defined once for every place that sums it (decisions.md, Contacts): the paid amount of
 * the contact's orders whose status is not cancelled (E1, E19). A contact is linked to an order by
 * its customer email (lower-cased and trimmed, the contact's `email_key`); the order payload has no
 * contact id. Reservations' in-house payments minus their refunds join this sum when reservations
 * exist (E11, E14). `contact` is the SQL alias of a contacts row; the answer is integer cents.
 */
export function paidCentsOf(contact: SQL): SQL {
  return sql`coalesce((
    select sum(o.amount_cents) from orders o
    where o.winery_id = ${contact}.winery_id and o.buyer_email_key = ${contact}.email_key
      and lower(coalesce(o.status, '')) not in ('cancelled', 'canceled')
  ), 0)`;
}
