import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { authenticate } from "../services/auth/authenticate";

/** `APIKey` header -> the key's winery. Missing, unknown and revoked keys get the same 401. */
export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  c.set("principal", await authenticate(c.get("db").http, c.req.header("APIKey")));
  await next();
});
