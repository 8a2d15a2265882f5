import { createMiddleware } from "hono/factory";
import { createDatabase } from "../db/client";
import type { AppEnv } from "../env";

/** Per-request database handle: nothing that holds a connection outlives its request. */
export const database = createMiddleware<AppEnv>(async (c, next) => {
  c.set(
    "db",
    createDatabase(c.env, (promise) => c.executionCtx.waitUntil(promise)),
  );
  await next();
});
