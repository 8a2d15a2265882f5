/** npm run db:migrate: applies the committed migrations in drizzle/ and says which it applied. */
import { parseCommandLine, runCommand, UsageError } from "./lib/cli";
import { MIGRATIONS_DIR } from "./lib/paths";

const USAGE = `usage: npm run db:migrate

Applies the migrations committed in drizzle/ that the database lacks, and lists them (or says
that none was pending). The database: DATABASE_URL when set, else the embedded PostgreSQL in
DATA_DIR (.data), through the running npm run dev when it is up.`;

parseCommandLine(USAGE, (args) => {
  if (args.length > 0) throw new UsageError(`db:migrate takes no arguments, got "${args[0]}"`);
});

runCommand("db:migrate", async () => {
  // Loaded once the command line is checked, so --help and mistakes answer at once.
  const { applyMigrations } = await import("../local-db");
  const { resolveDatabase } = await import("./lib/database");
  const log = (line: string) => console.error(`db:migrate: ${line}`);
  const { connectionString, source } = await resolveDatabase(log);
  const applied = await applyMigrations(connectionString, MIGRATIONS_DIR);
  if (applied.length === 0) console.log(`db:migrate: nothing pending on ${source}`);
  else console.log(`db:migrate: applied ${applied.join(", ")} to ${source}`);
  return 0;
});
