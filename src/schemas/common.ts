/**
 * The shared wire primitives. Hostile input is stopped here (and in the body-parsing middleware,
 * src/middleware/json-body.ts), once, never route by route: every route schema builds on these.
 */
import { z } from "@hono/zod-openapi";
import { compareDateTimes } from "../lib/instant";
import { MAX_SAFE_CENTS } from "../lib/money";

/** Instants Postgres and every client can hold: years 0001..9999 in UTC. */
export const MIN_INSTANT_MS = Date.parse("0001-01-01T00:00:00.000Z");
export const MAX_INSTANT_MS = Date.parse("9999-12-31T23:59:59.999Z");

/*
 * Primitives are documented with `format` (and `example`) alone, never `type`: a `type` in the
 * metadata replaces what the generator derives, so `.nullable()`, `.min()` and `.max()` chained by a
 * route would vanish from the document.
 */

/**
 * ISO 8601 instant with an offset (`Z` or `+02:00`), as decisions.md requires for date-time, whose
 * instant in UTC lies in the years 0001..9999 (`9999-12-31T23:59:59-14:00` is year 10000 in UTC),
 * to the nanosecond at most.
 */
export const DateTime = z.iso
  // abort: a text that is no date-time gets that one error, not also the range's and a range
  // refinement's around it (dateTo before dateFrom).
  .datetime({ offset: true, abort: true })
  // Nanoseconds at most, as Java's Instant reads them; V8's Date.parse also misreads ten digits or
  // more (".0019999999" as 19 ms), which every reading of a DateTime would inherit.
  .refine((value) => !/\.\d{10}/.test(value), {
    message: "must have at most 9 digits of fractional seconds",
    abort: true,
  })
  .refine((value) => {
    const ms = Date.parse(value);
    return ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS;
  }, "must lie in the years 0001..9999 in UTC")
  .openapi({ format: "date-time", example: "2026-05-01T10:00:00Z" });

/** Real calendar date YYYY-MM-DD (2026-02-30 is refused) in the years 0001..9999. */
export const CalendarDate = z.iso
  .date({ abort: true })
  .refine((value) => !value.startsWith("0000"), "must lie in the years 0001..9999")
  .openapi({ format: "date", example: "2026-05-01" });

/**
 * An int32. Spelled as bounds on z.int() rather than z.int32(), and documented with `format` alone
 * (never `type`): the OpenAPI generator documents z.int32() as a plain `number`, and a `type` in the
 * metadata replaces the bounds a route chains on (`Int32.min(1)`), so the document would accept
 * fractions and values the route refuses.
 */
export const Int32 = z
  .int()
  .min(-(2 ** 31))
  .max(2 ** 31 - 1)
  .openapi({ format: "int32" });
/**
 * An int64 on the wire, held exactly: within ±(2^53-1), where JavaScript numbers are exact, which
 * z.int() enforces; the bounds are stated so that the document says so too (it would otherwise
 * promise the whole int64 range).
 */
export const Int64 = z
  .int()
  .min(-Number.MAX_SAFE_INTEGER)
  .max(Number.MAX_SAFE_INTEGER)
  .openapi({ format: "int64" });

/** Integer cents within ±(2^53-1), the range decisions.md allows any amount. */
export const Cents = z.int().min(-MAX_SAFE_CENTS).max(MAX_SAFE_CENTS).openapi({ format: "int64" });

/**
 * Integer cents that are not negative, up to 2^53-1: prices (a product's, a channel's, an
 * experience's), totals and amounts a client pays.
 */
export const NonNegativeCents = z.int().min(0).max(MAX_SAFE_CENTS).openapi({ format: "int64" });

/**
 * Text that must not be blank: trimmed, then at least one character. The pattern puts "not blank"
 * in the document too (a minLength of 1 would admit " ", which the trim makes empty).
 */
export const NonBlank = (max: number) =>
  z.string().trim().regex(/\S/, "must not be blank").max(max);

/** A path or query id of an int64 row: digits only, within the safe-integer range. */
export const Int64Id = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, "must be a positive integer id")
  .transform(Number)
  .refine(Number.isSafeInteger, "is out of range")
  .openapi({
    type: "integer",
    format: "int64",
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 42,
  });

/**
 * Text that Postgres can store: no NUL (U+0000) and no lone UTF-16 surrogate. Bodies are checked
 * by the body-parsing middleware already; path and query values, which never pass through it, use
 * this.
 */
export const SafeString = z
  .string()
  .refine((value) => !value.includes("\u0000"), "must not contain NUL characters")
  .refine((value) => value.isWellFormed(), "must not contain lone UTF-16 surrogates");

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Free-form JSON object, stored as given: the parsed value passes through untouched, so every key
 * survives, `__proto__` and `constructor` included (a re-built record would drop `__proto__`).
 */
export const FreeObject = z
  .custom<Record<string, unknown>>(isPlainObject, "must be a JSON object")
  .openapi({ type: "object", additionalProperties: true });

/**
 * FreeObject or null. Its own schema because the document generator cannot add `null` to a custom
 * type: `FreeObject.nullable()` is documented as a plain object, refusing the null it accepts.
 */
