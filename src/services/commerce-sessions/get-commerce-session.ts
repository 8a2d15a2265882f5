import type { HttpDb } from "../../db/client";
import { rawQuery } from "../../db/raw-batch";
import { NotFoundError } from "../../lib/errors";
import type { CommerceSession } from "../../schemas/commerce-sessions";
import { SESSION_DOCUMENT } from "./session-record";

/** The session `$2` of the winery `$1` as E3 answers it, built by Postgres (SESSION_DOCUMENT). */
const SESSION_BY_ID_SQL = `select ${SESSION_DOCUMENT} as session
from commerce_sessions s where s.winery_id = $1 and s.id = $2`;

/**
 * GET /v2/commerce/sessions/{id}: one round trip, one statement of fixed text, the document E3
 * answers (no relational query rendered by drizzle, no row mapping, on every call). Another
 * winery's session is NOT_FOUND, like a missing one.
 */
export async function getCommerceSession(
  db: HttpDb,
  wineryId: string,
  sessionId: string,
): Promise<CommerceSession> {
  const [row] = await rawQuery(db, SESSION_BY_ID_SQL, [wineryId, sessionId]);
  if (!row) throw new NotFoundError("Commerce session", sessionId);
  return row.session as CommerceSession;
}
