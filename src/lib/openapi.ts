import type { z } from "@hono/zod-openapi";

/** A required JSON request body (the validator then refuses a missing one). */
export const jsonRequestBody = <T extends z.ZodType>(schema: T, description?: string) => ({
  required: true,
  ...(description && { description }),
  content: { "application/json": { schema } },
});

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