export const NullableFreeObject = z
  .custom<Record<string, unknown> | null>(
    (value) => value === null || isPlainObject(value),
    "must be a JSON object or null",
  )
  .openapi({ type: ["object", "null"], additionalProperties: true });

const PROTO = "__proto__";

/**
 * A ZodRecord that also keeps a `__proto__` key, as decisions.md ("Hostile input") requires of
 * every key a client sends. Zod's record skips that key without a word (neither validated nor
 * kept), so `{"__proto__": "x", "en": "E"}` would be stored as `{"en": "E"}`. This record runs
 * Zod's, then validates the sent `__proto__` entry with the record's own key and value schemas
 * (issues under the path `__proto__`) and defines it as an own property of the output, so it
 * never touches the prototype. It is a ZodRecord (same def, same traits), so the OpenAPI
 * generator documents it exactly as `z.record`, and `.openapi()` clones keep the behaviour.
 */
const OwnKeysRecord = z.core.$constructor(
  "OwnKeysRecord",
  (inst: z.ZodRecord, def: z.core.$ZodRecordDef) => {
    z.ZodRecord.init(inst, def);
    // Wrapped now, before the constructor's deferred steps copy `parse` into `run` and wrap it.
    const parseRecord = inst._zod.parse;
    inst._zod.parse = (payload, ctx) => {
      const input = payload.value;
      const sent = isPlainObject(input) ? Object.getOwnPropertyDescriptor(input, PROTO) : undefined;
      const result = parseRecord(payload, ctx);
      if (!sent) return result;
      return result instanceof Promise
        ? result.then((done) => keepProto(inst, def, done, sent.value, ctx))
        : keepProto(inst, def, result, sent.value, ctx);
    };
  },
);

function keepProto(
  inst: z.ZodRecord,
  def: z.core.$ZodRecordDef,
  payload: z.core.ParsePayload,
  value: unknown,
  ctx: z.core.ParseContextInternal,
): z.core.ParsePayload | Promise<z.core.ParsePayload> {
  const key = def.keyType._zod.run({ value: PROTO, issues: [] }, ctx);
  if (key instanceof Promise) throw new Error("async record keys are not supported");
  if (key.issues.length) {
    payload.issues.push({
      code: "invalid_key",
      origin: "record",
      issues: key.issues.map((issue) => z.core.util.finalizeIssue(issue, ctx, z.core.config())),
      input: PROTO,
      path: [PROTO],
      inst,
    });
    return payload;
  }
  const store = (result: z.core.ParsePayload) => {
    payload.issues.push(...z.core.util.prefixIssues(PROTO, result.issues));
    Object.defineProperty(payload.value, String(key.value), {
      value: result.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    return payload;
  };
  const result = def.valueType._zod.run({ value, issues: [] }, ctx);
  return result instanceof Promise ? result.then(store) : store(result);
}

/**
 * `z.record(key, value)` that keeps a `__proto__` key as sent (see OwnKeysRecord): for every
 * request record keyed by free text. The document is the same as z.record's.
 */
export function ownKeysRecord<K extends z.core.$ZodRecordKey, V extends z.ZodType>(
  keyType: K,
  valueType: V,
): z.ZodRecord<K, V> {
  return new OwnKeysRecord({ type: "record", keyType, valueType }) as unknown as z.ZodRecord<K, V>;
}

/**
 * The length bounds of a record's keys, for its `.openapi()`: the generator leaves a key schema's
 * bounds out of the document (and its metadata type has no `propertyNames`), so a document reader
 * would send keys the route refuses.
 */
export const keyLength = (minLength: number, maxLength: number): object => ({
  propertyNames: { minLength, maxLength },
});

/** A half-open date-time range `[dateFrom, dateTo)`. */
/**
 * The examples of a range's bounds: a wide range, so that a request built from the document's
 * examples finds the demo data (one example for both made it the empty range [x, x): an outside
 * audit).
 */
export const RANGE_FROM_EXAMPLE = "2020-01-01T00:00:00Z";
export const RANGE_TO_EXAMPLE = "2030-01-01T00:00:00Z";

export const DateRange = z
  .object({
    dateFrom: DateTime.openapi({ example: RANGE_FROM_EXAMPLE }),
    dateTo: DateTime.openapi({ example: RANGE_TO_EXAMPLE }),
  })
  .refine((r) => compareDateTimes(r.dateFrom, r.dateTo) <= 0, {
    path: ["dateTo"],
    message: "dateTo must not be before dateFrom",
  });

/**
 * A uuid: any 8-4-4-4-12 hex string. Deliberately not RFC-variant strict, so ids made by hand or by
 * other systems (`11111111-1111-1111-1111-111111111111`) are accepted as Postgres accepts them.
 * Parsed into lower case, as Postgres writes a uuid: the services match a request's ids against
 * the rows they read (and store some in documents) by their text, where `ABC...` is not `abc...`.
 * Done here, once, rather than by each service (an upper-case id was a 404 or a duplicate in four
 * routes that did not). `toLowerCase` rewrites the value without a transform, so the schema is the
 * same in the OpenAPI document and in answers (Postgres's text is lower case already).
 */
export const Uuid = z.guid().toLowerCase().openapi({ format: "uuid" });
