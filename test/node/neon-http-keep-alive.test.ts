// The SQL-over-HTTP endpoint leaves closing an idle keep-alive connection to its client. workerd
// closes a pooled connection after about 10 s idle, Node's server (its default) after 6 s: a
// Worker's fetch could go out on a connection the endpoint was closing at that instant and fail
// with "Network connection lost", a 503 while the database was up.
import { Agent, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NeonLocal, startNeonLocal } from "../../scripts/local-db";

/** workerd's idle timeout for the connections its fetch pools, as measured (neon-http-server.ts). */
const WORKERD_IDLE_MS = 10_000;

let neon: NeonLocal;
beforeAll(async () => {
  neon = await startNeonLocal({});
});
afterAll(async () => {
  await neon?.close();
});

/** One request on `agent`: its status and whether it went out on a connection already used. */
function send(agent: Agent): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(neon.httpEndpoint, { method: "GET", agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the SQL-over-HTTP endpoint's keep-alive", () => {
  it("keeps an idle connection open past workerd's own idle timeout, so that workerd closes it", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await send(agent)).toEqual({ status: 405, reused: false });
      await new Promise((resolve) => setTimeout(resolve, WORKERD_IDLE_MS + 500));
      // With Node's default the endpoint had closed it at 6 s: the agent would open a new one.
      expect(await send(agent)).toEqual({ status: 405, reused: true });
    } finally {
      agent.destroy();
    }
  }, 30_000);
});
