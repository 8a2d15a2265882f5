import { env } from "cloudflare:workers";
import { Validator } from "@cfworker/json-schema";
import type { z } from "@hono/zod-openapi";
import { createApp } from "../../src/app";

interface DocumentedRoute {
  method: string;
  pattern: RegExp;
  path: string;
  responses: Record<string, { content?: Record<string, { schema: z.ZodType }> } | undefined>;
}

let routes: DocumentedRoute[] | undefined;

/**
 * The routes of the OpenAPI document, with the Zod schemas that generate it. The registry holds
 * paths below the app's base path; the document adds `/api`, and so does this.
 */
function documentedRoutes(): DocumentedRoute[] {
  if (routes) return routes;
  routes = [];
  for (const definition of createApp().openAPIRegistry.definitions) {
    if (definition.type !== "route") continue;
    const { method, path, responses } = definition.route;
    const full = `/api${path}`;
    const pattern = new RegExp(`^${full.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    routes.push({
      method: method.toUpperCase(),
      pattern,
      path: full,
      responses: responses as never,
    });
  }
  return routes;
}

/**
 * Checks an answer against the document: every answer carries X-Request-Id; an error is
 * problem+json; and for a documented operation, the status is declared and the body parses with the
 * schema declared for that status and media type. Throws, naming what the document got wrong.
 */
export async function assertDocumented(method: string, url: string, response: Response) {
  const where = `${method} ${new URL(url).pathname} -> ${response.status}`;
  if (!response.headers.get("X-Request-Id")) throw new Error(`${where}: no X-Request-Id`);
  const contentType = response.headers.get("Content-Type") ?? "";
  if (response.status >= 400 && !contentType.startsWith("application/problem+json")) {
    throw new Error(`${where}: an error answered as ${contentType}, not problem+json`);
  }
  const path = new URL(url).pathname;
  // OpenAPI matches a concrete path before a templated one: GET /api/v4/orders/query is the query
  // path's (which has no GET), not /api/v4/orders/{id}'s.
  const concrete = documentedRoutes().some((r) => r.path === path);
  const route = documentedRoutes().find(
    (r) => r.method === method && (concrete ? r.path === path : r.pattern.test(path)),
  );
  if (!route) return;
  const declared = route.responses[String(response.status)];
  if (!declared) throw new Error(`${where}: status not declared for ${route.path}`);
  const undeclared = await undeclaredHeaders(route.path, method, response);
  if (undeclared.length > 0) {
    throw new Error(
      `${where}: sends ${undeclared.join(", ")}, which the document does not declare for ${route.path}`,
    );
  }
  const mediaType = contentType.split(";")[0]?.trim() ?? "";
  const content = declared.content ?? {};
  const schema = content[mediaType]?.schema;
  if (!schema) {
    if (Object.keys(content).length === 0) return;
    throw new Error(`${where}: media type ${mediaType} not declared for ${route.path}`);
  }
  const text = await response.clone().text();
  if (!mediaType.endsWith("json")) return;
  const body = JSON.parse(text);
  const result = schema.safeParse(body);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".")}: ${i.message}`)
      .join("; ");
    throw new Error(`${where}: the body does not match the documented schema: ${issues}`);
  }
  // The Zod schema is what generates the document, not the document itself: a wrapper the
  // generator renders wrongly (a nullable custom type documented as a plain object) passes the
  // check above. So the body must also pass the JSON Schema that /api/openapi.json publishes.
  const issues = await publishedIssues(
    ["paths", route.path, method.toLowerCase(), "responses", String(response.status)],
    ["content", mediaType, "schema"],
    body,
  );
  if (issues)
    throw new Error(`${where}: the body does not match the published document: ${issues}`);
}

/**
 * A JSON body that the Worker accepted (2xx) must be one the published document accepts too:
 * a request schema rendered stricter than the route's Zod schema (a nullable field documented
 * without null) would have integrators refuse, or generators never send, what the route takes.
 */
