/**
 * The local Neon stand-ins (SQL over HTTP, WebSocket relay) in a process of their own, so that the
 * CPU they spend proxying the Worker's queries is not taken from the load generator's event loop
 * (nor counted as the Worker's). Prints one JSON line with the endpoints, then serves until killed.
 */
import { startNeonLocal } from "../local-db";

const neon = await startNeonLocal({});
console.log(
  JSON.stringify({
    httpEndpoint: neon.httpEndpoint,
    wsProxy: neon.wsProxy,
    statsUrl: neon.statsUrl,
  }),
);
const stop = () => void neon.close().finally(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
