/** npm run dev: the whole local stack in one command; see USAGE. */
import { parseCommandLine, runCommand, UsageError } from "./lib/cli";
import { checkDevCanStart } from "./lib/dev-start";

const USAGE = `usage: npm run dev
       PORT=8788 npm run dev      (another port for the API)

Starts the whole local stack: an embedded PostgreSQL (kept in DATA_DIR), Neon's SQL-over-HTTP
endpoint and WebSocket relay in front of it, the migrations, demo data on first start (a fresh
demo API key on every start, replacing dev's previous one; npm run seed's key keeps working), and
wrangler dev on http://127.0.0.1:PORT/api. Ctrl-C stops it all.

Environment:
  PORT          the API's port (8787); refused before anything starts when something listens
                there, with a port that is free suggested instead
  DATA_DIR      local state: database, KV, the running stack's address (.data)
  DATABASE_URL  a Postgres server to use instead of the embedded one
  DB_PORT       the embedded PostgreSQL's port (a free one)
  MINIFLARE_WORKERD_V8_FLAGS
                V8 flags for workerd ("--max-semi-space-size=1 --initial-old-space-size=4":
                early garbage collection, which keeps workerd's memory flat under load)
  X_LOCAL_OBSERVABILITY
                true: keep Miniflare's local trace store (off: it grows without bound)`;

const { port, dbPort } = parseCommandLine(USAGE, (args) => {
  if (args.length > 0) throw new UsageError(`dev takes no arguments, got "${args[0]}"`);
  const port = Number(process.env.PORT ?? 8787);
  const dbPort = Number(process.env.DB_PORT ?? 0);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new UsageError(`PORT must be a port number (1-65535), got "${process.env.PORT}"`);
  if (!Number.isInteger(dbPort) || dbPort < 0 || dbPort > 65535)
    throw new UsageError(`DB_PORT must be a port number (1-65535), got "${process.env.DB_PORT}"`);
  return { port, dbPort };
});

runCommand(
  "[dev] failed",
  async () => {
    // The port first, before the stack's modules load: a port that is taken is refused in about a
    // second, not after the several seconds those take.
    await checkDevCanStart(port);
    // Loaded once the command line is checked, so --help and mistakes answer at once.
    const { runDev } = await import("./lib/run-dev");
    return runDev(port, dbPort);
  },
  { stopping: "[dev] stopping...", stopped: "[dev] stopped" },
);
