import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { assertBodyIdIsPathId } from "../../lib/path-id";
import { previewExperience } from "../../services/experiences/preview-experience";
import { getExperience, saveExperience } from "../../services/experiences/save-experience";
import type {
  getExperienceRoute,
  previewPropagationRoute,
  saveExperienceRoute,
} from "./experiences.routes";

export const getExperienceHandler: RouteHandler<typeof getExperienceRoute, AppEnv> = async (c) =>
  c.json(
    await getExperience(c.get("db").http, c.get("principal").wineryId, c.req.valid("param").id),
    200,
  );

export const saveExperienceHandler: RouteHandler<typeof saveExperienceRoute, AppEnv> = async (
  c,
) => {
  const { id } = c.req.valid("param");
  const input = c.req.valid("json");
  assertBodyIdIsPathId(input.id, id, "must equal the id in the path");
  return c.json(await saveExperience(c.get("db"), c.get("principal").wineryId, id, input), 200);
};

export const previewPropagationHandler: RouteHandler<
  typeof previewPropagationRoute,
  AppEnv
> = async (c) => {
  const input = c.req.valid("json");
  return c.json(await previewExperience(c.get("db").http, c.get("principal").wineryId, input), 200);
};
