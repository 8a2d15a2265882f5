import { createMiddleware } from "hono/factory";
import { createDatabase } from "../db/client";
import type { AppEnv } from "../env";

/**
 * Per-request database handle: nothing that holds a connection outlives its request (the HTTP
 * handle it shares between requests holds none; a transaction's session is its own).
 */
export const database = createMiddleware<AppEnv>(async (c, next) => {
  c.set(
    "db",
    createDatabase(c.env, (promise) => c.executionCtx.waitUntil(promise)),
  );
  await next();
});
