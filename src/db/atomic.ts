import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import { NeonHttpDatabase } from "drizzle-orm/neon-http";
import type { HttpDb } from "./client";
import { isTransactionConflict } from "./errors";
import type { AnyDb } from "./types";

type Statements = readonly [BatchItem<"pg">, ...BatchItem<"pg">[]];

/**
 * The one way to write atomically when the statements do not depend on each other's results
 * (a later statement may still find an earlier one's rows through a subquery on their key):
 * - on the Neon HTTP driver, one `batch`: one round trip, one transaction;
 * - on any other handle (an interactive transaction, a script's node-postgres database), the same
 *   statements one after the other inside a transaction (a savepoint when already in one).
 * `build` receives the handle the statements must be built on. Writes whose later statements need
 * an earlier one's result use `Database.transaction` instead.
 */
export async function runAtomically<T extends Statements>(
  db: AnyDb,
  build: (db: AnyDb) => T,
): Promise<BatchResponse<T>> {
  if (db instanceof NeonHttpDatabase) {
    const http = db as HttpDb;
    return http.batch(build(http)) as Promise<BatchResponse<T>>;
  }
  return db.transaction(async (tx) => {
    const results: unknown[] = [];
    for (const statement of build(tx)) results.push(await statement);
    return results as BatchResponse<T>;
  });
}

/**
 * The rows of an `execute` result in a batch or transaction: the Neon HTTP driver's batch answers
 * the rows array itself, node-postgres and a transaction's execute a result holding `rows`.
 */
export function rowsOf<R>(result: unknown): R[] {
  return Array.isArray(result) ? (result as R[]) : (result as { rows: R[] }).rows;
}

/** Attempts of a transaction that Postgres aborted to break a deadlock (retryOnDeadlock). */
export const DEADLOCK_ATTEMPTS = 3;

/**
 * `work` (one transaction: an HTTP batch or an interactive one), run again when Postgres aborted it
 * to break a deadlock (isTransactionConflict), up to DEADLOCK_ATTEMPTS runs in all: the aborted run
 * wrote nothing, and by the time it is told, the transaction it waited on has its locks and goes
 * on, so the next run queues behind it instead. The routes take their locks in one order
 * (experience before reservation before slot) so that this is a safety net, not a habit.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= DEADLOCK_ATTEMPTS || !isTransactionConflict(error)) throw error;
    }
  }
}
