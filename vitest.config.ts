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
              },
              // The test-only tier (rate-limit-tiers.ts "test-tiny"): a limit a test reaches in a
              // few requests. Every other key the tests make is on the "bulk" tier.
              ratelimits: {
                RATE_LIMIT_TEST_TINY: { namespace_id: "1999", simple: { limit: 3, period: 10 } },
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
