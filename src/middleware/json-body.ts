import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import {
  MalformedJsonError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "../lib/errors";
import { inspectJson, parseJsonText } from "../lib/json-text";
import { formatPath, parameterProblem } from "../lib/problem";
import { assertOwnWinery, isUuidShaped } from "../lib/tenancy";

export const MAX_BODY_BYTES = 1024 * 1024;

const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
/**
 * The JSON media types @hono/zod-openapi's body gate lets through (its `jsonRequestRegex`): those
 * of RFC 9110's grammar it does not (`application/json ; charset=utf-8`, `application/json;`) are
 * passed on to it rewritten.
 */
const ROUTE_GATE_MEDIA_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
/** A `charset` parameter of the media type, quoted or not. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/**
 * Whether a request came without a body and without saying what it would be: decisions.md's 415 is
 * for a "body sent without a JSON content type", so such a request is answered as a body that is
 * not JSON (400 MALFORMED_JSON, parseJson: NO_BODY), not 415 (two outside audits read it so).
 */
const sentNoBody = (c: Context<AppEnv>) =>
  c.req.header("Content-Type") === undefined &&
  c.req.header("Content-Encoding") === undefined &&
  (c.req.raw.body === null || c.req.header("Content-Length") === "0");

/**
 * 415 for a body that is not declared JSON, that declares a charset other than UTF-8 (JSON is
 * UTF-8, RFC 8259; the body is never transcoded), or that is compressed (never inflated).
 */
const requireJsonContentType = createMiddleware<AppEnv>(async (c, next) => {
  if (METHODS_WITH_BODY.has(c.req.method) && !sentNoBody(c)) {
    const contentType = c.req.header("Content-Type") ?? "";
    const encoding = c.req.header("Content-Encoding")?.trim().toLowerCase();
    const charset = CHARSET.exec(contentType)?.[1]?.toLowerCase();
    if (
      !JSON_MEDIA_TYPE.test(contentType) ||
      (charset !== undefined && charset !== "utf-8" && charset !== "utf8") ||
      (encoding && encoding !== "identity")
    ) {
      throw new UnsupportedMediaTypeError();
    }
    if (!ROUTE_GATE_MEDIA_TYPE.test(contentType)) {
      // Accepted here, but @hono/zod-openapi's own gate (before each route's body validator) would
      // answer 415: it takes no space before a `;` and no empty parameter, which RFC 9110 allows.
      const headers = new Headers(c.req.raw.headers);
      headers.set(
        "Content-Type",
        charset ? `application/json; charset=${charset}` : "application/json",
      );
      c.req.raw = new Request(c.req.raw, { headers });
    }
  }
  await next();
});

/**
 * How much of a body past MAX_BODY_BYTES is read and dropped before the 413 is answered, when it
 * came without a Content-Length (chunked). A sender still writing when the answer comes sees its
 * connection cut: `wrangler dev`'s proxy then answered 500 "Network connection lost", or nothing,
 * in place of the 413 (10 MiB chunked: 8 of 10 requests). Past this, the body is cancelled.
 */
const MAX_DRAINED_BYTES = 64 * 1024 * 1024;

/** Reads the rest of a body and drops it, up to MAX_DRAINED_BYTES in all; then cancels it. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, read: number) {
  try {
    for (let total = read; total <= MAX_DRAINED_BYTES; ) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // a body whose sender went away: nothing is left to read
  }
}

/**
 * A body that cannot be read to its end (a broken chunked encoding, a sender that went away) is the
 * request's fault: 400 MALFORMED_JSON. The runtime's error ("Network connection lost.") would
 * otherwise reach the error handler, which takes that message for the database's (503).
 */
const UNREADABLE_BODY =
  "The request body could not be read to its end (a broken chunked encoding, or the sender went away).";

async function readOrRefuse(reader: ReadableStreamDefaultReader<Uint8Array>) {
  try {
    return await reader.read();
  } catch {
    throw new MalformedJsonError(UNREADABLE_BODY);
  }
}

/**
 * 413 past 1 MiB: by Content-Length when declared (the runtime holds the body to it), else
 * counted while it is read (and drained, see MAX_DRAINED_BYTES). Only where a body is read: a
 * body sent with a GET is never read, so its size is not the caller's problem (no GET operation
 * documents a 413).
 */
const limitBody = createMiddleware<AppEnv>(async (c, next) => {
  const body = c.req.raw.body;
  if (!METHODS_WITH_BODY.has(c.req.method) || !body) return next();
  const declared = c.req.header("Content-Length");
  if (declared !== undefined && c.req.header("Transfer-Encoding") === undefined) {
    if (Number.parseInt(declared, 10) > MAX_BODY_BYTES) {
      throw new PayloadTooLargeError(MAX_BODY_BYTES);
    }
    return next();
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await readOrRefuse(reader);
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await drain(reader, size);
      throw new PayloadTooLargeError(MAX_BODY_BYTES);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  c.req.raw = new Request(c.req.raw, { body: bytes });
  await next();
});

/**
 * Names of query parameters whose raw text is not percent-encoded UTF-8 (`%FF`, a lone surrogate's
 * `%ED%A0%80`): the router would hand such a value on undecoded, as if it had been sent literally.
 */
function undecodableQuery(search: string): string[] {
  const names: string[] = [];
  for (const pair of search.split("&")) {
    const at = pair.indexOf("=");
    const name = at < 0 ? pair : pair.slice(0, at);
    const value = at < 0 ? "" : pair.slice(at + 1);
    try {
      decodeURIComponent(value.replaceAll("+", " "));
      decodeURIComponent(name.replaceAll("+", " "));
    } catch {
      let shown = name;
      try {
        shown = decodeURIComponent(name.replaceAll("+", " "));
      } catch {}
      names.push(shown);
    }
  }
  return names;
}

/** Whether a JSON text can hold a `wineryId` member, spelled out or behind a \u escape. */
const mayHoldWineryId = (text: string) => text.includes("wineryId") || text.includes("\\u");

/**
 * decisions.md: a wineryId in the path, query or body that is not the key's winery is 403, on
 * every route, including those whose schema has no wineryId (it would otherwise be ignored as an
 * unknown field and the misdirected request answered as if it were the key's). This checks every
 * `wineryId` member of a body, at any depth (an experience's integrations carry one each), walked
 * only when the text can hold one; the 403 names the member's path (`items[0].wineryId`).
 * A string that is not a uuid names no winery and is left to the route's schema: 400 naming it
 * where the interface types the field a uuid ("types are enforced"), 403 in E16's filter, which
 * it types a string (its handler checks it), ignored as an unknown field elsewhere. A value that
 * is not a string is left to the schema too.
 */
function assertOwnWineryIds(c: Context<AppEnv>, text: string, root: unknown): void {
  if (!mayHoldWineryId(text)) return;
  // Each value with the way to it (a chain of parents), spelt out only for a member it checks.
  type At = { key: PropertyKey; parent: At } | null;
  const spell = (at: At, key: PropertyKey): string => {
    const path = [key];
    for (let step = at; step !== null; step = step.parent) path.unshift(step.key);
    return formatPath(path);
  };
  const stack: [unknown, At][] = [[root, null]];
  while (stack.length > 0) {
    const [value, at] = stack.pop() as [unknown, At];
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        stack.push([value[index], { key: index, parent: at }]);
      }
      continue;
    }
    for (const [key, member] of Object.entries(value)) {
      if (key !== "wineryId") stack.push([member, { key, parent: at }]);
      else if (typeof member === "string" && isUuidShaped(member)) {
        assertOwnWinery(c, member, spell(at, key));
      }
    }
  }
}

