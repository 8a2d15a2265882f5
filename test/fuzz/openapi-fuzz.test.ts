import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/middleware/json-body";
import { api } from "../helpers/api";
import { createTenant, type TestTenant } from "../helpers/factories";
import { MutationFinder } from "./mutations";
import {
  garbageHeader,
  garbageParameter,
  KnownIds,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  type ParamChoice,
  parameterArbitrary,
} from "./operations";
import {
  BUSINESS_400_CODES,
  respectDocumentedRules,
  respectOperationRules,
  validBodyAllowance,
} from "./rules";
import { SchemaDocument } from "./schema-arbitrary";

/**
 * Fuzzing from the OpenAPI document (issue 19): for every operation of /api/openapi.json, valid
 * bodies generated from its schemas, the same bodies with one field broken, and garbage in its path,
 * query and header parameters. No answer is ever a 5xx; every 4xx is problem+json; a broken field is a
 * 400 naming it; a valid body never gets a 400; every answer matches its documented schema (api()
 * checks that). A fixed seed keeps CI deterministic; `FUZZ_RUNS=2000` runs more cases per property.
 */
const SEED = Number(env.FUZZ_SEED) || 42;
const RUNS = Number(env.FUZZ_RUNS) || 20;
const TIMEOUT_MS = Math.max(120_000, RUNS * 1_000);
/**
 * fast-check stops a property 5 s before vitest would: a failure found by then is reported with its
 * counterexample shrunk as far as it got (shrinking a large body, one HTTP request per step, can
 * outlast any timeout), and a property that could not finish its runs says after how many it
 * stopped, instead of vitest's bare timeout.
 */
const options = (numRuns: number): fc.Parameters<unknown> => ({
  seed: SEED,
  numRuns,
  plugins: [fc.interruptAfterTimeLimit(TIMEOUT_MS - 5_000, { failOnInterrupt: true })],
});

const doc = (await (await api("/openapi.json")).json()) as OpenApiDocument;
const schemas = new SchemaDocument(doc.components.schemas);
const finder = new MutationFinder(schemas);
const operations = operationsOf(doc).filter((op) => /^\/api\/v[234]\//.test(op.path));
const known = new KnownIds();

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTenant();
});

