import { createRoute } from "@hono/zod-openapi";
import { jsonRequestBody, jsonResponse } from "../../lib/openapi";
import { ExperiencePreviewSchema, slotConflictResponse } from "../../schemas/experience-preview";
import {
  ExperienceIdParamsSchema,
  ExperienceInputSchema,
  ExperienceSchema,
} from "../../schemas/experiences";
import { errorResponses, readErrorResponses } from "../../schemas/problem";

const PLAN_RULES =
  "The plan: the experience is replaced by the input (a field absent or null is stored as null). Experience-level changes propagate to the experience's slots dated today (UTC) or later that were not changed by hand: maxParties -> slot maxParties, minPartiesToEnable -> minParties, languagesIsoCode -> enabledLanguages, active -> active; a changed validity window (flatTranslations.validityFrom/validityTo) deletes the slots outside it. Only a field this save changes propagates. Then slotsRequests apply in order: with `id` (a slot of this experience, else 400) that slot is changed by hand (moved to day/time, maxParties, minPartiesToEnable, languages, extraData where sent) and marked manuallyModified; a move onto the date and time another slot holds at that point of the order is not made and is a conflict with reason SLOT_EXISTS naming the slot that is there, as E9 answers it (E8 lists it among its conflicts, the save answers 409 CONFLICT); without `id`, `time` with `day` or with validityStart..validityEnd (at most 366 days, only on dayOfWeek when given) creates the slot at each date, or updates the existing one with the fields sent. New slots take maxParties from the request or the experience (400 if neither), minParties from minPartiesToEnable (default 1), languages from languagesIsoCode, active from active (default true: an inactive experience's new slots are inactive, as its existing ones are made by the save that deactivates it); a range makes a series whose parentSlotId is its first new slot. At most 10,000 new slots per save.";

export const getExperienceRoute = createRoute({
  method: "get",
  path: "/experiences/{id}",
  tags: ["Experiences"],
  operationId: "getExperience",
  summary: "Read a stored experience",
  description:
    "The experience as the last PUT stored it (slotsRequests excepted: read slots with GET /api/v2/availabilities). One round trip. Another winery's id is 404.",
  request: { params: ExperienceIdParamsSchema },
  responses: {
    200: jsonResponse(ExperienceSchema, "The experience."),
    ...readErrorResponses("NOT_FOUND"),
  },
});

export const saveExperienceRoute = createRoute({
  method: "put",
  path: "/experiences/{id}",
  tags: ["Experiences"],
  operationId: "saveExperience",
  summary: "Create or replace an experience, applying its slot plan",
  description: `Stores an ExperienceAllParamsInput under {id} (ids are per winery) and applies the plan that E8 previews, all in one transaction. A body \`id\` must equal the path id (400); a body \`wineryId\` other than the key's winery is 403. The experience and its slots are locked while the plan is made and applied, so concurrent saves and slot actions queue. A plan that would delete, move or shrink below its occupants an occupied slot, or move a slot onto another's date and time (SLOT_EXISTS), writes nothing: 409 CONFLICT with the slots in \`slots\` (SlotConflict, as E8's conflicts name them) and the reservations on them in \`reservationIds\`; the input has no override, so \`detail\` says what the client can do: save values those slots can hold, move their reservations first (E11), or change the slots with E9 and ignoreOccupiedSlot. ${PLAN_RULES}`,
  request: { params: ExperienceIdParamsSchema, body: jsonRequestBody(ExperienceInputSchema) },
  responses: {
    200: jsonResponse(ExperienceSchema, "The stored experience."),
    ...errorResponses("FORBIDDEN"),
    ...slotConflictResponse,
  },
});

export const previewPropagationRoute = createRoute({
  method: "post",
  path: "/experiences/preview-propagation",
  tags: ["Experiences"],
  operationId: "previewExperiencePropagation",
  summary: "E8. Preview propagation of an experience",
  description: `Writes nothing. Answers what PUT /api/v2/experiences/{id} with this input (id taken from the body; absent or unknown to the winery: a creation) would change, computed by the save's own planning function: changedFields (field, before, after), slots {create, update (slotId and its changed fields), delete}, conflicts (the occupied slots the save would refuse to touch, each with the ids of the reservations on it, and the slots a slotsRequests move would land on, reason SLOT_EXISTS: with any, the save answers 409) and integrations (experienceIntegrations added, removed, changed, keyed by integrationId). One round trip. ${PLAN_RULES}`,
  request: { body: jsonRequestBody(ExperienceInputSchema) },
  responses: {
    200: jsonResponse(ExperiencePreviewSchema, "The planned changes."),
    ...errorResponses("FORBIDDEN"),
  },
});
