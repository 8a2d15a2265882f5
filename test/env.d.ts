import type { Bindings } from "../src/env";

declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
    interface Env extends Bindings {
      /** The local Neon endpoints' round-trip counters (test only). */
      TEST_STATS_URL: string;
      /** Fault injection on the local Neon endpoints (test only, test/helpers/faults.ts). */
      TEST_FAULTS_URL: string;
      /** Requests of the mixed workload (test/load); empty for the default size. */
      LOAD_REQUESTS: string;
    }
  }
}
