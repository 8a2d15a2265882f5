import type { Bindings } from "../src/env";

declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
    interface Env extends Bindings {
      /** The local Neon endpoints' round-trip counters (test only). */
      TEST_STATS_URL: string;
      /** Requests of the mixed workload (test/load); empty for the default size. */
      LOAD_REQUESTS: string;
    }
  }
}
