import { index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { idColumn, timestampMs } from "./columns";
import { wineries } from "./wineries";

/**
 * API keys are stored only as SHA-256 hashes. `prefix` is the short random part shown in listings
 * and used to find the row; the hash is then compared in constant time.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: idColumn(),
    wineryId: uuid()
      .notNull()
      .references(() => wineries.id),
    prefix: text().notNull().unique(),
    keyHash: text().notNull(),
    name: text().notNull(),
    /**
     * Which rate-limit tier counts this key's requests (src/services/auth/rate-limit-tiers.ts).
     * Plain text, not an enum: tiers are deploy configuration (one binding each), and adding one
     * must not need a migration. New keys get the default tier, "standard".
     */
    rateLimitTier: text().notNull().default("standard"),
    createdAt: timestampMs().notNull().defaultNow(),
    revokedAt: timestampMs(),
  },
  (t) => [index().on(t.wineryId)],
);
