import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

/**
 * The tests run the Worker inside workerd (Cloudflare's vitest plugin) against a real Postgres:
 * test/global-setup.ts starts the database (TEST_DATABASE_URL's server, or in-memory PGlite), the
 * local Neon endpoints and the migrations, and provides their addresses as the Worker's bindings.
 */
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          DATABASE_URL: inject("databaseUrl"),
          NEON_HTTP_ENDPOINT: inject("neonHttpEndpoint"),
          NEON_WS_PROXY: inject("neonWsProxy"),
          TEST_STATS_URL: inject("statsUrl"),
        },
      },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["./test/global-setup.ts"],
    // Round-trip budgets are read from counters shared by the whole run: one file at a time.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
