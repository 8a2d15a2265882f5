import { createRoute, z } from "@hono/zod-openapi";
import { jsonRequestBody, jsonResponse } from "../../lib/openapi";
import { BusinessLocationSchema } from "../../schemas/business-location";
import { slotConflictResponse } from "../../schemas/experience-preview";
import { errorResponses, readErrorResponses } from "../../schemas/problem";
import { SlotActionsCommandSchema } from "../../schemas/slot-actions";
import { AvailabilityQuerySchema, SlotSchema } from "../../schemas/slots";

export const listAvailabilitiesRoute = createRoute({
  method: "get",
  path: "/availabilities",
  tags: ["Experiences"],
  operationId: "listAvailabilities",
  summary: "Slots of experiences in a date range",
  description:
    "The key's winery's slots dated from..to (both inclusive, at most 366 days: otherwise 400 naming `to`), of one experience when experienceId is given (another winery's or an unknown experience: 404), ordered by date, time, id, each with its occupancy (reservedCount from reservations, externalOccupants set by E9's newOccupantsCount, occupiedCount their sum, availableSeats). One round trip.",
  request: { query: AvailabilityQuerySchema },
  responses: {
    200: jsonResponse(z.array(SlotSchema), "The slots."),
    ...readErrorResponses("NOT_FOUND"),
  },
});

export const slotActionsRoute = createRoute({
  method: "post",
  path: "/availabilities/actions",
  tags: ["Experiences"],
  operationId: "runSlotActions",
  summary: "E9. Create, update or delete slots of experiences",
  description: [
    "All requests of a call apply in order, in one transaction: all or nothing.",
    "CREATE: experienceId and time, with day or with startFromValid..endToValid (at most 366 days) on the weekDays set to true (absent: every day; keys MONDAY..SUNDAY in upper case, any other key is 400 naming it). `day` together with startFromValid, endToValid or weekDays is 400 naming the range field. maxParties from newMaxParties or the experience (400 if neither), minParties from newMinParties or the experience's minPartiesToEnable (default 1); when newMinParties or newMaxParties is given and minParties would exceed maxParties, 400 naming the field given (newMinParties if both), as UPDATE answers; enabled languages from newEnabledLanguages or the experience's languagesIsoCode, newDefaultLanguages, newActive (default true), newOccupantsCount, extraData. A range makes a series: its first new slot is the parent (parentSlotId of the others). A slot that already exists at (experience, date, time) is skipped, not an error, and reported in slotActions.skipped as ALREADY_EXISTS.",
    "UPDATE / DELETE: slotId (effectPolicy SINGLE, the default: that slot; FOLLOWING: it and the later slots of its series; SERIES: its whole series) or parentSlotId (the series: the parent and the slots naming it), optionally narrowed by startFromValid/endToValid (at most 366 days, as for CREATE) and weekDays; experienceId, when given, must own them. UPDATE sets newDay (a single slot only), newTime, newMaxParties, newMinParties, newEnabledLanguages, newDefaultLanguages, newActive, newOccupantsCount, extraData.",
    "newOccupantsCount is the number of seats taken outside the system (phone bookings, walk-ins): it replaces the slot's externalOccupants and never touches the seats reservations hold (reservedCount); a slot is occupied when reservedCount + externalOccupants > 0.",
    "A slot acted on by itself (slotId with SINGLE) becomes manuallyModified; series and range actions skip manually modified slots (reported as MANUALLY_MODIFIED) unless ignoreManualModification, which also clears the flag on the slots that series or range action updates (a slot acted on by itself stays, or becomes, manuallyModified, ignoreManualModification or not).",
    "An occupied slot is neither deleted, moved (newDay/newTime), nor left with more occupants than maxParties unless the request that does it has ignoreOccupiedSlot (the flag excuses its own request's change, not another request's change to the same slot; the check is on the call's net change to each slot, after all its requests, so a slot that one request shrinks and a later one empties is no conflict; occupied means its reservations, and its external occupants (newOccupantsCount) unless the same call emptied them: a call that sets newOccupantsCount 0 and deletes or moves the slot is no conflict, as the same two changes in two calls are none): otherwise the whole call fails with 409 CONFLICT, `slots` listing each such slot as E8's conflicts do (SlotConflict: slotId, experienceId, date, time as a LocalTime object, occupiedCount, maxParties, reason, reservationIds) and `reservationIds` and `detail` naming the slots and the reservations on them. With ignoreOccupiedSlot, a deleted slot's reservations stay, without a slot (slotId null, holding no seats); a moved slot keeps its reservations and their seats, and takes them along: their date and time become the slot's new ones, and their updatedAt the server's UTC time (a reservation is at its slot's date and time; E16 shows them there). Moving a slot onto another slot's date and time is 409 CONFLICT too, `slots` naming the slot that is there (reason SLOT_EXISTS).",
    "dryRun on any request makes the whole call a dry run: everything is computed (errors and conflicts included, answered exactly as a real call would) and nothing is written.",
    "Answer: one element, the business-location record of the key's winery (integrations with their authToken decrypted), plus slotActions: the slots created, updated, deleted and skipped.",
    "Unknown experienceId, slotId or parentSlotId (or another winery's) is 404. At most 10,000 new slots per call.",
  ].join("\n\n"),
  request: { body: jsonRequestBody(SlotActionsCommandSchema) },
  responses: {
    200: jsonResponse(z.array(BusinessLocationSchema), "The business-location record."),
    ...errorResponses("NOT_FOUND"),
    ...slotConflictResponse,
  },
});
