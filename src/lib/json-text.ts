import type { FieldError } from "./errors";
import { formatPath } from "./problem";

/** decisions.md: a JSON body nested deeper than this, anywhere, is refused before any schema. */
export const MAX_JSON_DEPTH = 32;
/**
 * decisions.md, "Limits": an array in a request holds at most this many elements, anywhere (free-form
 * objects and unknown fields included, as for depth). The typed arrays' schemas say the same, so
 * the document states it; this holds it where no schema looks.
 */
export const MAX_ARRAY_ITEMS = 1000;
/** Enough to show the caller what is wrong without answering with a novel. */
const MAX_REPORTED = 20;

export type JsonTextResult =
  | { ok: true; value: unknown }
  | { ok: false; malformed: true }
  | { ok: false; malformed: false; errors: FieldError[] };

/**
 * Parses JSON text and refuses what Postgres or JavaScript cannot hold, naming where it sits:
 * a NUL character (U+0000) or a lone UTF-16 surrogate in any string or object key, nesting
 * deeper than MAX_JSON_DEPTH and an array of more than MAX_ARRAY_ITEMS elements. Used for every request body (src/middleware/json-body.ts) and for
 * JSON carried inside a string (E19's order document), so the rules hold wherever JSON enters.
 * V8's JSON.parse is iterative, so a deeply nested text cannot overflow the stack here; the walk
 * below stops descending at the limit.
 */
export function parseJsonText(text: string): JsonTextResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, malformed: true };
  }
  const errors = inspectJson(value);
  return errors.length > 0 ? { ok: false, malformed: false, errors } : { ok: true, value };
}

function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain NUL characters";
  if (!text.isWellFormed()) return "must not contain lone UTF-16 surrogates";
  return undefined;
}

/** The hostile-input problems of a parsed JSON value, each with its path. */
export function inspectJson(root: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const report = (path: PropertyKey[], message: string) => {
    errors.push({ path: formatPath(path) || "body", message });
  };
  // Iterative, depth-first: the value may be as deep as the body allows.
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0 && errors.length < MAX_REPORTED) {
    const { value, path } = stack.pop() as { value: unknown; path: PropertyKey[] };
    if (typeof value === "string") {
      const problem = textProblem(value);
      if (problem) report(path, problem);
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= MAX_JSON_DEPTH) {
      report(path, `is nested deeper than ${MAX_JSON_DEPTH} levels`);
      continue;
    }
    if (Array.isArray(value)) {
      if (value.length > MAX_ARRAY_ITEMS) {
        report(path, `must hold at most ${MAX_ARRAY_ITEMS} elements`);
        continue;
      }
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], path: [...path, i] });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      const problem = textProblem(key);
      if (problem) report([...path, key], `key ${problem}`);
      else stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
  return errors;
}
