/**
 * Rate-limit tiers. A Workers rate limiting binding has one fixed limit per namespace, so a key's
 * limit is chosen by naming a tier: each tier is one `[[ratelimits]]` binding in wrangler.toml, and
 * the key's `rate_limit_tier` column (api_keys) says which one counts its requests. The numbers
 * here restate the bindings' `simple` settings (the binding cannot be asked for them) so that the
 * RateLimit-Policy header can state them; test/node/rate-limit-tiers.test.ts keeps the two equal.
 *
 * Framework-free: the Worker, the apikey script and the seed all read this table.
 */

export interface RateLimitPolicy {
  /** The binding in the Worker's env (wrangler.toml `[[ratelimits]] name`). */
  binding: string;
  /** Requests allowed per window, per key and Cloudflare location. */
  limit: number;
  /** Window in seconds: Cloudflare accepts only 10 or 60. */
  period: 10 | 60;
}

export const RATE_LIMIT_TIERS = {
  /** Every key unless told otherwise: 10 requests a second, sustained. */
  standard: { binding: "RATE_LIMIT_STANDARD", limit: 600, period: 60 },
  /** Busy integrations (a shop syncing its catalogue, nightly exports). */
  high: { binding: "RATE_LIMIT_HIGH", limit: 6_000, period: 60 },
  /**
   * Keys the operator runs load through: the dev server's and seed's demo keys, bench and the test
   * suite. High enough that no test or load run trips it, while every answer still states a policy.
   */
  bulk: { binding: "RATE_LIMIT_BULK", limit: 1_000_000, period: 60 },
  /**
   * Bound only by the test configuration (vitest.config.ts), so a test reaches a limit in a few
   * requests. The apikey script does not offer it; in production its binding is absent and a key
   * on it would be let through (see the middleware's fail-open rule).
   */
  "test-tiny": { binding: "RATE_LIMIT_TEST_TINY", limit: 3, period: 10 },
} as const satisfies Record<string, RateLimitPolicy>;

export type RateLimitTier = keyof typeof RATE_LIMIT_TIERS;

export const DEFAULT_RATE_LIMIT_TIER: RateLimitTier = "standard";

/** The tiers an operator may give a key (the apikey script's `--rate-limit`). */
export const ASSIGNABLE_RATE_LIMIT_TIERS = (
  Object.keys(RATE_LIMIT_TIERS) as RateLimitTier[]
).filter((tier) => tier !== "test-tiny");

export function isRateLimitTier(value: string): value is RateLimitTier {
  return Object.hasOwn(RATE_LIMIT_TIERS, value);
}

/** The policy of a stored tier, or undefined for a name no longer (or not yet) in the table. */
export function rateLimitPolicy(tier: string): RateLimitPolicy | undefined {
  return isRateLimitTier(tier) ? RATE_LIMIT_TIERS[tier] : undefined;
}
