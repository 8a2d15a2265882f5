import { timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * Millisecond precision on purpose: JavaScript dates carry milliseconds, so a timestamp read by a
 * client and sent back (an optimistic-lock token, a keyset cursor) must compare equal in Postgres.
 */
export const timestampMs = () => timestamp({ withTimezone: true, precision: 3, mode: "date" });

export const timestamps = {
  createdAt: timestampMs().notNull().defaultNow(),
  updatedAt: timestampMs().notNull().defaultNow(),
};

export const idColumn = () => uuid().primaryKey().defaultRandom();
