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
 * deeper than MAX_JSON_DEPTH, an array of more than MAX_ARRAY_ITEMS elements and a number that
 * would not be kept as sent (see MAY_LOSE_DIGITS). Used for every request body
 * (src/middleware/json-body.ts) and for JSON carried inside a string (E19's order document), so the
 * rules hold wherever JSON enters.
 * V8's JSON.parse is iterative, so a deeply nested text cannot overflow the stack here; the walk
 * below stops descending at the limit.
 */
export function parseJsonText(text: string): JsonTextResult {
  if (text.length > SCAN_DEPTH_FROM) {
    const scan = scanNesting(text, MAX_JSON_DEPTH);
    if (scan === "unbalanced") return { ok: false, malformed: true };
    if (scan.tooDeep && scan.maxDepth > PARSE_DEPTH_AT_MOST) {
      return { ok: false, malformed: false, errors: [scan.tooDeep] };
    }
  }
  let value: unknown;
  try {
    // Only a text that may hold a number a double changes is parsed with each literal's source
    // text (slower), marking such a number LOST for the walk to name.
    value = MAY_LOSE_DIGITS.test(text) ? JSON.parse(text, markLost) : JSON.parse(text);
  } catch {
    return { ok: false, malformed: true };
  }
  // Any LOST is named by the walk, or lies under a place it refuses: never answered as a value.
  const errors = inspectJson(value);
  return errors.length > 0 ? { ok: false, malformed: false, errors } : { ok: true, value };
}

/**
 * Texts longer than this are scanned for nesting before they are parsed: JSON.parse of 1 MiB of
 * `[[[[...` builds half a million arrays (about 30 MiB of heap and 130 ms of CPU) only for the
 * walk to refuse them at level 32. A shorter text is cheap to parse, and the walk names it.
 */
const SCAN_DEPTH_FROM = 64 * 1024;
/**
 * A long text nested deeper than this is refused by the scan alone, naming the place the walk
 * would name; one nested less deep is parsed (cheap at that depth), so that a text that is not
 * JSON at all is still MALFORMED_JSON. The scan checks brackets and strings only: a text nested
 * past this depth that also breaks JSON elsewhere (a missing comma) is answered as too deep.
 */
const PARSE_DEPTH_AT_MOST = 1024;

interface Frame {
  array: boolean;
  /** An array's index of the current element. */
  index: number;
  /** An object's current key: where its string token starts and ends in the text. */
  key: [number, number] | undefined;
}

/**
 * How deep `text` nests, found without parsing (brackets counted outside strings), and the first
 * place where it nests deeper than `limit`, as inspectJson names it. "unbalanced" when the
 * brackets or strings do not close (the text is malformed, as JSON.parse would say).
 */
function scanNesting(
  text: string,
  limit: number,
): { maxDepth: number; tooDeep: FieldError | undefined } | "unbalanced" {
  // Open brackets by depth (1: array), and the first `limit` levels' place (index or key).
  const arrays = new Uint8Array(text.length + 1);
  const frames: Frame[] = [];
  let depth = 0;
  let maxDepth = 0;
  let found: FieldError | undefined;
  let lastString: [number, number] | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, one not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return "unbalanced";
      lastString = [i, end];
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (depth === limit && !found) {
        try {
          found = {
            path: pathOf(text, frames) || "body",
            message: `is nested deeper than ${limit} levels`,
          };
        } catch {
          return "unbalanced"; // a key that is no JSON string
        }
      }
      arrays[depth] = c === 0x5b ? 1 : 0;
      if (depth < limit) frames[depth] = { array: c === 0x5b, index: 0, key: undefined };
      depth++;
      if (depth > maxDepth) maxDepth = depth;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth === 0 || arrays[depth - 1] !== (c === 0x5d ? 1 : 0)) return "unbalanced";
      depth--;
    } else if (c === 0x2c && depth > 0 && depth <= limit) {
      const top = frames[depth - 1];
      if (top?.array) top.index++;
    } else if (c === 0x3a && depth > 0 && depth <= limit) {
      const top = frames[depth - 1];
      if (top && !top.array) top.key = lastString;
    }
  }
  if (depth > 0) return "unbalanced";
  return { maxDepth, tooDeep: found };
}

/** The path into the frame below the first `limit` ones, as inspectJson writes it. */
function pathOf(text: string, frames: Frame[]): string {
  return formatPath(
    frames.map((frame) =>
      frame.array
        ? frame.index
        : frame.key
          ? (JSON.parse(text.slice(frame.key[0], frame.key[1] + 1)) as string)
          : "",
    ),
  );
}

/**
 * Number literals that JSON.parse cannot hold as sent, which would be stored changed ("free-form
 * objects are stored as given"): an integer past 2^53 that a double rounds
 * (12345678901234567890 becomes 12345678901234567000) and a non-zero literal below the smallest
 * double (1e-400 becomes 0). A number past the largest double (1e400) is caught by inspectJson.
 * A fraction's digits past what a double keeps are not refused: any float behaves so, and a
 * serializer may write more digits than it needs for the same double.
 */
const MAY_LOSE_DIGITS = /\d{16}|[eE]-\d{3}/;

const LOST = Symbol("lost");

/**
 * A number's text reduced to its sign, significant digits and decimal exponent ("-1.50e3" and
 * "-1500" are both "-15e4"), so two spellings of one decimal compare equal.
 */
function significand(text: string): string {
  const sign = text.startsWith("-") ? "-" : "";
  const [mantissa = "", exponent = "0"] = text.replace(/^-/, "").toLowerCase().split("e");
  const [int = "", fraction = ""] = mantissa.split(".");
  const all = int + fraction;
  const digits = all.replace(/^0+/, "");
  if (digits === "") return "0";
  const leadingZeros = all.length - digits.length;
  return `${sign}${digits.replace(/0+$/, "")}e${Number(exponent) + int.length - leadingZeros}`;
}

/**
 * Whether a literal comes back from its double other than it was sent. An integer literal must
 * come back as the same decimal: the service answers what JavaScript writes for the double
 * (123456789012345680000 is written so and kept; 12345678901234567890 would come back
 * 12345678901234567000, and 2^60 spelled exactly, 1152921504606846976, as 1152921504606847000).
 */
function losesDigits(source: string, value: number): boolean {
  if (!Number.isFinite(value)) return false; // inspectJson's
  if (/^-?\d+$/.test(source)) return significand(source) !== significand(String(value));
  return value === 0 && /[1-9]/.test(source.split(/[eE]/)[0] ?? "");
}

/** JSON.parse's reviver: a number literal that would not come back as sent becomes LOST. */
function markLost(_key: string, value: unknown, context?: { source?: string }): unknown {
  return typeof value === "number" &&
    context?.source !== undefined &&
    losesDigits(context.source, value)
    ? LOST
    : value;
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
    if (value === LOST) {
      report(
        path,
        "is a number this service cannot keep as sent (an integer past 2^53, or a non-zero value below 5e-324): send it as a string",
      );
      continue;
    }
    if (typeof value === "number" && !Number.isFinite(value)) {
      report(path, "is a number past the largest this service keeps (1.7976931348623157e308)");
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
