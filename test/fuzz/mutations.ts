import { formatPath } from "../../src/lib/problem";
import type { JsonSchema, SchemaDocument } from "./schema-arbitrary";

/**
 * The invalid variants of a valid body: one mutation at one field, each with the field path that
 * the 400 must name. Derived from the schema and the value together, so every field of every
 * documented body gets its share: wrong types, out-of-range integers, missing required fields,
 * huge strings, deep nesting, NUL characters in strings and keys, lone surrogates, unknown enum
 * values, impossible calendar dates and date-times outside the years 0001..9999.
 */
export interface Mutation {
  /** What was done, for the report: `missing items[0].sku`. */
  label: string;
  /** The field the answer's `errors[].path` must name (or a field below it). */
  expectedPath: string;
  /** Whether the mutated body is still valid by the document (a huge string without maxLength). */
  stillValid: boolean;
  apply: (body: unknown) => unknown;
}

export const HUGE_STRING = "x".repeat(100_000);
const DEEP_DEPTH = 40;

/** A value nested DEEP_DEPTH levels: arrays and objects alternating. */
export function deepValue(): unknown {
  let value: unknown = 1;
  for (let i = 0; i < DEEP_DEPTH; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

type Path = (string | number)[];

/** A copy of `root` with the value at `path` replaced (or deleted when `replacement` is DELETE). */
const DELETE = Symbol("delete");
function setAt(root: unknown, path: Path, replacement: unknown): unknown {
  const copy = structuredClone(root);
  if (path.length === 0) return replacement;
  let parent = copy as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) parent = parent[segment] as typeof parent;
  const last = path[path.length - 1] as string | number;
  if (replacement === DELETE) delete parent[last];
  else parent[last] = replacement;
  return copy;
}

/** Adds a key to the object at `path`. */
function addKey(root: unknown, path: Path, key: string, value: unknown): unknown {
  const copy = structuredClone(root);
  let target = copy as Record<string | number, unknown>;
  for (const segment of path) target = target[segment] as typeof target;
  target[key] = value;
  return copy;
}

const WRONG_VALUES: [string, unknown][] = [
  ["string", "not-of-this-type"],
  ["number", 12345],
  ["boolean", true],
  ["object", { wrong: "type" }],
  ["array", ["wrong", "type"]],
  ["null", null],
];

export class MutationFinder {
  constructor(private readonly doc: SchemaDocument) {}

  /** Every mutation of `value` (valid for `schema`), at every field it holds. */
  mutations(schema: JsonSchema, value: unknown): Mutation[] {
    const out: Mutation[] = [];
    this.walk(schema, value, [], undefined, out);
    return out;
  }

  private walk(
    schema: JsonSchema,
    value: unknown,
    path: Path,
    unionPath: Path | undefined,
    out: Mutation[],
    siblings: JsonSchema[] = [],
  ) {
    const resolved = this.doc.flatten(schema);
    // Zod reports a failing union at the union itself: mutations below it name the union's path.
    const members = this.doc.members(resolved);
    const named = formatPath(unionPath ?? path) || "body";
    const add = (label: string, replacement: unknown, stillValid = false) => {
      // At a union's own path, a value another member may accept is no mutation.
      if (siblings.some((member) => this.mightAccept(member, replacement))) return;
      out.push({
        label: `${label} at ${formatPath(path) || "body"}`,
        expectedPath: named,
        stillValid,
        apply: (body) => setAt(body, path, replacement),
      });
    };

    const allowed = new Set(
      members ? members.flatMap((m) => this.doc.types(m)) : this.doc.types(resolved),
    );
    if (resolved.nullable) allowed.add("null");
    if (allowed.has("integer")) allowed.add("number");
    if (resolved.enum?.includes(null)) allowed.add("null");
    // A union member's own type mutations would be valid for another member: done at the union.
    const insideUnionAtItsPath = unionPath !== undefined && unionPath.length === path.length;
    if (allowed.size > 0 && !insideUnionAtItsPath) {
      for (const [type, wrong] of WRONG_VALUES) {
        if (!allowed.has(type)) add(`wrong type (${type})`, wrong);
      }
    }
    if (path.length > 0 && !insideUnionAtItsPath) add("nesting 40 deep", deepValue());

    if (members) {
      const member = members.find((m) => matchesType(this.doc.types(m), value));
      const others = members.filter((m) => m !== member);
      if (member) this.walk(member, value, path, unionPath ?? path, out, others);
      return;
    }
    if (resolved.enum) {
      add("unknown enum value", "NOT_A_DOCUMENTED_VALUE");
      return;
    }
    if (typeof value === "number") this.numberMutations(resolved, add);
    if (typeof value === "string") this.stringMutations(resolved, add);
    if (Array.isArray(value)) {
      if (resolved.minItems && resolved.minItems > 0) add("too few items", []);
      if (resolved.maxItems !== undefined && value.length > 0 && resolved.maxItems <= 1000) {
        add(
          "too many items",
          Array.from({ length: resolved.maxItems + 1 }, () => value[0]),
        );
      }
      const items = resolved.items;
      if (items) {
        value.forEach((item, i) => {
          this.walk(items, item, [...path, i], unionPath, out);
        });
      }
    }
    if (isObject(value)) this.objectMutations(resolved, value, path, unionPath, out);
  }

  private objectMutations(
    schema: JsonSchema,
    value: Record<string, unknown>,
    path: Path,
    unionPath: Path | undefined,
    out: Mutation[],
  ) {
    const key = "nul\u0000key";
    out.push({
      label: `NUL in a key at ${formatPath(path) || "body"}`,
      expectedPath: formatPath([...path, key]),
      stillValid: false,
      apply: (body) => addKey(body, path, key, 1),
    });
    if (schema.properties && typeof schema.additionalProperties !== "object") {
      // decisions.md: unknown request fields are ignored, never refused.
      out.push({
        label: `an unknown field at ${formatPath(path) || "body"}`,
        expectedPath: formatPath(path) || "body",
        stillValid: true,
        apply: (body) => addKey(body, path, "fuzzUnknownField", { any: ["value", 1] }),
      });
    }
    for (const name of schema.required ?? []) {
      out.push({
        label: `missing required ${formatPath([...path, name])}`,
        expectedPath: formatPath(unionPath ?? [...path, name]),
        stillValid: false,
        apply: (body) => setAt(body, [...path, name], DELETE),
      });
    }
    const properties = schema.properties ?? {};
    const extra = typeof schema.additionalProperties === "object" && schema.additionalProperties;
    for (const [name, child] of Object.entries(value)) {
      const childSchema = properties[name] ?? (extra || undefined);
      if (childSchema) this.walk(childSchema, child, [...path, name], unionPath, out);
      else if (typeof child === "string") {
        // Free-form content: only what the body middleware refuses everywhere.
        out.push(nulString([...path, name]));
      }
    }
  }

  /** Whether a schema may accept a value (checked for scalars; any object or array may pass). */
  private mightAccept(schema: JsonSchema, value: unknown): boolean {
    const resolved = this.doc.flatten(schema);
    const members = this.doc.members(resolved);
    if (members) return members.some((m) => this.mightAccept(m, value));
    if (resolved.enum) return resolved.enum.includes(value);
    if (!matchesType(this.doc.types(resolved), value)) return false;
    if (typeof value === "string") {
      if (resolved.maxLength !== undefined && value.length > resolved.maxLength) return false;
      if (resolved.minLength !== undefined && value.length < resolved.minLength) return false;
      if (resolved.pattern && !new RegExp(resolved.pattern).test(value)) return false;
      const format = FORMATS[resolved.format ?? ""];
      return !format || format.test(value);
    }
    if (typeof value === "number") {
      if (!this.doc.types(resolved).includes("number") && !Number.isSafeInteger(value))
        return false;
      if (resolved.minimum !== undefined && value < resolved.minimum) return false;
      if (resolved.maximum !== undefined && value > resolved.maximum) return false;
    }
    return true;
  }

  private numberMutations(schema: JsonSchema, add: (l: string, v: unknown, ok?: boolean) => void) {
    const integer = this.doc.types(schema).includes("integer");
    if (integer) {
      add("fraction in an integer", 1.5);
      add(
        schema.format === "int32" ? "int32 overflow" : "int64 beyond 2^53-1",
        schema.format === "int32" ? 2 ** 31 : 2 ** 53 + 2,
      );
      add("huge integer", 1e30);
    }
    if (schema.minimum !== undefined) add("below minimum", schema.minimum - 1);
    if (schema.maximum !== undefined) add("above maximum", schema.maximum + 1);
    if (schema.exclusiveMinimum !== undefined)
      add("at the exclusive minimum", schema.exclusiveMinimum);
    if (schema.exclusiveMaximum !== undefined)
      add("at the exclusive maximum", schema.exclusiveMaximum);
  }

  private stringMutations(schema: JsonSchema, add: (l: string, v: unknown, ok?: boolean) => void) {
    add("NUL in a string", "a\u0000b");
    add("lone surrogate", "a\ud800b");
    const constrained =
      schema.format !== undefined ||
      schema.pattern !== undefined ||
      (schema.maxLength ?? Number.POSITIVE_INFINITY) < HUGE_STRING.length;
    add("a 100,000-character string", HUGE_STRING, !constrained);
    if ((schema.minLength ?? 0) > 0) add("empty string", "");
    if (schema.pattern) {
      const pattern = new RegExp(schema.pattern);
      const miss = ["!?", " ", "\t", "0", "a"].find((candidate) => !pattern.test(candidate));
      if (miss !== undefined) add("not matching the pattern", miss);
    }
    switch (schema.format) {
      case "date":
        add("impossible date 2026-02-30", "2026-02-30");
        add("impossible date 2026-13-01", "2026-13-01");
        add("year 0000", "0000-12-31");
        add("date-time for a date", "2026-05-01T10:00:00Z");
        break;
      case "date-time":
        add("date-time without offset", "2026-05-01T10:00:00");
        add("year 10000", "10000-01-01T00:00:00Z");
        add("year 10000 in UTC", "9999-12-31T23:59:59-14:00");
        add("impossible date-time 2026-02-30", "2026-02-30T10:00:00Z");
        add("date for a date-time", "2026-05-01");
        break;
      case "uuid":
        add("not a uuid", "not-a-uuid");
        break;
      case "email":
        add("not an email address", "not-an-email");
        break;
      case "time":
        add("hour 25", "25:00:00");
        add("minute 60", "12:60:00");
        break;
      case "uri":
        add("not a URI", "not a uri");
        break;
    }
  }
}

/** Loose shapes of the string formats: enough to tell a date from a date-time. */
const FORMATS: Record<string, RegExp> = {
  date: /^\d{4}-\d{2}-\d{2}$/,
  "date-time": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i,
  time: /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};

function nulString(path: Path): Mutation {
  return {
    label: `NUL in a string at ${formatPath(path)}`,
    expectedPath: formatPath(path),
    stillValid: false,
    apply: (body) => setAt(body, path, "a\u0000b"),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function matchesType(types: string[], value: unknown): boolean {
  if (value === null) return types.includes("null");
  if (Array.isArray(value)) return types.includes("array");
  if (typeof value === "number") return types.includes("number") || types.includes("integer");
  return types.includes(typeof value);
}
