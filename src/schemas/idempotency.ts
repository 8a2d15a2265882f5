import { z } from "@hono/zod-openapi";

/** The optional `Idempotency-Key` request header, documented per route. */
export const idempotencyKeyHeaders = (description: string) =>
  z.object({
    "Idempotency-Key": z
      .string()
      .optional()
      .openapi({ param: { name: "Idempotency-Key", in: "header" }, description }),
  });
