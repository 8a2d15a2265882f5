import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import { NeonHttpDatabase } from "drizzle-orm/neon-http";
import type { HttpDb } from "./client";
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
