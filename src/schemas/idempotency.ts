import { z } from "@hono/zod-openapi";

const PRINTABLE = /^[\x20-\x7e]{1,255}$/;

/**
 * The optional `Idempotency-Key` request header, parsed at the edge: 1..255 printable ASCII
 * characters; the IETF draft's quoted form (`"abc"`) is accepted and unquoted.
 */
export const idempotencyKeyHeaders = (description: string) =>
  z.object({
    "Idempotency-Key": z
      .string()
      .transform((header) => /^"(.*)"$/.exec(header)?.[1] ?? header)
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
