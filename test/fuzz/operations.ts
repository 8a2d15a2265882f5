import fc from "fast-check";
import type { GeneratorContext, JsonSchema, SchemaDocument } from "./schema-arbitrary";

/** One operation of /api/openapi.json, as the fuzzer reads it. */
export interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  /** The schema of the value the fuzzer generates, and how it goes on the wire. */
  body?: { schema: JsonSchema; encode: (value: unknown) => unknown };
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: JsonSchema;
}

interface RawOperation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, RawOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

/**
 * Bodies whose document schema cannot say what a valid body is. E19's body is a JSON string whose
 * content is an order document (decisions.md, E19): a valid one is an ExternalOrder's JSON text,
 * and its invalid variants are mutations of that order (the 400 names paths inside the document).
 */
const BODY_CONTENT: Record<string, string> = { upsertShopPluginOrder: "ExternalOrder" };

export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, raw]) => {
      const schema = raw.requestBody?.content["application/json"]?.schema;
      const content = BODY_CONTENT[raw.operationId];
      const body = content
        ? { schema: { $ref: `#/components/schemas/${content}` }, encode: JSON.stringify }
        : schema && { schema, encode: (value: unknown) => value };
      return {
        method: method.toUpperCase(),
        path,
        operationId: raw.operationId,
        parameters: raw.parameters ?? [],
        ...(body && { body }),
      };
    }),
  );
}

/**
 * Ids of rows that exist, by the path template before the parameter (`/api/v2/customerclass/`):
 * filled from successful answers, so reads and updates also meet real rows, not only 404s.
 */
export class KnownIds {
  private readonly byPrefix = new Map<string, string[]>();

  static prefixOf(path: string, name: string): string {
    return path.slice(0, path.indexOf(`{${name}}`));
  }

  remember(prefix: string, id: string) {
    const ids = this.byPrefix.get(prefix) ?? [];
    if (!ids.includes(id) && ids.length < 50) ids.push(id);
    this.byPrefix.set(prefix, ids);
  }

  pick(prefix: string, index: number): string | undefined {
    const ids = this.byPrefix.get(prefix);
    return ids?.length ? ids[index % ids.length] : undefined;
  }
}

export interface ParamChoice {
  generated: string;
  pick: number;
  useKnown: boolean;
}

/** Valid values for every path and query parameter of an operation (as raw, undecoded text). */
export function parameterArbitrary(
  doc: SchemaDocument,
  op: Operation,
  ctx: GeneratorContext & { apiChannelKey: string },
): fc.Arbitrary<Record<string, ParamChoice>> {
  const record: Record<string, fc.Arbitrary<ParamChoice>> = {};
  for (const parameter of op.parameters) {
    if (parameter.in === "header") continue;
    const schema = doc.flatten(parameter.schema);
    let generated: fc.Arbitrary<string>;
    if (parameter.name === "wineryId") generated = fc.constant(ctx.wineryId);
    else if (parameter.name === "apiChannelKey") generated = fc.constant(ctx.apiChannelKey);
    else if (schema.type === "integer")
      generated = fc.bigInt({ min: 1n, max: BigInt(Number.MAX_SAFE_INTEGER) }).map(String);
    else generated = doc.valid(schema, ctx).map((v) => encodeURIComponent(String(v)));
    record[parameter.name] = fc.record({
      generated,
      pick: fc.nat(),
      useKnown: fc.boolean(),
    });
  }
  const optional = op.parameters.filter((p) => p.in === "query" && !p.required).map((p) => p.name);
  const required = Object.keys(record).filter((name) => !optional.includes(name));
  return fc.record(record, { requiredKeys: required });
}

/**
 * Garbage for a path or query parameter, as raw URL text: encoded NUL, broken percent-escapes, an
 * encoded lone surrogate, numbers past int64, signs, fractions, long runs, traversal, whitespace.
 */
export const garbageParameter = fc.oneof(
  fc.constantFrom(
    "%00",
    "a%00b",
    "%",
    "%ZZ",
    "%ED%A0%80",
    "%F0%9F",
    "..",
    "-1",
    "0",
    "1.5",
    "1e3",
    "9".repeat(30),
    "9223372036854775808",
    "x".repeat(5000),
    "%20",
    "null",
    "undefined",
    "NaN",
    "2026-02-30",
    "2026-13-01",
    "10000-01-01",
    "0000-12-31",
    "%27%3B%20drop%20table%20orders%3B--",
    "00000000-0000-0000-0000-00000000000g",
    "__proto__",
  ),
  fc.string({ unit: "grapheme", maxLength: 30 }).map((s) => encodeURIComponent(s)),
);

/**
 * Garbage for a header (what fetch lets through: no CR, LF or NUL): empty, blank, past the
 * length limit, quotes, a tab inside, Latin-1, printable noise.
 */
export const garbageHeader = fc.oneof(
  fc.constantFrom("", " ", "x".repeat(300), '""', '"unterminated', "a\tb", "\u00ff\u00fe", "%00"),
  fc.string({ unit: "grapheme-ascii", maxLength: 40 }),
);
