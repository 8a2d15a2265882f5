import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { contacts, orders } from "../../db/schema";
import {
  type FieldError,
  NotFoundError,
  StaleUpdateError,
  ValidationError,
} from "../../lib/errors";
import {
  type Order,
  type SecondaryContact,
  SecondaryContactsSchema,
  type UpdateParam,
} from "../../schemas/orders";
import { findOrderQuery } from "./get-order";
import { toOrder } from "./order-record";

const SECONDARY_PATH = "userMetadata.secondaryContacts";

/** Scalar fields: absent keeps the stored value, null clears it. Metadata: null keeps it too. */
function changes(param: UpdateParam): Partial<typeof orders.$inferInsert> {
  const set: Partial<typeof orders.$inferInsert> = {};
  if (param.marketingManual !== undefined) set.marketingManual = param.marketingManual;
  if (param.notes !== undefined) set.notes = param.notes;
  if (param.paymentMethod !== undefined) set.paymentMethod = param.paymentMethod;
  if (param.sourceExternalId !== undefined) set.sourceExternalId = param.sourceExternalId;
  if (param.sourceExternalType !== undefined) set.sourceExternalType = param.sourceExternalType;
  if (param.status !== undefined) set.status = param.status;
  if (param.sourceSyncedAt !== undefined) {
    set.sourceSyncedAt = param.sourceSyncedAt === null ? null : new Date(param.sourceSyncedAt);
  }
  if (param.extraMetadata != null) set.extraMetadata = param.extraMetadata;
  if (param.userMetadata != null) set.userMetadata = param.userMetadata;
  return set;
}

/**
 * E2. One round trip: an atomic batch of the conditional UPDATE and the read of the order (and,
 * with secondaryContacts, of which of them are the winery's contacts). Every rule is a condition of
 * the UPDATE itself, so concurrent callers with the same expectedUpdatedAt cannot both win; the
 * read after it tells a missing order, a lost lock and a broken rule apart without another trip.
 */
export async function updateOrder(
  db: HttpDb,
  wineryId: string,
  orderId: number,
  param: UpdateParam,
): Promise<Order> {
  const secondary: SecondaryContact[] | undefined =
    param.userMetadata?.secondaryContacts === undefined
      ? undefined
      : SecondaryContactsSchema.parse(param.userMetadata.secondaryContacts);
  const contactIds = secondary?.map((c) => c.contactId) ?? [];
  const secondarySum = secondary?.reduce((sum, c) => sum + c.amountCents, 0) ?? 0;
  if (secondary) {
    // Normalised ids (numeric strings become numbers) are what gets stored.
    param = { ...param, userMetadata: { ...param.userMetadata, secondaryContacts: secondary } };
  }

  const conditions: (SQL | undefined)[] = [eq(orders.id, orderId), eq(orders.wineryId, wineryId)];
  if (param.expectedUpdatedAt)
    conditions.push(eq(orders.updatedAt, new Date(param.expectedUpdatedAt)));
  const knownContacts = contactIds.length
    ? db
        .select({ id: contacts.id })
        .from(contacts)
        .where(and(eq(contacts.wineryId, wineryId), inArray(contacts.id, contactIds)))
    : undefined;
  if (secondary) {
    conditions.push(sql`${secondarySum} <= ${orders.amountCents}`);
    if (knownContacts)
      conditions.push(sql`(select count(*) from (${knownContacts}) known) = ${contactIds.length}`);
  }

  const update = db
    .update(orders)
    .set({
      ...changes(param),
      // Strictly increasing at millisecond precision, so every change is visible to the lock.
      updatedAt: sql`greatest(now(), ${orders.updatedAt} + interval '1 millisecond')`,
    })
    .where(and(...conditions))
    .returning({ id: orders.id });
  const read = findOrderQuery(db, wineryId, orderId);
  const [updated, current, known] = knownContacts
    ? await db.batch([update, read, knownContacts])
    : [...(await db.batch([update, read])), []];

  if (!current) throw new NotFoundError("Order", orderId);
  if (updated.length === 1) return toOrder(current);

  const currentUpdatedAt = current.updatedAt.toISOString();
  if (
    param.expectedUpdatedAt &&
    current.updatedAt.getTime() !== Date.parse(param.expectedUpdatedAt)
  ) {
    throw new StaleUpdateError({ currentUpdatedAt });
  }
  const problems: FieldError[] = [];
  const knownIds = new Set(known.map((c) => c.id));
  secondary?.forEach((c, index) => {
    if (!knownIds.has(c.contactId)) {
      problems.push({
        path: `${SECONDARY_PATH}[${index}].contactId`,
        message: "is not a contact of this winery",
      });
    }
  });
  if (secondarySum > current.amountCents) {
    problems.push({
      path: SECONDARY_PATH,
      message: `the amounts sum to ${secondarySum}, more than the order's amountCents ${current.amountCents}`,
    });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  // The order changed between the UPDATE and the read (no lock requested): report it as stale.
  throw new StaleUpdateError({ currentUpdatedAt });
}
