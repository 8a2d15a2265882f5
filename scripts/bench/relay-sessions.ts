/**
 * The local WebSocket relay alone, in Node: CLIENTS concurrent loops (default 50) for DURATION_S
 * seconds (default 10), each opening a session through the relay as a transaction of the Worker does
 * (Neon's `Client`: connect, begin, select 1, commit, end). Prints sessions per second and their
 * latency. On DATABASE_URL (else TEST_DATABASE_URL, else a throwaway embedded PostgreSQL).
 * Run: `npx tsx scripts/bench/relay-sessions.ts` (session 19, machine's PostgreSQL, 2 CPUs:
 * before the relay pooled its connections 43 sessions/s at 50 clients, p50 1.24 s, p99 1.64 s;
 * pooled 448/s, p50 107 ms, p99 330 ms; at 10 clients 37/s against 480/s).
 */
import { Client } from "@neondatabase/serverless";
import { WebSocket } from "ws";
import { startEmbeddedPostgres, startNeonLocal, useNeonLocal } from "../local-db";

const clients = Number(process.env.CLIENTS ?? 50);
const seconds = Number(process.env.DURATION_S ?? 10);
const serverUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const embedded = serverUrl ? undefined : await startEmbeddedPostgres();
const connectionString = serverUrl ?? (embedded?.connectionString as string);
const neon = await startNeonLocal({});
useNeonLocal(neon, WebSocket);

let failed = 0;
const latencies: number[] = [];
const until = Date.now() + seconds * 1000;
async function loop(): Promise<void> {
  while (Date.now() < until) {
    const started = performance.now();
    const client = new Client({ connectionString });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.query("begin");
      await client.query("select 1");
      await client.query("commit");
      await client.end();
      latencies.push(performance.now() - started);
    } catch {
      failed++;
    }
  }
}
try {
  console.log(`[relay] ${clients} clients for ${seconds} s`);
  await Promise.all(Array.from({ length: clients }, loop));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies[Math.floor(latencies.length * q)] ?? 0).toFixed(1);
  console.log(
    `[relay] ${(latencies.length / seconds).toFixed(1)} sessions/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, ${failed} failed`,
  );
} finally {
  await neon.close();
  await embedded?.close();
}
