import { exports } from "cloudflare:workers";
import { assertAcceptedBodyDocumented, assertDocumented } from "./documented-responses";

export interface ApiRequest {
  method?: string;
  key?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding (for malformed-body cases). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/**
 * Calls the Worker under test, as an integrator would, at `/api{path}`. Every answer is checked
 * against the OpenAPI document (X-Request-Id, problem+json errors, the schema declared for its
 * status), so the document cannot lie about any answer a test receives.
 */
export async function api(path: string, request: ApiRequest = {}): Promise<Response> {
  const headers = new Headers(request.headers);
  if (request.key) headers.set("APIKey", request.key);
  let body: string | undefined = request.rawBody;
  if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  const url = `http://api.test/api${path}`;
  const method = request.method ?? (body === undefined ? "GET" : "POST");
  const response = await exports.default.fetch(url, { method, headers, body });
  await assertDocumented(method, url, response);
  if (request.body !== undefined && response.ok)
    await assertAcceptedBodyDocumented(method, url, request.body);
  return response;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  errors?: { path: string; message: string }[];
  [key: string]: unknown;
}

/** Asserts the RFC 9457 shape and returns the body. */
export async function expectProblem(
  response: Response,
  status: number,
  code: string,
): Promise<ProblemBody> {
  const text = await response.text();
  if (response.status !== status)
    throw new Error(`expected ${status} ${code}, got ${response.status}: ${text}`);
  if (!response.headers.get("Content-Type")?.startsWith("application/problem+json")) {
    throw new Error(`expected problem+json, got ${response.headers.get("Content-Type")}`);
  }
  const body = JSON.parse(text) as ProblemBody;
  if (body.code !== code || body.status !== status)
    throw new Error(`expected ${code}, got ${text}`);
  if (body.requestId !== response.headers.get("X-Request-Id"))
    throw new Error("requestId differs from X-Request-Id");
  return body;
}
