import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";

/**
 * Hono hands only `Error` instances to the error handler and rethrows anything else out of the
 * Worker (a bare 500 from the runtime). The WebSocket driver rejects with an ErrorEvent when a
 * connection fails, so every thrown value is made an Error here, with the original as its cause.
 */
export const normalizeErrors = createMiddleware<AppEnv>(async (_c, next) => {
  try {
    await next();
  } catch (error) {
    if (error instanceof Error) throw error;
    const message =
      typeof (error as { message?: unknown })?.message === "string"
        ? (error as { message: string }).message
        : String(error);
    throw new Error(message, { cause: error });
  }
});
