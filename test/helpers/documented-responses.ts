import type { z } from "@hono/zod-openapi";
import { createApp } from "../../src/app";

interface DocumentedRoute {
  method: string;
  pattern: RegExp;
  path: string;
  responses: Record<string, { content?: Record<string, { schema: z.ZodType }> } | undefined>;
}

let routes: DocumentedRoute[] | undefined;

/**
 * The routes of the OpenAPI document, with the Zod schemas that generate it. The registry holds
 * paths below the app's base path; the document adds `/api`, and so does this.
 */
function documentedRoutes(): DocumentedRoute[] {
  if (routes) return routes;
  routes = [];
  for (const definition of createApp().openAPIRegistry.definitions) {
    if (definition.type !== "route") continue;
    const { method, path, responses } = definition.route;
    const full = `/api${path}`;
    const pattern = new RegExp(`^${full.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    routes.push({
      method: method.toUpperCase(),
      pattern,
      path: full,
      responses: responses as never,
    });
  }
  return routes;
}

/**
 * Checks an answer against the document: every answer carries X-Request-Id; an error is
 * problem+json; and for a documented operation, the status is declared and the body parses with the
 * schema declared for that status and media type. Throws, naming what the document got wrong.
 */
export async function assertDocumented(method: string, url: string, response: Response) {
  const where = `${method} ${new URL(url).pathname} -> ${response.status}`;
  if (!response.headers.get("X-Request-Id")) throw new Error(`${where}: no X-Request-Id`);
  const contentType = response.headers.get("Content-Type") ?? "";
  if (response.status >= 400 && !contentType.startsWith("application/problem+json")) {
    throw new Error(`${where}: an error answered as ${contentType}, not problem+json`);
  }
  const path = new URL(url).pathname;
  const route = documentedRoutes().find((r) => r.method === method && r.pattern.test(path));
  if (!route) return;
  const declared = route.responses[String(response.status)];
  if (!declared) throw new Error(`${where}: status not declared for ${route.path}`);
  const mediaType = contentType.split(";")[0]?.trim() ?? "";
  const content = declared.content ?? {};
  const schema = content[mediaType]?.schema;
  if (!schema) {
    if (Object.keys(content).length === 0) return;
    throw new Error(`${where}: media type ${mediaType} not declared for ${route.path}`);
  }
  const text = await response.clone().text();
  if (!mediaType.endsWith("json")) return;
  const result = schema.safeParse(JSON.parse(text));
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".")}: ${i.message}`)
      .join("; ");
    throw new Error(`${where}: the body does not match the documented schema: ${issues}`);
  }
}
