import type { Bindings } from "../src/env";

declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
    interface Env extends Bindings {
      /** The local Neon endpoints' round-trip counters (test only). */
      TEST_STATS_URL: string;
      /** Cases per property of test/fuzz (FUZZ_RUNS=2000 for a long run); empty for the default. */
      FUZZ_RUNS: string;
      /** Another seed for test/fuzz (42 when empty). */
      FUZZ_SEED: string;
    }
  }
}
