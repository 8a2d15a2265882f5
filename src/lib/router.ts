import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ValidationError } from "./errors";
import { fieldErrorsFromZod } from "./problem";

/**
 * Every router validates with the same rule: a failing schema is a VALIDATION_ERROR naming each
 * field path, thrown to the one error handler. Path/query/header problems are prefixed with their
 * location so `id` in the path is not confused with `id` in the body.
 */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const prefix = result.target === "json" ? [] : [result.target];
        throw new ValidationError(fieldErrorsFromZod(result.error, prefix));
      }
    },
  });
}
