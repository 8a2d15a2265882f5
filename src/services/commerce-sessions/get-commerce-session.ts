import type { HttpDb } from "../../db/client";
import { NotFoundError } from "../../lib/errors";
import type { CommerceSession } from "../../schemas/commerce-sessions";
import { findSessionQuery, toCommerceSession } from "./session-record";

/** GET /v2/commerce/sessions/{id}: one round trip; another winery's session is NOT_FOUND. */
export async function getCommerceSession(
  db: HttpDb,
  wineryId: string,
  sessionId: string,
): Promise<CommerceSession> {
  const row = await findSessionQuery(db, wineryId, sessionId);
  if (!row) throw new NotFoundError("Commerce session", sessionId);
  return toCommerceSession(row);
}
