import { createRoute } from "@hono/zod-openapi";
import { jsonRequestBody, jsonResponse, withLocation } from "../../lib/openapi";
import {
  CreateCustomerClassCommandSchema,
  CustomerClassIdParamsSchema,
  CustomerClassSchema,
  UpdateCustomerClassCommandSchema,
} from "../../schemas/customer-classes";
import { errorResponses, readErrorResponses } from "../../schemas/problem";

const TIMESTAMPS =
  "Timestamps (validityDate, createdAt, updatedAt) are java.sql.Timestamp's bean shape in UTC, exactly as its getters give it (year since 1900, month 0..11, date = day of month, day = weekday 0 = Sunday, nanos 0..999,999,999 also before 1970, Java's Julian calendar before 1582-10-15). On input validityDate is that object (only `time` is read) or an ISO date-time, read to the millisecond as `time` holds it (a finer fraction is cut, toward the past: .123456789 gives nanos 123,000,000); null means no expiry. isExpired: validityDate lies in the past. Rates are percentages 0..100; priceType is MONTHLY, YEARLY or UNA_TANTUM. classId is numbered per winery (1, 2, 3, ...) when the class is created and is ignored on input.";

export const createCustomerClassRoute = createRoute({
  method: "post",
  path: "/customerclass",
  tags: ["Customer classes"],
  operationId: "createCustomerClass",
  summary: "Create a customer class",
  description: `Creates a class (a wine club, a trade class) of the API key's winery, with the winery's next classId, in one statement. className, classType and priceType are required; fields left out or sent as null take their defaults (rates and price 0, isActive true, isPaid false, validityDate null). id, wineryId and classId may be null (as left out); a body id is ignored (the class gets a new id). A body wineryId other than the key's is 403. ${TIMESTAMPS}`,
  request: { body: jsonRequestBody(CreateCustomerClassCommandSchema) },
  responses: {
    201: withLocation(jsonResponse(CustomerClassSchema, "The created class.")),
    ...errorResponses("FORBIDDEN"),
  },
});

export const updateCustomerClassRoute = createRoute({
  method: "put",
  path: "/customerclass/{id}",
  tags: ["Customer classes"],
  operationId: "updateCustomerClass",
  summary: "E7. Update a customer class by id",
  description: `Updates an existing class of the winery in one statement (404 otherwise, another winery's included). Every field is optional: a field left out keeps its stored value (a body without isActive leaves a deactivated class deactivated); a field sent replaces it. validityDate null clears it (no expiry); null for any other field keeps its stored value, as leaving it out does, since the class always has one. id, wineryId and classId may be null (as left out). A body id other than the path's is 400; a body wineryId other than the key's is 403. ${TIMESTAMPS}`,
  request: {
    params: CustomerClassIdParamsSchema,
    body: jsonRequestBody(UpdateCustomerClassCommandSchema),
  },
  responses: {
    200: jsonResponse(CustomerClassSchema, "The updated class."),
    ...errorResponses("FORBIDDEN", "NOT_FOUND"),
  },
});

export const getCustomerClassRoute = createRoute({
  method: "get",
  path: "/customerclass/{id}",
  tags: ["Customer classes"],
  operationId: "getCustomerClass",
  summary: "Read a customer class",
  description: `One class of the winery (404 otherwise). ${TIMESTAMPS}`,
  request: { params: CustomerClassIdParamsSchema },
  responses: {
    200: jsonResponse(CustomerClassSchema, "The class."),
    ...readErrorResponses("NOT_FOUND"),
  },
});