export async function assertAcceptedBodyDocumented(method: string, url: string, body: unknown) {
  const path = new URL(url).pathname;
  // OpenAPI matches a concrete path before a templated one: GET /api/v4/orders/query is the query
  // path's (which has no GET), not /api/v4/orders/{id}'s.
  const concrete = documentedRoutes().some((r) => r.path === path);
  const route = documentedRoutes().find(
    (r) => r.method === method && (concrete ? r.path === path : r.pattern.test(path)),
  );
  if (!route) return;
  const issues = await publishedIssues(
    ["paths", route.path, method.toLowerCase(), "requestBody"],
    ["content", "application/json", "schema"],
    JSON.parse(JSON.stringify(body)), // as sent: without the keys JSON leaves out
    // Without `format`: a string's format is checked by the route after normalising it (an email
    // is trimmed first), so the document states the canonical form and the route takes padding too.
    { formats: false },
  );
  if (issues)
    throw new Error(
      `${method} ${path}: the Worker accepted a body the published document refuses: ${issues}`,
    );
}

/** The headers the service sets on purpose: whichever an answer carries, its response declares. */
const SERVICE_HEADERS = [
  "X-Request-Id",
  "RateLimit-Policy",
  "RateLimit",
  "Retry-After",
  "Idempotent-Replayed",
  "WWW-Authenticate",
];

/** SERVICE_HEADERS that `response` carries but /api/openapi.json does not declare for it. */
async function undeclaredHeaders(path: string, method: string, response: Response) {
  const doc = (await publishedDocument()) as {
    paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
  };
  const declared = doc.paths[path]?.[method.toLowerCase()]?.responses[String(response.status)];
  const names = new Set(Object.keys(declared?.headers ?? {}).map((name) => name.toLowerCase()));
  return SERVICE_HEADERS.filter(
    (name) => response.headers.has(name) && !names.has(name.toLowerCase()),
  );
}

const DOCUMENT_URI = "https://api.test/api/openapi.json";
const STRUCTURAL = new Set(["$ref", "properties", "items", "allOf", "anyOf", "oneOf"]);
let published: Promise<unknown> | undefined;
const validators = new Map<string, Validator>();

/** /api/openapi.json as the app publishes it (its own handler, with the test bindings). */
export function publishedDocument(): Promise<unknown> {
  published ??= Promise.resolve(
    createApp().request("http://api.test/api/openapi.json", undefined, env),
  ).then((r) => r.json());
  return published;
}

/**
 * The problems `value` has against the schema /api/openapi.json publishes at `at` + `schema`
 * (its $refs resolved), or undefined when it passes or nothing is published at `at`.
 */
async function publishedIssues(
  at: string[],
  schema: string[],
  value: unknown,
  { formats = true } = {},
): Promise<string | undefined> {
  const doc = await publishedDocument();
  let node: unknown = doc;
  for (const part of [...at, ...schema])
    node = (node as Record<string, unknown> | undefined)?.[part];
  if (node === undefined) return undefined;
  const pointer = [...at, ...schema]
    .map((part) => encodeURI(part.replaceAll("~", "~0").replaceAll("/", "~1")))
    .join("/");
  const cacheKey = `${formats}:${pointer}`;
  let validator = validators.get(cacheKey);
  if (!validator) {
    validator = new Validator({ $ref: `${DOCUMENT_URI}#/${pointer}` }, "2020-12", false);
    // (A property named `format` loses its schema too: this check only gets more lenient.)
    const schemas = formats
      ? doc
      : JSON.parse(JSON.stringify(doc), (k, v) => (k === "format" ? undefined : v));
    validator.addSchema(schemas as never, DOCUMENT_URI);
    validators.set(cacheKey, validator);
  }
  const verdict = validator.validate(value);
  if (verdict.valid) return undefined;
  // The failing leaves: $ref, properties, items, allOf and anyOf repeat them one level up
  // (all of the errors if there were no leaves, so that a failure never reads as a pass).
  const leaves = verdict.errors.filter((e) => !STRUCTURAL.has(e.keyword));
  return (leaves.length > 0 ? leaves : verdict.errors)
    .slice(0, 5)
    .map((e) => `${e.instanceLocation}: ${e.error}`)
    .join("; ");
}
