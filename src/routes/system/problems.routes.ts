import { createRoute, z } from "@hono/zod-openapi";
import {
  ERROR_DESCRIPTION,
  ERROR_STATUS,
  ERROR_TITLE,
  NotFoundError,
  ValidationError,
} from "../../lib/errors";
import {
  codeFromSlug,
  PROBLEM_CONTENT_TYPE,
  parameterProblem,
  problemType,
} from "../../lib/problem";
import { createRouter } from "../../lib/router";
import { SafeString } from "../../schemas/common";
import { ProblemSchema } from "../../schemas/problem";

const ProblemTypeSchema = z
  .object({
    type: z.string().openapi({ example: "/api/problems/stale-update" }),
    code: ProblemSchema.shape.code,
    title: z.string().openapi({ example: "Stale update" }),
    status: z.int().openapi({ example: 409 }),
    description: z.string().openapi({
      example:
        "The optimistic lock was lost: the resource changed since it was read. The body carries `currentUpdatedAt` (orders) or `currentVersion` (sessions); read it again and retry.",
    }),
  })
  .openapi("ProblemType");

const problemTypeRoute = createRoute({
  method: "get",
  path: "/problems/{slug}",
  tags: ["System"],
  operationId: "getProblemType",
  summary: "Problem type",
  description:
    "What a problem's `type` resolves to: the code's title, status and when it happens. Answers without an API key and without touching the database.",
  security: [],
  request: {
    params: z.object({
      // Checked as every path parameter is (decisions.md: a NUL is 400), at most 100 characters.
      slug: SafeString.min(1).max(100).openapi({
        example: "stale-update",
        description: "The code in kebab case.",
      }),
    }),
  },
  responses: {
    200: {
      description: "The problem type.",
      content: { "application/json": { schema: ProblemTypeSchema } },
    },
    400: {
      description:
        "VALIDATION_ERROR: the slug holds a NUL or a lone surrogate, is not percent-encoded UTF-8, or is over 100 characters.",
      content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
    },
    404: {
      description: "NOT_FOUND: no problem type has this slug.",
      content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
    },
  },
});

export const problemsRoutes = createRouter().openapi(problemTypeRoute, (c) => {
  // A segment that is not percent-encoded UTF-8 (a lone surrogate's %ED%A0%80) reaches the route
  // undecoded: 400, as on every versioned route (there the route guard answers it).
  const raw = new URL(c.req.url).pathname.split("/").at(-1) ?? "";
  try {
    decodeURIComponent(raw);
  } catch {
    throw new ValidationError([parameterProblem("param", "slug", "is not percent-encoded UTF-8")]);
  }
  const { slug } = c.req.valid("param");
  const code = codeFromSlug(slug);
  if (!code) throw new NotFoundError("Problem type", slug);
  return c.json(
    {
      type: problemType(code),
      code,
      title: ERROR_TITLE[code],
      status: ERROR_STATUS[code],
      description: ERROR_DESCRIPTION[code],
    },
    200,
  );
});
