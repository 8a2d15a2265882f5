import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { ForbiddenError } from "./errors";

/**
 * A wineryId that arrives in a path, query or body must be the API key's winery (403 otherwise,
 * naming where it was: `path`). Absent is fine: the key's winery applies. Every query filters by
 * the key's winery regardless, so this check only turns a foreign id into a clear 403 instead of
 * an empty answer.
 */
export function assertOwnWinery(
  c: Context<AppEnv>,
  wineryId: string | null | undefined,
  path = "wineryId",
): void {
  if (wineryId == null) return;
  if (wineryId.toLowerCase() !== c.get("principal").wineryId.toLowerCase()) {
    throw new ForbiddenError(path);
  }
}

/**
 * Any uuid's spelling (8-4-4-4-12 hex digits, any case): zod's own pattern for z.guid(), which the
 * `Uuid` fields use, so a string these fields would accept is never left to them unchecked.
 */
export const isUuidShaped = (value: string) => z.regexes.guid.test(value);
