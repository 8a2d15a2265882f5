import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

/**
 * Two projects:
 * - `worker`: the Worker runs inside workerd (Cloudflare's vitest plugin) against a real Postgres:
 *   test/global-setup.ts starts the database (TEST_DATABASE_URL's server, or the embedded one), the
 *   local Neon endpoints and the migrations, and provides their addresses as the Worker's bindings.
 * - `node`: tests of what runs in Node (the scripts, the local database stand-ins, the docs page in
 *   a real browser), under test/node/.
 */
/**
 * The tests' own rate-limit tier, added through RATE_LIMIT_EXTRA_TIERS (the production tier table,
 * src/services/auth/rate-limit-tiers.ts, does not know it): a limit a test reaches in a few
 * requests, with its binding. Every other key the tests make is on the "bulk" tier.
 */
const TEST_TINY_TIER = { binding: "RATE_LIMIT_TEST_TINY", limit: 3, period: 10 } as const;
/** A tier counted in units (as bulk is): 6 requests per 10 s, the binding counting 2 units of 3. */
const TEST_UNITS_TIER = {
  binding: "RATE_LIMIT_TEST_UNITS",
  limit: 6,
  period: 10,
  unit: 3,
} as const;

export default defineConfig({
  test: {
    // Round-trip budgets are read from counters shared by the whole run: one file at a time.
    fileParallelism: false,
    // Console output (e.g. the Worker's warnings in the database-outage tests) of failing tests only.
    silent: "passed-only",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                DATABASE_URL: inject("databaseUrl"),
                NEON_HTTP_ENDPOINT: inject("neonHttpEndpoint"),
                NEON_WS_PROXY: inject("neonWsProxy"),
                TEST_STATS_URL: inject("statsUrl"),
                TEST_FAULTS_URL: inject("faultsUrl"),
                // The size of test/load's mixed workload (LOAD_REQUESTS=5000 for a larger run).
                LOAD_REQUESTS: process.env.LOAD_REQUESTS ?? "",
                // A fixed test key for sealed integration tokens (never a production key).
                INTEGRATIONS_KEY: "dGVzdC1pbnRlZ3JhdGlvbnMta2V5LTMyLWJ5dGVzISE=",
                // Cases per property of test/fuzz (its default when empty).
                FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
                FUZZ_SEED: process.env.FUZZ_SEED ?? "",
                RATE_LIMIT_EXTRA_TIERS: JSON.stringify({
                  "test-tiny": TEST_TINY_TIER,
                  "test-units": TEST_UNITS_TIER,
                }),
              },
              ratelimits: {
                [TEST_TINY_TIER.binding]: {
                  namespace_id: "1999",
                  simple: { limit: TEST_TINY_TIER.limit, period: TEST_TINY_TIER.period },
                },
                [TEST_UNITS_TIER.binding]: {
                  namespace_id: "1998",
                  simple: {
                    limit: TEST_UNITS_TIER.limit / TEST_UNITS_TIER.unit,
                    period: TEST_UNITS_TIER.period,
                  },
                },
              },
            },
          })),
        ],
        test: {
          name: "worker",
          include: ["test/**/*.test.ts"],
          exclude: ["test/node/**"],
          globalSetup: ["./test/global-setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "node",
          include: ["test/node/**/*.test.ts"],
          environment: "node",
          // The commands run as child processes (tsx), each a few seconds on a busy machine.
          testTimeout: 120_000,
        },
      },
    ],
  },
});
