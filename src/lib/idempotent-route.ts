import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { IdempotencyOptions } from "../services/idempotency/idempotency";

/**
 * The idempotency options of a request that sent an Idempotency-Key (already parsed by the route's
 * header schema), or undefined without one. `payload` is what makes two requests "the same".
 */
export function idempotencyOptions(
  c: Context<AppEnv>,
  key: string | undefined,
  payload: unknown,
): IdempotencyOptions | undefined {
  if (key === undefined) return undefined;
  return {
    key,
    payload,
    cache: c.env.IDEMPOTENCY,
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
  };
}

/** A replayed answer says so; a first answer carries no marker. */
export const replayHeaders = (replayed: boolean): Record<string, string> =>
  replayed ? { "Idempotent-Replayed": "true" } : {};
