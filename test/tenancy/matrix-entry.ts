import { expect } from "vitest";
import { api } from "../helpers/api";
import type { TestTenant } from "../helpers/factories";

/** Ids of winery A's data, as strings, handed from `arrangeA` to `requestAsB` and `readAsA`. */
export type Ids = Record<string, string>;

export interface Arranged {
  ids: Ids;
  /**
   * Values only A's data holds and B's request never carries (A's emails, names, internal uuids):
   * none may appear anywhere in B's answer, whatever its status.
   */
  marks?: string[];
}

export interface Attempt {
  path: string;
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * One row of the tenancy matrix: winery A makes data, winery B (another key) aims a request at it.
 * - 404: B names A's id; it does not exist for B.
 * - 403: B names A's wineryId in the path, query or body.
 * - 200/201: B's request is answered on B's own data (a list, an export, an upsert by a
 *   client-chosen id or code that makes B's own row): none of A's marks may appear in it.
 * - 400: B names A's id inside a body where only B's own ids are valid.
 * In every case `readAsA`, read before and after B's attempt, must be unchanged.
 */
export interface MatrixEntry {
  /** `METHOD /api/path` exactly as in /api/openapi.json. */
  operation: string;
  case: string;
  arrangeA: (a: TestTenant) => Promise<Arranged>;
  requestAsB: (ids: Ids, b: TestTenant) => Attempt | Promise<Attempt>;
  expected: 200 | 201 | 400 | 403 | 404;
  readAsA?: (ids: Ids, a: TestTenant) => Promise<unknown>;
  /** More checks of B's answer (its parsed JSON body). */
  checkAnswer?: (body: unknown, ids: Ids, b: TestTenant) => void;
}

/**
 * A's read of one of its resources (a GET, or a POST of `body` for a query); it must succeed, or
 * the before/after comparison proves nothing.
 */
export async function readOk(t: TestTenant, path: string, body?: unknown): Promise<unknown> {
  const response = await api(path, { key: t.apiKey, ...(body !== undefined && { body }) });
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text);
}

/** `body` as a record, for answer checks. */
export const record = (body: unknown) => body as Record<string, unknown>;

export const unique = () => crypto.randomUUID().slice(0, 8);

/** The JSON body of an answer of `status`, or an error carrying the answer (for arrange steps). */
export async function okJson<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`${response.url}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}
