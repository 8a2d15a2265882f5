import fc from "fast-check";
import { calendarDate, dateTime, email, localTime } from "./format-arbitraries";

/**
 * Valid values for the JSON Schemas of /api/openapi.json, as fast-check arbitraries: the subset of
 * JSON Schema the document uses (objects with properties/required, additionalProperties maps and
 * free-form objects, arrays with min/maxItems, nullable type lists, anyOf/oneOf/allOf, enums, the
 * string formats date, date-time and uuid, patterns, int32/int64 and minimum/maximum, $ref into
 * components). A new route's schemas are covered the moment they are documented.
 */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  nullable?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

export interface GeneratorContext {
  /** The tenant's winery: any `wineryId` field gets it (another winery's id is a 403, not fuzz). */
  wineryId: string;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

export class SchemaDocument {
  constructor(private readonly components: Record<string, JsonSchema>) {}

  /** Follows $ref chains into components. */
  resolve(schema: JsonSchema): JsonSchema {
    let current = schema;
    for (let hops = 0; current.$ref && hops < 20; hops++) {
      const name = current.$ref.replace("#/components/schemas/", "");
      const target = this.components[name];
      if (!target) throw new Error(`unresolved $ref ${current.$ref}`);
      current = target;
    }
    return current;
  }

  /** allOf merged into one object schema (the document uses it for composition only). */
  flatten(schema: JsonSchema): JsonSchema {
    const resolved = this.resolve(schema);
    if (!resolved.allOf) return resolved;
    const parts = resolved.allOf.map((part) => this.flatten(part));
    return {
      ...resolved,
      allOf: undefined,
      type: "object",
      properties: Object.assign({}, ...parts.map((p) => p.properties ?? {}), resolved.properties),
      required: [...parts.flatMap((p) => p.required ?? []), ...(resolved.required ?? [])],
    };
  }

  /** The union members of a schema (anyOf/oneOf), or undefined when it is not a union. */
  members(schema: JsonSchema): JsonSchema[] | undefined {
    const resolved = this.flatten(schema);
    const union = resolved.anyOf ?? resolved.oneOf;
    return union?.map((member) => this.flatten(member));
  }

  /** The JSON types a (non-union) schema admits. */
  types(schema: JsonSchema): string[] {
    const resolved = this.flatten(schema);
    const declared = resolved.type;
    const list = Array.isArray(declared) ? [...declared] : declared ? [declared] : [];
    if (list.length === 0 && resolved.properties) list.push("object");
    if (resolved.nullable) list.push("null");
    return list;
  }

  valid(schema: JsonSchema, ctx: GeneratorContext, depth = 0): fc.Arbitrary<unknown> {
    const resolved = this.flatten(schema);
    const members = this.members(resolved);
    if (members) {
      const choices = members.map((m) => this.valid(m, ctx, depth + 1));
      if (resolved.nullable) choices.push(fc.constant(null));
      return fc.oneof(...choices);
    }
    if (resolved.enum) return fc.constantFrom(...resolved.enum);
    const types = this.types(resolved);
    if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
    return fc.oneof(...types.map((type) => this.ofType(type, resolved, ctx, depth)));
  }

  private ofType(
    type: string,
    schema: JsonSchema,
    ctx: GeneratorContext,
    depth: number,
  ): fc.Arbitrary<unknown> {
    switch (type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer":
        return integerArbitrary(schema);
      case "number":
        return numberArbitrary(schema);
      case "string":
        return stringArbitrary(schema);
      case "array": {
        const minLength = schema.minItems ?? 0;
        const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 3, 3));
        const items = schema.items ? this.valid(schema.items, ctx, depth + 1) : freeValue;
        return fc.array(items, { minLength, maxLength });
      }
      case "object":
        return this.objectArbitrary(schema, ctx, depth);
      default:
        throw new Error(`unsupported type ${type}`);
    }
  }

  private objectArbitrary(
    schema: JsonSchema,
    ctx: GeneratorContext,
    depth: number,
  ): fc.Arbitrary<unknown> {
    const properties = schema.properties ?? {};
    const names = Object.keys(properties);
    const extra = schema.additionalProperties;
    if (names.length === 0) {
      if (extra && typeof extra === "object") {
        const keys = schema.propertyNames
          ? textArbitrary(schema.propertyNames.minLength, schema.propertyNames.maxLength)
          : mapKey;
        return fc.dictionary(keys, this.valid(extra, ctx, depth + 1), { maxKeys: 3 });
      }
      return freeObject;
    }
    const required = new Set(schema.required ?? []);
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const name of names) {
      const property = properties[name] as JsonSchema;
      const resolved = this.flatten(property);
      record[name] =
        // Whatever its type says (E16's is free text): any other string is a 403.
        name === "wineryId" && [resolved.type].flat().includes("string")
          ? fc.constant(ctx.wineryId)
          : this.valid(property, ctx, depth + 1);
    }
    // Deep optional branches are left out past a depth, so one body stays small.
    const keys = depth > 6 ? [...required] : undefined;
    const arbitrary = fc.record(record, { requiredKeys: [...required] });
    return keys ? fc.record(pick(record, keys), { requiredKeys: keys }) : arbitrary;
  }
}