/**
 * Query values never pass through a body schema: a value that is not percent-encoded UTF-8, or a
 * NUL or a lone surrogate in any of them is refused here, naming the parameter; a foreign
 * `wineryId` is 403 before the body is read. (Path parameters are checked by the route guard and
 * their route schemas, which know their names: see SafeString.)
 */
const checkQuery = createMiddleware<AppEnv>(async (c, next) => {
  // The raw query string (a request URL carries no fragment); undecodable only with a "%".
  const at = c.req.url.indexOf("?");
  const search = at < 0 ? "" : c.req.url.slice(at + 1);
  if (search !== "") {
    const undecodable = search.includes("%") ? undecodableQuery(search) : [];
    if (undecodable.length > 0) {
      throw new ValidationError(
        undecodable.map((name) => parameterProblem("query", name, "is not percent-encoded UTF-8")),
      );
    }
    const queries = c.req.queries();
    const errors = Object.entries(queries).flatMap(([name, values]) =>
      inspectJson([name, ...values]).map(({ message }) => parameterProblem("query", name, message)),
    );
    if (errors.length > 0) throw new ValidationError(errors);
    // The one query wineryId (E19's) is typed a string: any value but the key's winery is 403.
    for (const value of queries.wineryId ?? []) assertOwnWinery(c, value);
  }
  await next();
});

/** The problem's detail for a request without a body (or with an empty one). */
const NO_BODY =
  "The request has no body: this operation takes a JSON body (Content-Type: application/json).";

/** Refuses bytes that are not UTF-8 instead of replacing them with U+FFFD and storing that. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Parses the body once, before any schema: a body that is not UTF-8 or not JSON is MALFORMED_JSON;
 * NUL characters, lone surrogates, nesting past 32 levels and arrays past 1,000 elements are a
 * VALIDATION_ERROR naming the field (decisions.md, "Hostile input" and "Limits"); a foreign
 * `wineryId`, at any depth, is 403. The checked value is what the route validator then reads:
 * `c.req.json()` answers it instead of parsing the text again.
 */
const parseJson = createMiddleware<AppEnv>(async (c, next) => {
  if (METHODS_WITH_BODY.has(c.req.method)) {
    let bytes: ArrayBuffer;
    try {
      bytes = await c.req.arrayBuffer();
    } catch (error) {
      if (error instanceof PayloadTooLargeError) throw error;
      throw new MalformedJsonError(UNREADABLE_BODY);
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new MalformedJsonError("The request body is not UTF-8 (RFC 8259: JSON text is UTF-8).");
    }
    if (text === "") throw new MalformedJsonError(NO_BODY);
    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      if (parsed.malformed) throw new MalformedJsonError();
      throw new ValidationError(parsed.errors);
    }
    const value = parsed.value;
    assertOwnWineryIds(c, text, value);
    c.req.json = <T>() => Promise.resolve(value as T);
  }
  await next();
});

export const jsonBody = [requireJsonContentType, limitBody, checkQuery, parseJson] as const;

/**
 * For a body that is a JSON string holding a document (E19): the document's `wineryId` members, at
 * any depth, as a body's own (403 for another winery's, before the route validates the document).
 * A string that is not JSON, or that breaks the body rules, is left to the route's schema.
 */
export const ownWineryInJsonString = createMiddleware<AppEnv>(async (c, next) => {
  const body: unknown = await c.req.json();
  if (typeof body === "string" && mayHoldWineryId(body)) {
    // Parsed with the body rules (a document they refuse is left to the route's schema, which
    // names the problem): a long, deeply nested document is refused before it is built.
    const parsed = parseJsonText(body);
    if (parsed.ok) assertOwnWineryIds(c, body, parsed.value);
  }
  await next();
});
