import { createApp } from "./app";
import { createDatabase } from "./db/client";
import type { Bindings } from "./env";
import { purgeExpiredIdempotencyKeys } from "./services/idempotency/idempotency";

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron Trigger (wrangler.toml): idempotency records past their 24-hour retention are purged. */
  async scheduled(_controller, env, ctx) {
    const db = createDatabase(env, (promise) => ctx.waitUntil(promise));
    const purged = await purgeExpiredIdempotencyKeys(db.http);
    console.log(JSON.stringify({ level: "info", job: "purge-idempotency-keys", purged }));
  },
} satisfies ExportedHandler<Bindings>;
