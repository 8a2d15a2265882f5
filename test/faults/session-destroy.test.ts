// A transaction's WebSocket session destroyed (a deadline, a failed liveness check) in the same
// turn as a write: the driver sends coalesced writes from a timer, which must not find the closed
// WebSocket (workerd throws there, outside any request's handling: an uncaught exception).
import { env } from "cloudflare:workers";
import { Client } from "@neondatabase/serverless";
import { expect, it } from "vitest";
import { createDatabase, destroySocket } from "../../src/db/client";

it("a session destroyed right after a write sends nothing on its closed WebSocket", async () => {
  createDatabase(env, () => {}); // points the driver at the local endpoints, as a request does
  const client = new Client({ connectionString: env.DATABASE_URL });
  client.on("error", () => {});
  await client.connect();
  // What the driver does with its WebSocket, watched: a send after close is what workerd throws on.
  const ws = (client.connection.stream as unknown as { ws: WebSocket }).ws;
  const calls: string[] = [];
  const [send, close] = [ws.send.bind(ws), ws.close.bind(ws)];
  ws.send = (data) => {
    calls.push("send");
    if (!calls.includes("close")) send(data);
  };
  ws.close = (...args) => {
    calls.push("close");
    close(...args);
  };
  const query = client.query("select 1").then(
    () => "answered",
    () => "failed",
  );
  destroySocket(client); // the query's bytes still wait for the driver's timer
  expect(await query).toBe("failed");
  await new Promise((resolve) => setTimeout(resolve, 50)); // the timer has run
  expect(calls).toEqual(["close"]);
});
