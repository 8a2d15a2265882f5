import { describe, expect, it, vi } from "vitest";
import { parseJsonText } from "../../src/lib/json-text";

/**
 * A text over 64 KiB is scanned for nesting before JSON.parse builds it (1 MiB of `[[[` is half a
 * million arrays): the scan must answer what the walk after the parse answers for a short text.
 */
const pad = (text: string) => {
  // The same structure with a long string member in front, so the text takes the scan.
  const filler = `"${"x".repeat(70_000)}"`;
  return text.startsWith("{") ? `{"pad":${filler},${text.slice(1)}` : `[${filler},${text.slice(1)}`;
};

describe("parseJsonText on long texts", () => {
  // Past PARSE_DEPTH_AT_MOST (1,024) the scan alone answers; below it, the parse and the walk.
  const cases: [string, string][] = [
    ["arrays, 40 deep", `${"[".repeat(40)}1${"]".repeat(40)}`],
    ["arrays, 2,000 deep", `${"[".repeat(2000)}1${"]".repeat(2000)}`],
    ["objects, 2,000 deep", `${'{"a":'.repeat(2000)}1${"}".repeat(2000)}`],
    [
      "nesting after siblings, escaped keys and brackets inside strings",
      `{"x":[1,"[{",{"k\\"ey\\\\":[0,${"[".repeat(1500)}"]]\\"["${"]".repeat(1500)}]}]}`,
    ],
  ];

  it.each(cases)("names the same place as the walk does for a short text: %s", (_, text) => {
    const short = parseJsonText(
      text.startsWith("{") ? `{"pad":"",${text.slice(1)}` : `["",${text.slice(1)}`,
    );
    const long = parseJsonText(pad(text));
    expect(short).toMatchObject({ ok: false, malformed: false });
    expect(long).toEqual(short);
  });

  it("refuses 1 MiB of nesting by its path, without building it", () => {
    const levels = 512 * 1024;
    const parse = vi.spyOn(JSON, "parse");
    let result: ReturnType<typeof parseJsonText>;
    try {
      result = parseJsonText(`${"[".repeat(levels)}${"]".repeat(levels)}`);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    expect(result).toEqual({
      ok: false,
      malformed: false,
      errors: [{ path: "[0]".repeat(32), message: "is nested deeper than 32 levels" }],
    });
  });

  it("calls unmatched brackets malformed, as JSON.parse would", () => {
    expect(parseJsonText("[".repeat(100_000))).toEqual({ ok: false, malformed: true });
    expect(parseJsonText(`${"[".repeat(2000)}${"}".repeat(2000)}${" ".repeat(70_000)}`)).toEqual({
      ok: false,
      malformed: true,
    });
    expect(parseJsonText(`["${"x".repeat(70_000)}`)).toEqual({ ok: false, malformed: true });
  });

  it("still calls a long text malformed when it is not JSON and not absurdly deep", () => {
    const notJson = `${"[".repeat(100)}x${"]".repeat(100)}${" ".repeat(70_000)}`;
    expect(parseJsonText(notJson)).toEqual({ ok: false, malformed: true });
  });

  it("takes a long text within the limit, strings full of brackets and quotes included", () => {
    const tricky = `[{("\\"[[[{{{\\\\`.repeat(10_000);
    const value = { data: tricky, nested: [[[{ a: [1, 2, { b: "]]}" }] }]]], n: 1 };
    const result = parseJsonText(JSON.stringify(value));
    expect(result).toEqual({ ok: true, value });
  });
});
