import { z } from "@hono/zod-openapi";

const PRINTABLE = /^[\x20-\x7e]{1,255}$/;

/**
 * What the header may be, for the OpenAPI document: the key as sent (1 to 255 printable ASCII
 * characters, but not the quoted form of an empty key), or its quoted form whose string holds 1 to 255 (each an unescaped printable
 * character other than `"` and `\`, or `\"` or `\\`), with parameters after it. The server's own
 * test is PRINTABLE on the key idempotencyKeyOf reads: a header is accepted exactly when it
 * matches this pattern (a length limit could not say so: a quoted key of 255 is 257 characters
 * and more with escapes or parameters). test/unit/schemas.test.ts holds the two together.
 */
export const IDEMPOTENCY_KEY_PATTERN =
  '^(?:(?!""(?:;|$))[\\x20-\\x7e]{1,255}|"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\["\\\\]){1,255}"(?:;[\\x20-\\x7e]*)?)$';

/**
 * The key a header names. The IETF draft makes it a Structured Field string (RFC 8941): quoted,
 * `\"` and `\\` escaped, optionally followed by parameters (`;name=value`, which name nothing
 * here). Such a header is read as that string; any other header is the key as sent.
 */
export function idempotencyKeyOf(header: string): string {
  if (!header.startsWith('"')) return header;
  let key = "";
  for (let i = 1; i < header.length; i++) {
    const char = header[i];
    if (char === "\\") {
      const next = header[++i];
      if (next !== '"' && next !== "\\") return header;
      key += next;
    } else if (char === '"') {
      const rest = header.slice(i + 1);
      return rest === "" || rest.startsWith(";") ? key : header;
    } else {
      key += char;
    }
  }
  return header;
}

/**
 * The optional `Idempotency-Key` request header, parsed at the edge: 1..255 printable ASCII
 * characters; the IETF draft's quoted form (`"abc"`, see idempotencyKeyOf) is accepted and read.
 */
export const idempotencyKeyHeaders = (description: string) =>
  z.object({
    "Idempotency-Key": z
      .string()
      .transform(idempotencyKeyOf)
      .refine((key) => PRINTABLE.test(key), "must be 1 to 255 printable ASCII characters")
      .optional()
      .openapi({
        param: { name: "Idempotency-Key", in: "header" },
        type: "string",
        pattern: IDEMPOTENCY_KEY_PATTERN,
        description,
      }),
  });
