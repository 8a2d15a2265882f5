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
  /**
   * Requests that one call of the binding stands for (1 when absent): the binding then counts
   * units, and its own limit is `limit / unit`. An isolate asks the binding on a key's first
   * request of each unit and gives the unit's other requests (within a second) the same verdict
   * (src/middleware/rate-limit.ts). Only for a tier whose limit is far above any unit: a key can
   * pass or exceed it by at most `unit - 1` requests per isolate and second.
   */
  unit?: number;
}

export const RATE_LIMIT_TIERS = {
  /** Every key unless told otherwise: 10 requests a second, sustained. */
  standard: { binding: "RATE_LIMIT_STANDARD", limit: 600, period: 60 },
  /** Busy integrations (a shop syncing its catalogue, nightly exports). */
  high: { binding: "RATE_LIMIT_HIGH", limit: 6_000, period: 60 },
  /**
   * Keys the operator runs load through: the dev server's and seed's demo keys, bench and the test
   * suite. High enough that no test or load run trips it, while every answer still states a policy.
   * Counted in units of 10 requests (the binding's limit is 100,000): a brake of a million requests
   * a minute needs no single-request precision, and the binding call is the largest per-request
   * cost of a cheap read under `npm run dev` (Miniflare emulates it with a SQLite Durable Object:
   * about 0.65 ms of the Worker process's CPU per call; README, "Rate limits").
   */
  bulk: { binding: "RATE_LIMIT_BULK", limit: 1_000_000, period: 60, unit: 10 },
} as const satisfies Record<string, RateLimitPolicy>;

export type RateLimitTier = keyof typeof RATE_LIMIT_TIERS;

/** The limit the tier's binding counts to: requests, or units of `unit` requests. */
export const bindingLimit = (policy: RateLimitPolicy): number => policy.limit / (policy.unit ?? 1);

export const DEFAULT_RATE_LIMIT_TIER: RateLimitTier = "standard";

/**
 * The tiers an operator may give a key (the apikey script's `--rate-limit`): the table's, never
 * one added by configuration (below).
 */
export const ASSIGNABLE_RATE_LIMIT_TIERS = Object.keys(RATE_LIMIT_TIERS) as RateLimitTier[];

export function isRateLimitTier(value: string): value is RateLimitTier {
  return Object.hasOwn(RATE_LIMIT_TIERS, value);
}

let extraFrom: string | undefined;
let extra: Readonly<Record<string, RateLimitPolicy>> = {};

/**
 * Tiers added by configuration rather than by this table: the Worker's `RATE_LIMIT_EXTRA_TIERS`
 * variable, a JSON object of tier name to `{ binding, limit, period, unit? }` (each binding declared
 * beside it). Production sets none; the test configuration (vitest.config.ts) adds the tiny tier
 * its rate-limit tests reach in a few requests. A name of the table always means the table's
 * tier, and an entry that is not a valid policy is left out (a key on it is let through, as for
 * any unknown tier). Parsed once per isolate and value.
 */
export function extraRateLimitTiers(
  json: string | undefined,
): Readonly<Record<string, RateLimitPolicy>> {
  if (!json) return {};
  if (json === extraFrom) return extra;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    parsed = undefined;
  }
  const tiers: Record<string, RateLimitPolicy> = {};
  if (typeof parsed === "object" && parsed !== null) {
    for (const [name, value] of Object.entries(parsed)) {
      const { binding, limit, period, unit } = (value ?? {}) as Partial<RateLimitPolicy>;
      const valid =
        !isRateLimitTier(name) &&
        typeof binding === "string" &&
        Number.isInteger(limit) &&
        (limit as number) > 0 &&
        (period === 10 || period === 60) &&
        (unit === undefined || (Number.isInteger(unit) && unit > 0));
      if (valid) {
        tiers[name] = {
          binding,
          limit: limit as number,
          period,
          ...(unit !== undefined && { unit }),
        };
      }
    }
  }
  extraFrom = json;
  extra = tiers;
  return extra;
}

/**
 * The policy of a stored tier: the table's, else one added by configuration (`extraTiers`, the
 * RATE_LIMIT_EXTRA_TIERS variable), else undefined for a name no longer (or not yet) known.
 */
export function rateLimitPolicy(tier: string, extraTiers?: string): RateLimitPolicy | undefined {
  if (isRateLimitTier(tier)) return RATE_LIMIT_TIERS[tier];
  return extraTiers ? extraRateLimitTiers(extraTiers)[tier] : undefined;
}
