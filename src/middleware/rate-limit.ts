import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { RateLimitedError } from "../lib/errors";
import { type RateLimitPolicy, rateLimitPolicy } from "../services/auth/rate-limit-tiers";

/**
 * Counts the request against its API key's tier (after requireApiKey: it needs the principal) with
 * the tier's Workers rate limiting binding: one binding call (one per unit of requests on a tier
 * with a `unit`, see verdictFor), no database round trip (the tier came with the cached key
 * lookup). The limiter key is the API key's id, never the secret, so two keys of one winery have
 * separate budgets.
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
    success = await verdictFor(binding, policy, apiKeyId);
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

/** How long an isolate gives a unit's verdict to the unit's later requests of the same key. */
export const UNIT_VERDICT_MS = 1_000;
/** Keys with a unit under way, at most (past it the map starts afresh: at worst a few re-asks). */
const MAX_UNITS = 10_000;

interface Unit {
  /** The unit's requests still to come, after the one that asked the binding. */
  left: number;
  /**
   * The binding's verdict for the unit; while its call is under way, the previous unit's (allowed
   * for a key's first). A plain value, never the call's promise: workerd lets no request await an
   * I/O promise of another request.
   */
  allowed: boolean;
  until: number;
}
const units = new Map<string, Unit>();

/**
 * Whether the binding lets this request of `apiKeyId` through. A tier with a `unit` > 1 asks the
 * binding on the first request of each unit of a key, and the unit's next `unit - 1` requests in
 * this isolate get that verdict (allowed or refused; the previous unit's while the call is under
 * way), if they come within UNIT_VERDICT_MS. A unit that ends early (the key slowed down) was
 * still counted whole, so a slow key is over-counted; a key passes its limit by at most
 * `unit - 1` requests per isolate. A binding that throws leaves no unit behind: the next request
 * asks again.
 */
async function verdictFor(
  binding: RateLimit,
  policy: RateLimitPolicy,
  apiKeyId: string,
): Promise<boolean> {
  const unit = policy.unit ?? 1;
  if (unit <= 1) return (await binding.limit({ key: apiKeyId })).success;
  const id = `${policy.binding}:${apiKeyId}`;
  const now = Date.now();
  const held = units.get(id);
  if (held && held.left > 0 && now < held.until) {
    held.left--;
    return held.allowed;
  }
  if (units.size >= MAX_UNITS) units.clear();
  const fresh: Unit = {
    left: unit - 1,
    allowed: held?.allowed ?? true,
    until: now + UNIT_VERDICT_MS,
  };
  units.set(id, fresh);
  try {
    fresh.allowed = (await binding.limit({ key: apiKeyId })).success;
  } catch (error) {
    if (units.get(id) === fresh) units.delete(id);
    throw error;
  }
  return fresh.allowed;
}

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
