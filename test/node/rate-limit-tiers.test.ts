// The tier table restates the [[ratelimits]] bindings' numbers (the binding cannot be asked for
// them): the RateLimit-Policy header is true only while both say the same.

import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import {
  ASSIGNABLE_RATE_LIMIT_TIERS,
  bindingLimit,
  RATE_LIMIT_TIERS,
  type RateLimitPolicy,
} from "../../src/services/auth/rate-limit-tiers";

interface Binding {
  name: string;
  namespace_id: string;
  simple: { limit: number; period: number };
}

describe("rate-limit tiers and wrangler.toml", () => {
  const bindings = unstable_readConfig({ config: "wrangler.toml" }).ratelimits;

  it("binds every assignable tier with the limit (in units) and period of the table", () => {
    const declared = Object.fromEntries(bindings.map((b: Binding) => [b.name, b.simple]));
    for (const tier of ASSIGNABLE_RATE_LIMIT_TIERS) {
      const policy: RateLimitPolicy = RATE_LIMIT_TIERS[tier];
      const { binding, limit, period, unit = 1 } = policy;
      expect(limit % unit, `${tier}: a whole number of units`).toBe(0);
      expect(declared[binding], tier).toEqual({ limit: bindingLimit(policy), period });
    }
    expect(bindings).toHaveLength(ASSIGNABLE_RATE_LIMIT_TIERS.length);
  });

  it("gives each binding its own namespace (a shared one would share counters)", () => {
    const namespaces = bindings.map((b: Binding) => b.namespace_id);
    expect(new Set(namespaces).size).toBe(namespaces.length);
  });
});
