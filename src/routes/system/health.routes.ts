import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../lib/router";

const HealthSchema = z
  .object({ status: z.literal("ok"), time: z.iso.datetime() })
  .openapi("Health");

const health = createRoute({
  method: "get",
  path: "/health",
  tags: ["System"],
  operationId: "getHealth",
  summary: "Liveness",
  description:
    "Answers without an API key and without touching the database, so it measures the edge alone; database outages show as 503 on the routes that need it.",
  security: [],
  responses: {
    200: {
      description: "The Worker is up.",
      content: { "application/json": { schema: HealthSchema } },
    },
  },
});

export const healthRoutes = createRouter().openapi(health, (c) =>
  c.json({ status: "ok" as const, time: new Date().toISOString() }, 200),
);
