import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import {
  createCustomerClass,
  getCustomerClass,
  updateCustomerClass,
} from "../../services/customer-classes/customer-classes";
import type {
  createCustomerClassRoute,
  getCustomerClassRoute,
  updateCustomerClassRoute,
} from "./customer-classes.routes";

export const createCustomerClassHandler: RouteHandler<
  typeof createCustomerClassRoute,
  AppEnv
> = async (c) => {
  const input = c.req.valid("json");
  const created = await createCustomerClass(c.get("db").http, c.get("principal").wineryId, input);
  return c.json(created, 201, { Location: `/api/v2/customerclass/${created.id}` });
};

export const updateCustomerClassHandler: RouteHandler<
  typeof updateCustomerClassRoute,
  AppEnv
> = async (c) => {
  const input = c.req.valid("json");
  const id = c.req.valid("param").id;
  return c.json(
    await updateCustomerClass(c.get("db").http, c.get("principal").wineryId, id, input),
    200,
  );
};

export const getCustomerClassHandler: RouteHandler<typeof getCustomerClassRoute, AppEnv> = async (
  c,
) =>
  c.json(
    await getCustomerClass(c.get("db").http, c.get("principal").wineryId, c.req.valid("param").id),
    200,
  );
