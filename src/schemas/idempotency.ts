import { z } from "@hono/zod-openapi";

const PRINTABLE = /^[\x20-\x7e]{1,255}$/;

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
        minLength: 1,
        maxLength: 257,
        description,
      }),
  });
