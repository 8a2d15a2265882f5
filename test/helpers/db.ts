import { env } from "cloudflare:workers";
import { createDatabase } from "../../src/db/client";

/** The test's own handle on the same database the Worker uses, through the same driver. */
export function testDb() {
  return createDatabase(env, (promise) => {
    void promise;
  }).http;
}
