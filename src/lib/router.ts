import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ValidationError } from "./errors";
import { fieldErrorsFromZod, parameterProblem } from "./problem";

/**
 * Every router validates with the same rule: a failing schema is a VALIDATION_ERROR naming each
 * field path, thrown to the one error handler. A path, query or header parameter is named bare, its
 * place said in the message (parameterProblem).
 */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const errors = fieldErrorsFromZod(result.error);
        const { target } = result;
        throw new ValidationError(
          target === "param" || target === "query" || target === "header"
            ? errors.map(({ path, message }) => parameterProblem(target, path, message))
            : errors,
        );
      }
    },
  });
}
