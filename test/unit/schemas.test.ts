import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { CommerceSessionInputSchema } from "../../src/schemas/commerce-sessions";
import { CalendarDate, DateTime, Int32, Uuid } from "../../src/schemas/common";
import {
  IDEMPOTENCY_KEY_PATTERN,
  idempotencyKeyHeaders,
  idempotencyKeyOf,
} from "../../src/schemas/idempotency";
import { ProductInputSchema } from "../../src/schemas/product-input";

const UPPER = "3F8A2C1E-5B7D-4E9F-A1C2-D4E5F6A7B8C9";

describe("wire types", () => {
  it.each([
    ["11111111-1111-1111-1111-111111111111", true],
    ["3f8a2c1e-5b7d-4e9f-a1c2-d4e5f6a7b8c9", true],
    ["3F8A2C1E-5B7D-4E9F-A1C2-D4E5F6A7B8C9", true],
    ["3f8a2c1e5b7d4e9fa1c2d4e5f6a7b8c9", false],
    ["not-a-uuid", false],
  ])("uuid %s: %s", (value, ok) => {
    expect(Uuid.safeParse(value).success).toBe(ok);
  });

  it("uuid: parsed into lower case, as Postgres writes it", () => {
    expect(Uuid.parse("3F8A2C1E-5B7D-4E9F-A1C2-D4E5F6A7B8C9")).toBe(
      "3f8a2c1e-5b7d-4e9f-a1c2-d4e5f6a7b8c9",
    );
  });

  // The schemas that refuse a repeated id compare the parsed, lower-case ids.
  it.each([
    [
      "commerce session items",
      CommerceSessionInputSchema,
      { items: [{ id: UPPER }, { id: UPPER.toLowerCase() }] },
      "items.1.id",
    ],
    [
      "product categories",
      ProductInputSchema,
      { sku: "X", categories: [{ id: UPPER }, { id: UPPER.toLowerCase() }] },
      "categories",
    ],
    [
      "product channels",
      ProductInputSchema,
      {
        sku: "X",
        channels: [
          { wineryChannelId: UPPER, priceCents: 100 },
          { wineryChannelId: UPPER.toLowerCase(), priceCents: 100 },
        ],
      },
      "channels",
    ],
  ])("%s: one id in two letter cases is a repeat", (_, schema, body, path) => {
    const result = (schema as z.ZodType).safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toContain(path);
  });

  it.each([
    ["2026-05-01T10:00:00Z", true],
    ["2026-05-01T10:00:00.123+02:00", true],
    ["2026-05-01T10:00:00", false],
    ["2026-05-01", false],
  ])("date-time %s: %s", (value, ok) => {
    expect(DateTime.safeParse(value).success).toBe(ok);
  });

  it.each([
    ["2024-02-29", true],
    ["2026-02-29", false],
    ["2026-13-01", false],
  ])("date %s: %s", (value, ok) => {
    expect(CalendarDate.safeParse(value).success).toBe(ok);
  });

  it.each([
    [2 ** 31 - 1, true],
    [2 ** 31, false],
    [1.5, false],
  ])("int32 %s: %s", (value, ok) => {
    expect(Int32.safeParse(value).success).toBe(ok);
  });
});

describe("idempotencyKeyOf: the key an Idempotency-Key header names", () => {
  it.each([
    ["abc", "abc"],
    ['"abc"', "abc"],
    ['"a\\"b\\\\c"', 'a"b\\c'],
    ['"abc";p=1', "abc"],
    ['"abc"x', '"abc"x'],
    ['"a\\xb"', '"a\\xb"'],
    ['"abc', '"abc'],
    ['a"b', 'a"b'],
  ])("%s names %s", (header, key) => {
    expect(idempotencyKeyOf(header)).toBe(key);
  });

  // The document's pattern says exactly which headers the server takes (an outside OpenAPI audit:
  // its maxLength of 257 admitted unquoted keys of 256 and 257 that the server refuses).
  const accepted = (header: string) =>
    idempotencyKeyHeaders("").safeParse({ "Idempotency-Key": header }).success;
  const pattern = new RegExp(IDEMPOTENCY_KEY_PATTERN);
  it.each([
    "k".repeat(255),
    "k".repeat(256),
    `"${"k".repeat(255)}"`,
    `"${"k".repeat(256)}"`,
    `"${'\\"'.repeat(255)}"`,
    '""',
    '"";p=1',
    '"";',
    '"abc";p=1',
    '"abc"x',
    '"a',
    "",
  ])("the pattern and the server agree on %s", (header) => {
    expect(pattern.test(header)).toBe(accepted(header));
  });

  it("the pattern and the server agree on generated headers", () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 300,
    });
    const quoted = fc
      .tuple(
        fc.array(
          fc.oneof(
            fc.constantFrom('\\"', "\\\\", "\\x"),
            printable.filter((s) => s.length < 3),
          ),
          { maxLength: 150 },
        ),
        fc.option(printable, { nil: undefined }),
      )
      .map(([parts, params]) => `"${parts.join("")}"${params === undefined ? "" : `;${params}`}`);
    fc.assert(
      fc.property(
        fc.oneof(printable, quoted),
        (header) => pattern.test(header) === accepted(header),
      ),
      { numRuns: 2000, seed: 20261127 },
    );
  });
});
