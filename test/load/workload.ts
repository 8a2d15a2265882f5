import { env } from "cloudflare:workers";
import { type ApiRequest, api } from "../helpers/api";
import type { TestTenant } from "../helpers/factories";

/**
 * The pieces of a bounded, deterministic mixed workload: a seeded random source, a pool that keeps
 * a fixed number of client operations in flight, and the scenario shape every part of the workload
 * (imports, updates, sessions, slots, coupons, and refunds once reservations land) follows.
 */

/** Requests of the default run; LOAD_REQUESTS=5000 npx vitest ... runs a larger one. */
export const LOAD_REQUESTS = Number(env.LOAD_REQUESTS) || 400;
/** Client operations in flight at once. */
export const CONCURRENCY = 50;

/** mulberry32: the same seed gives the same workload (sizes, choices, order) on every run. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(values: readonly T[]): T => values[int(0, values.length - 1)] as T;
  const shuffle = <T>(values: T[]): T[] => {
    const out = [...values];
    for (let i = out.length - 1; i > 0; i--) {
      const j = int(0, i);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  };
  return { next, int, pick, shuffle };
}
export type Random = ReturnType<typeof seeded>;

/** A client operation: one request, or a read-modify-write with its bounded retries. */
export type Task = () => Promise<void>;
/**
 * Client operations that start together: the clients racing for one resource (one idempotency key,
 * one order, one session) sit next to each other in the queue, so they are in flight at once.
 */
export type Burst = Task[];

export interface Scenario {
  name: string;
  /** Makes the data the scenario works on, before the workload starts. */
  arrange: (t: TestTenant) => Promise<void>;
  /** The scenario's client operations; its bursts go into the shared, shuffled queue. */
  tasks: (t: TestTenant) => Burst[];
  /** Checks the database (and the answers collected) after the whole workload has run. */
  verify: (t: TestTenant) => Promise<void>;
}

/** Runs `tasks` with at most `concurrency` in flight; answers the errors they threw. */
export async function runPool(tasks: Task[], concurrency: number): Promise<unknown[]> {
  const errors: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++];
      await task?.().catch((error: unknown) => errors.push(error));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return errors;
}

/** Requests sent, and their answers by `status code` (e.g. "409 STALE_UPDATE"). */
export const stats = { requests: 0, answers: new Map<string, number>() };

/** `api()` counted, with the answer's text read (and parsed when it is JSON). */
export async function call(path: string, request: ApiRequest) {
  stats.requests++;
  const response = await api(path, request);
  const text = await response.text();
  const body =
    text && response.headers.get("Content-Type")?.includes("json") ? JSON.parse(text) : text;
  const tally = `${response.status} ${response.status >= 400 ? body.code : ""}`.trim();
  stats.answers.set(tally, (stats.answers.get(tally) ?? 0) + 1);
  return { status: response.status, headers: response.headers, body, text };
}

/** An answer the workload does not expect, with what it was. */
export function unexpected(what: string, answer: { status: number; text: string }): Error {
  return new Error(`${what}: unexpected ${answer.status} ${answer.text.slice(0, 300)}`);
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
