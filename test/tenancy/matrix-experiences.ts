import { expect } from "vitest";
import type { BusinessLocation } from "../../src/schemas/business-location";
import { api } from "../helpers/api";
import { createExperience, nextWeekDays } from "../helpers/experiences";
import type { TestTenant } from "../helpers/factories";
import {
  type Attempt,
  type Ids,
  type MatrixEntry,
  okJson,
  readOk,
  record,
  unique,
} from "./matrix-entry";

/** An experience of A with one slot next Monday at 10:00. */
async function experienceOfA(a: TestTenant) {
  const title = `Anteprima ${unique()}`;
  const experience = await createExperience(a, { titleTranslations: { en: title } });
  const [day = ""] = nextWeekDays("MONDAY", 1);
  const response = await api("/v2/availabilities/actions", {
    key: a.apiKey,
    body: { requests: [{ action: "CREATE", experienceId: experience.id, day, time: "10:00" }] },
  });
  const [location] = await okJson<BusinessLocation[]>(response);
  const slotId = location?.slotActions.created[0]?.id ?? "";
  return {
    ids: { experienceId: experience.id, slotId, day, wineryId: a.wineryId },
    marks: [title, slotId],
  };
}

/** A's experience and its slots, as A reads them. */
const experienceAndSlots = async (ids: Ids, a: TestTenant) => [
  await readOk(a, `/v2/experiences/${ids.experienceId}`),
  await readOk(
    a,
    `/v2/availabilities?experienceId=${ids.experienceId}&from=${ids.day}&to=${ids.day}`,
  ),
];

const experienceBody = { active: true, maxParties: 4, titleTranslations: { en: "B's tour" } };
/** One E9 request as B, with "A" standing for A's slot id (slotId, parentSlotId) or experience. */
const slotAction =
  (request: Record<string, unknown>) =>
  (ids: Ids): Attempt => {
    const ofA: Record<string, string | undefined> = {
      slotId: ids.slotId,
      parentSlotId: ids.slotId,
      experienceId: ids.experienceId,
    };
    const named = Object.entries(request).map(([k, v]) => [k, v === "A" ? ofA[k] : v]);
    const body = {
      ...Object.fromEntries(named),
      ...(request.experienceId ? { day: ids.day } : {}),
    };
    return { path: "/v2/availabilities/actions", body: { requests: [body] } };
  };

export const experiences: MatrixEntry[] = [
  {
    operation: "GET /api/v2/experiences/{id}",
    case: "A's experience id is 404",
    arrangeA: experienceOfA,
    requestAsB: (ids) => ({ path: `/v2/experiences/${ids.experienceId}` }),
    expected: 404,
  },
  {
    // Experience ids are per winery: B's PUT of A's id makes B's own experience, with B's slots.
    operation: "PUT /api/v2/experiences/{id}",
    case: "A's experience id makes B's own experience; A's and its slots are unchanged",
    arrangeA: experienceOfA,
    requestAsB: (ids) => ({
      path: `/v2/experiences/${ids.experienceId}`,
      method: "PUT",
      body: experienceBody,
    }),
    expected: 200,
    checkAnswer: (body, _, b) => expect(record(body).wineryId).toBe(b.wineryId),
    readAsA: experienceAndSlots,
  },
  {
    operation: "PUT /api/v2/experiences/{id}",
    case: "A's slot id in B's slotsRequests is 400 and the slot is unchanged",
    arrangeA: experienceOfA,
    requestAsB: (ids) => ({
      path: `/v2/experiences/${crypto.randomUUID()}`,
      method: "PUT",
      body: { ...experienceBody, slotsRequests: [{ id: ids.slotId, maxParties: 1 }] },
    }),
    expected: 400,
    readAsA: experienceAndSlots,
  },
  {
    operation: "PUT /api/v2/experiences/{id}",
    case: "A's wineryId in the body is 403",
    arrangeA: experienceOfA,
    requestAsB: (ids) => ({
      path: `/v2/experiences/${crypto.randomUUID()}`,
      method: "PUT",
      body: { ...experienceBody, wineryId: ids.wineryId },
    }),
    expected: 403,
  },
  {
    operation: "POST /api/v2/experiences/preview-propagation",
    case: "A's experience id previews as B's new experience, showing nothing of A's",
    arrangeA: experienceOfA,
    requestAsB: (ids) => ({
      path: "/v2/experiences/preview-propagation",
      body: { ...experienceBody, id: ids.experienceId },
    }),
    expected: 200,
    checkAnswer: (body) => {
      const slots = record(record(body).slots);
      expect([slots.update, slots.delete]).toEqual([[], []]);
    },
    readAsA: experienceAndSlots,
  },
  {
    operation: "POST /api/v2/experiences/preview-propagation",
    case: "A's wineryId in the body is 403",
    arrangeA: experienceOfA,
    requestAsB: (ids) => ({
      path: "/v2/experiences/preview-propagation",
      body: { ...experienceBody, wineryId: ids.wineryId },
    }),
    expected: 403,
  },
  {
    operation: "GET /api/v2/availabilities",
    case: "A's experience id is 404",
    arrangeA: experienceOfA,
    requestAsB: (ids) => ({
      path: `/v2/availabilities?experienceId=${ids.experienceId}&from=${ids.day}&to=${ids.day}`,
    }),
    expected: 404,
  },
  ...(
    [
      ["UPDATE of A's slot id", { action: "UPDATE", slotId: "A", newMaxParties: 1 }],
      ["DELETE of A's slot id", { action: "DELETE", slotId: "A", ignoreOccupiedSlot: true }],
      ["DELETE of A's series", { action: "DELETE", parentSlotId: "A" }],
      ["CREATE on A's experience", { action: "CREATE", experienceId: "A", time: "11:00" }],
    ] as const
  ).map(
    ([what, request]): MatrixEntry => ({
      operation: "POST /api/v2/availabilities/actions",
      case: `${what} is 404 and A's slots are unchanged`,
      arrangeA: experienceOfA,
      requestAsB: slotAction(request),
      expected: 404,
      readAsA: experienceAndSlots,
    }),
  ),
];