interface Answer {
  status: number;
  contentType: string;
  text: string;
  json: unknown;
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a body holds, at any depth, a wineryId that is another winery's uuid: decisions.md makes
 * that a 403, whatever the schema. (A string that is not a uuid is the schema's: 400 where it
 * types the field a uuid.)
 */
function carriesForeignWineryId(body: unknown, own: string): boolean {
  if (typeof body !== "object" || body === null) return false;
  return Object.entries(body).some(([key, value]) =>
    key === "wineryId" && typeof value === "string"
      ? UUID_SHAPE.test(value) && value.toLowerCase() !== own.toLowerCase()
      : carriesForeignWineryId(value, own),
  );
}

const clip = (text: string, max = 1500) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;

/** Sends one request; a failure names the operation, the request and the answer. */
async function send(
  op: Operation,
  url: string,
  body: unknown,
  label: string,
  headers: Record<string, string> = {},
) {
  const request = `${op.method} ${url}\nheaders: ${clip(JSON.stringify(headers), 400)}\nbody: ${clip(JSON.stringify(body) ?? "(none)")}`;
  let response: Response;
  try {
    response = await api(url, {
      method: op.method,
      key: tenant.apiKey,
      headers,
      ...(body !== undefined && { body }),
    });
  } catch (error) {
    throw new Error(`${op.operationId} (${label}): ${(error as Error).message}\n${request}`);
  }
  const text = await response.text();
  const answer: Answer = {
    status: response.status,
    contentType: response.headers.get("Content-Type") ?? "",
    text,
    json: safeJson(text),
  };
  const fail = (why: string): never => {
    throw new Error(
      `${op.operationId} (${label}): ${why}\n${request}\nanswer: ${answer.status} ${clip(text)}`,
    );
  };
  if (answer.status >= 500) fail("a 5xx");
  if (answer.status >= 400 && !answer.contentType.startsWith("application/problem+json"))
    fail("an error that is not problem+json");
  return { answer, fail };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A 400 to a valid request that decisions.md explains (see rules.ts). */
function excused400(op: Operation, answer: Answer): boolean {
  const code = (answer.json as { code?: string } | undefined)?.code ?? "";
  return BUSINESS_400_CODES.has(code) || validBodyAllowance(op, errorPaths(answer));
}

function errorPaths(answer: Answer): string[] {
  const errors = (answer.json as { errors?: { path: string }[] } | undefined)?.errors ?? [];
  return errors.map((e) => e.path);
}

/** A path names `field` when it is the field or lies below it. */
const names = (path: string, field: string) =>
  path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);

/**
 * The URL for chosen parameter values (known ids of real rows replace half the generated path
 * ids; query ranges are put in order), and the values it holds.
 */
function urlOf(op: Operation, params: Record<string, ParamChoice>, override?: [string, string]) {
  const values: Record<string, string> = {};
  for (const parameter of op.parameters) {
    if (parameter.in === "header") continue;
    const choice = params[parameter.name];
    let value = choice?.generated;
    if (choice && parameter.in === "path" && choice.useKnown) {
      value = known.pick(KnownIds.prefixOf(op.path, parameter.name), choice.pick) ?? value;
    }
    if (value !== undefined) values[parameter.name] = value;
  }
  Object.assign(values, respectDocumentedRules(values));
  if (override) values[override[0]] = override[1];
  let path = op.path;
  const query: string[] = [];
  for (const parameter of op.parameters) {
    const value = values[parameter.name];
    if (parameter.in === "header" || value === undefined) continue;
    if (parameter.in === "path") path = path.replace(`{${parameter.name}}`, value);
    else query.push(`${encodeURIComponent(parameter.name)}=${value}`);
  }
  const url = `${path.replace(/^\/api/, "")}${query.length ? `?${query.join("&")}` : ""}`;
  return { url, values };
}

/** Ids of rows that now exist: path ids of a successful write, the `id` of a created row. */
function rememberIds(op: Operation, url: string, answer: Answer) {
  if (answer.status >= 300) return;
  const segments = url.split("?")[0]?.split("/") ?? [];
  const template = op.path.replace(/^\/api/, "").split("/");
  template.forEach((part, i) => {
    const name = /^\{(.+)\}$/.exec(part)?.[1];
    const value = segments[i];
    if (name && value) known.remember(KnownIds.prefixOf(op.path, name), value);
  });
  const id = (answer.json as { id?: unknown } | undefined)?.id;
  if (
    op.method === "POST" &&
    !op.path.includes("{") &&
    (typeof id === "string" || typeof id === "number")
  )
    known.remember(`${op.path}/`, String(id));
}

const label = (op: Operation) => `${op.method} ${op.path} (${op.operationId})`;

describe("fuzzing every operation of the document", () => {
  it("walks the versioned operations", () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
  });

  describe.each(operations.map((op) => [label(op), op] as const))("%s", (_, op) => {
    const context = () => ({ wineryId: tenant.wineryId, apiChannelKey: tenant.apiChannelKey });

    const body = op.body;
    // Operations without a body (GET) have only their parameters fuzzed.
    if (body) {
      it(
        "answers every valid body without a 5xx or a 400",
        async () => {
          await fc.assert(
            fc.asyncProperty(
              parameterArbitrary(schemas, op, context()),
              schemas.valid(body.schema, context()),
              async (params, generated) => {
                const { url, values } = urlOf(op, params);
                const value = respectOperationRules(op, generated, values);
                const { answer, fail } = await send(op, url, body.encode(value), "valid body");
                if (answer.status === 400 && !excused400(op, answer))
                  fail("a valid body got a 400");
                rememberIds(op, url, answer);
              },
            ),
            options(RUNS),
          );
        },
        TIMEOUT_MS,
      );

      it(
        "answers every broken field with a 400 naming it",
        async () => {
          await fc.assert(
            fc.asyncProperty(
              parameterArbitrary(schemas, op, context()),
              schemas.valid(body.schema, context()),
              fc.nat(),
              async (params, generated, which) => {
                const { url, values } = urlOf(op, params);
                const value = respectOperationRules(op, generated, values);
                const mutations = finder.mutations(body.schema, value);
                const mutation = mutations[which % mutations.length];
                if (!mutation) return;
                const mutated = body.encode(mutation.apply(value));
                const { answer, fail } = await send(op, url, mutated, mutation.label);
                if (mutation.stillValid) {
                  if (answer.status === 400 && !excused400(op, answer))
                    fail("a valid body got a 400");
                  return;
                }
                const bytes = new TextEncoder().encode(JSON.stringify(mutated)).length;
                if (bytes > MAX_BODY_BYTES) {
                  if (answer.status !== 413) fail("a body past 1 MiB was not 413");
                  return;
                }
                if (carriesForeignWineryId(mutated, tenant.wineryId)) {
                  if (answer.status !== 403) fail("a wineryId not the key's was not 403");
                  return;
                }
                if (answer.status !== 400) fail(`expected 400 naming ${mutation.expectedPath}`);
                const paths = errorPaths(answer);
                if (!paths.some((path) => names(path, mutation.expectedPath)))
                  fail(
                    `the 400 does not name ${mutation.expectedPath} (it names ${paths.join(", ")})`,
                  );
              },
            ),
            options(RUNS * 2),
          );
        },
        TIMEOUT_MS,
      );
    }

    const params = op.parameters;
    if (params.length > 0)
      it(
        "answers garbage in a path, query or header parameter with a 4xx naming it",
        async () => {
          await fc.assert(
            fc.asyncProperty(
              parameterArbitrary(schemas, op, context()),
              body ? schemas.valid(body.schema, context()) : fc.constant(undefined),
              fc.constantFrom(...params),
              fc.oneof(garbageParameter, fc.constant(undefined)),
              garbageHeader,
              async (choices, generated, parameter, garbage, headerGarbage) => {
                const chosen = { ...choices };
                if (garbage === undefined) delete chosen[parameter.name];
                const inHeader = parameter.in === "header";
                const { url, values } =
                  garbage === undefined || inHeader
                    ? urlOf(op, chosen)
                    : urlOf(op, chosen, [parameter.name, garbage]);
                const headers: Record<string, string> = inHeader
                  ? { [parameter.name]: headerGarbage }
                  : {};
                const payload =
                  body && generated !== undefined
                    ? body.encode(respectOperationRules(op, generated, values))
                    : undefined;
                const shown = inHeader ? clip(headerGarbage, 60) : (garbage ?? "(missing)");
                const what = `${parameter.in} ${parameter.name} = ${shown}`;
                const { answer, fail } = await send(op, url, payload, what, headers);
                if (answer.status !== 400) return;
                // Named bare, its place in the message: `tagName`, "... (query parameter)".
                const field = parameter.name.toLowerCase();
                const paths = errorPaths(answer);
                // The rest of the request may break a business rule of the allowance list.
                if (
                  !paths.some((path) => names(path.toLowerCase(), field)) &&
                  !excused400(op, answer)
                )
                  fail(`the 400 does not name ${field} (it names ${paths.join(", ")})`);
              },
            ),
            options(RUNS),
          );
        },
        TIMEOUT_MS,
      );
  });
});