function pick<T>(record: Record<string, T>, keys: string[]): Record<string, T> {
  return Object.fromEntries(keys.map((k) => [k, record[k] as T]));
}

/** Keys of free-form objects and maps, with the ones that break naive JavaScript among them. */
const mapKey = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "", "a.b", "[0]"),
  },
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
);

/** JSON values of free-form fields: shallow, any type, well-formed strings. */
const freeValue = fc.jsonValue({ maxDepth: 2 });
const freeObject = fc.dictionary(mapKey, freeValue, { maxKeys: 4 });

/** The inclusive integer bounds of a schema (exclusive bounds moved in by one). */
export function integerBounds(schema: JsonSchema): { min: number; max: number } {
  const bounds = schema.format === "int32" ? INT32 : { min: -MAX_SAFE, max: MAX_SAFE };
  let min = Math.max(bounds.min, Math.ceil(schema.minimum ?? bounds.min));
  let max = Math.min(bounds.max, Math.floor(schema.maximum ?? bounds.max));
  if (schema.exclusiveMinimum !== undefined)
    min = Math.max(min, Math.floor(schema.exclusiveMinimum) + 1);
  if (schema.exclusiveMaximum !== undefined)
    max = Math.min(max, Math.ceil(schema.exclusiveMaximum) - 1);
  return { min, max };
}

function integerArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const { min, max } = integerBounds(schema);
  const small = fc.integer({ min: Math.max(min, -1000), max: Math.min(max, 1000) });
  const full = fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
  const edges = fc.constantFrom(min, max);
  return min > 1000 || max < -1000
    ? fc.oneof(full, edges)
    : fc.oneof({ weight: 4, arbitrary: small }, full, edges);
}

function numberArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? -Number.MAX_VALUE;
  const max = schema.maximum ?? Number.MAX_VALUE;
  if (schema.exclusiveMinimum !== undefined || schema.exclusiveMaximum !== undefined) {
    const low = schema.exclusiveMinimum ?? min;
    const high = schema.exclusiveMaximum ?? max;
    return fc
      .double({ min: low, max: high, noNaN: true, noDefaultInfinity: true })
      .filter((n) => n > low && n < high && n >= min && n <= max);
  }
  const small = fc.integer({
    min: Math.max(Math.ceil(min), -1000),
    max: Math.min(Math.floor(max), 1000),
  });
  const double = fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return Math.ceil(min) <= Math.floor(max)
    ? fc.oneof({ weight: 3, arbitrary: small }, double, fc.constantFrom(min, max))
    : double;
}

/** Text that a field must accept: any Unicode, well formed, without NUL, within the lengths. */
export function textArbitrary(minLength = 0, maxLength = 40): fc.Arbitrary<string> {
  const cap = Math.max(minLength, Math.min(maxLength, 24));
  return fc
    .oneof(
      fc.string({ unit: "grapheme", minLength, maxLength: cap }),
      fc.string({ unit: "grapheme-ascii", minLength, maxLength: cap }),
    )
    .map((s) => s.replaceAll("\u0000", "0"))
    .filter((s) => s.length >= minLength && s.length <= maxLength);
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? 100_000;
  switch (schema.format) {
    case "date":
      return calendarDate;
    case "date-time":
      return dateTime;
    case "uuid":
      return fc.uuid();
    case "email":
      return email;
    case "time":
      return localTime;
    case "local-date-time": // the reservations' wall-clock date-times (no zone)
      return fc.tuple(calendarDate, localTime).map(([day, time]) => `${day}T${time}`);
    case "uri":
      return fc.webUrl();
  }
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => s.length >= minLength && s.length <= maxLength);
  }
  return textArbitrary(minLength, maxLength);
}
