import type { HttpDb } from "../../src/db/client";
import { testDatabase } from "./db";

/** A promise's outcome as Promise.allSettled gives it. */
export const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ status: "fulfilled" as const, value }),
    (reason: unknown) => ({ status: "rejected" as const, reason }),
  );

/**
 * An HttpDb for rawQuery and rawBatch whose batches run `before` first: a write landing between a
 * read-then-batch call's read and its batch (slot-versions.ts). `batches`: how many were sent.
 */
export function racedBy(before: () => Promise<void>): { db: HttpDb; batches: () => number } {
  const http = testDatabase().http as HttpDb & { $client: Record<string, unknown> };
  const client = http.$client as unknown as {
    query: (...args: unknown[]) => unknown;
    transaction: (...args: unknown[]) => Promise<unknown>;
  };
  let batches = 0;
  const raced = {
    query: client.query.bind(client),
    transaction: async (...args: unknown[]) => {
      batches++;
      await before();
      return client.transaction(...args);
    },
  };
  return { db: { $client: raced } as unknown as HttpDb, batches: () => batches };
}
