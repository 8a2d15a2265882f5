/** npm run db:migrate: applies the committed migrations in drizzle/ to DATABASE_URL (or the embedded database). */
import { openScriptDatabase } from "./lib/database";

const { source, close } = await openScriptDatabase();
console.log(`migrations applied to ${source}`);
await close();
