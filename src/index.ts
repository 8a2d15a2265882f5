import { createApp } from "./app";
import { createDatabase } from "./db/client";
import type { Bindings } from "./env";
import { toProblem } from "./lib/problem";
import { requestIdFor } from "./middleware/request-id";
import { purgeExpiredIdempotencyKeys } from "./services/idempotency/idempotency";

const app = createApp();

export default {
  async fetch(request, env, ctx) {
    try {
      return await app.fetch(request, env, ctx);
    } catch (error) {
      // Last resort: the app's error handler itself failed. Still problem+json, never a stack.
      const requestId = requestIdFor(request.headers.get("X-Request-Id") ?? undefined);
      const problem = toProblem(error, requestId);
      return new Response(JSON.stringify(problem.body), {
        status: problem.status,
        headers: { ...problem.headers, "X-Request-Id": requestId },
      });
    }
  },
  /** Cron Trigger (wrangler.toml): idempotency records past their 24-hour retention are purged. */
  async scheduled(_controller, env, ctx) {
    const db = createDatabase(env, (promise) => ctx.waitUntil(promise));
    const purged = await purgeExpiredIdempotencyKeys(db.http);
    console.log(JSON.stringify({ level: "info", job: "purge-idempotency-keys", purged }));
  },
} satisfies ExportedHandler<Bindings>;
