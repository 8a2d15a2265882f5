import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { RateLimitedError } from "../lib/errors";
import { type RateLimitPolicy, rateLimitPolicy } from "../services/auth/rate-limit-tiers";

/**
 * Counts the request against its API key's tier (after requireApiKey: it needs the principal) with
 * the tier's Workers rate limiting binding: one binding call, no database round trip (the tier came
 * with the cached key lookup). The limiter key is the API key's id, never the secret, so two keys
 * of one winery have separate budgets.
 *
 * Headers, set on the context so that every later answer carries them (problems, replays, streamed
 * exports), following draft-ietf-httpapi-ratelimit-headers:
 * - `RateLimit-Policy: "<tier>";q=<limit>;w=<period>` on every answer: the policy is known.
 * - `RateLimit: "<tier>";r=0;t=<period>` only on a 429. The binding answers only allowed or not, so
 *   the remaining count is known only when it is 0; and since its window is at most `period`
 *   seconds long, `t` and `Retry-After` give that as the (upper-bound) wait.
 *
 * Fail open: a tier missing from the table, a binding missing from the Worker or a binding that
 * throws lets the request through without RateLimit headers, with one warning per isolate and
 * cause. Refusing every request because the limiter is misconfigured would turn a configuration
 * slip into an outage; the warning makes it visible in the logs.
 */
export const rateLimitByKey = createMiddleware<AppEnv>(async (c, next) => {
  const { apiKeyId, rateLimitTier } = c.get("principal");
  const policy = rateLimitPolicy(rateLimitTier, c.env.RATE_LIMIT_EXTRA_TIERS);
  const binding = policy && bindingOf(c.env, policy);
  if (!policy || !binding) {
    warnOnce(policy ? `binding ${policy.binding} missing` : `unknown tier "${rateLimitTier}"`);
    return next();
  }

  let success: boolean;
  try {
    ({ success } = await binding.limit({ key: apiKeyId }));
  } catch (error) {
    warnOnce(`binding ${policy.binding} failed`, error);
    return next();
  }
  c.header("RateLimit-Policy", `"${rateLimitTier}";q=${policy.limit};w=${policy.period}`);
  if (!success) {
    c.header("RateLimit", `"${rateLimitTier}";r=0;t=${policy.period}`);
    throw new RateLimitedError(policy.period);
  }
  await next();
});

function bindingOf(env: AppEnv["Bindings"], policy: RateLimitPolicy): RateLimit | undefined {
  const candidate = (env as unknown as Record<string, unknown>)[policy.binding];
  return typeof (candidate as RateLimit | undefined)?.limit === "function"
    ? (candidate as RateLimit)
    : undefined;
}

const warned = new Set<string>();

function warnOnce(cause: string, error?: unknown) {
  if (warned.has(cause)) return;
  warned.add(cause);
  console.warn(
    JSON.stringify({
      level: "warn",
      message: `rate limiting skipped (fail open): ${cause}`,
      ...(error !== undefined && { error: String(error) }),
    }),
  );
}
