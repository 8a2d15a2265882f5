import type { Database } from "./db/client";

export interface Bindings {
  /** Postgres connection string (a Neon database in production; a secret). */
  DATABASE_URL: string;
  /** Completed order-import responses, cached for fast idempotent replay. */
  IDEMPOTENCY: KVNamespace;
  /** Local only: Neon's SQL-over-HTTP endpoint served by scripts/local-db (unset on Cloudflare). */
  NEON_HTTP_ENDPOINT?: string;
  /** Local only: host:port of the WebSocket-to-TCP relay in Neon's proxy URL shape. */
  NEON_WS_PROXY?: string;
}

export interface Principal {
  wineryId: string;
  apiKeyId: string;
}

export interface Variables {
  requestId: string;
  db: Database;
  principal: Principal;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
