/**
 * How long a session of the local stand-ins (the SQL endpoint's pooled sessions, the WebSocket
 * relay's) may sit idle inside a transaction before Postgres ends it. Neither ever waits between
 * its statements but for its client's next one; a session that does has lost its client without
 * Postgres being told (a network split swallowed the close) and holds its row locks until then:
 * an outside audit saw every later E1 on those rows wait 30 s and answer 503 until a
 * pg_terminate_backend.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT = "10s";

/** The `options` start-up parameter that applies it. */
export const IDLE_IN_TRANSACTION_OPTION = `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT}`;
