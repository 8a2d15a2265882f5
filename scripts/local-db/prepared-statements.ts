// Which SQL-over-HTTP statements the local endpoint runs as named prepared statements.
//
// Every query Neon's HTTP driver sends is one text with $n parameters, and an application sends the
// same few texts over and over. Postgres parses and analyses an unnamed statement on every call; a
// named one is parsed once per connection (node-postgres then sends only Bind/Execute). A read is
// still planned on every run, for the run's values: the endpoint's read connections set
// plan_cache_mode=force_custom_plan, because the generic plan Postgres would otherwise switch to
// after five runs cannot see the values (it made E10 several times slower on the bench's data).
// Writes, keyed by their rows, run on connections with Postgres's default (neon-http-server.ts,
// poolFor).
//
// Bounded, because each prepared statement holds memory in its backend for the connection's life:
// - a text is named only from its second sighting, so one-off texts (a list with a filter nobody
//   repeats) never take a slot;
// - each connection prepares at most MAX_PER_CONNECTION texts; past that it runs the rest unnamed;
// - the sightings table is cleared when it reaches MAX_SIGHTINGS texts.
import { createHash } from "node:crypto";
import pg from "pg";

export const MAX_PER_CONNECTION = 100;
const MAX_SIGHTINGS = 2_000;

const seen = new Set<string>();
const prepared = new WeakMap<pg.ClientBase, Set<string>>();

/** The name to prepare `text` under on `client`, or undefined to run it unnamed. */
export function statementName(client: pg.ClientBase, text: string): string | undefined {
  const name = `n${createHash("sha1").update(text).digest("hex")}`;
  if (!seen.has(name)) {
    if (seen.size >= MAX_SIGHTINGS) seen.clear();
    seen.add(name);
    return undefined;
  }
  let names = prepared.get(client);
  if (!names) {
    names = new Set();
    prepared.set(client, names);
  }
  if (names.has(name)) return name;
  if (names.size >= MAX_PER_CONNECTION) return undefined;
  names.add(name);
  return name;
}

/**
 * A prepared SELECT whose result columns changed under it (a migration added a column to a table
 * it reads with *): Postgres refuses to run it again on that connection ("cached plan must not
 * change result type"). Nothing ran, so the request can be retried on a fresh connection.
 */
export function isStalePreparedStatement(err: unknown): boolean {
  return (
    err instanceof pg.DatabaseError &&
    err.code === "0A000" &&
    /cached plan must not change result type/.test(err.message)
  );
}
