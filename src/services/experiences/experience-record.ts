import { and, eq } from "drizzle-orm";
import { experiences, slots } from "../../db/schema";
import type { AnyDb } from "../../db/types";
import {
  EXPERIENCE_FIELD_NAMES,
  type Experience,
  type ExperienceValues,
} from "../../schemas/experiences";
import { slotColumnsWithReservations, toSlotState } from "../slots/slot-rows";
import type { ExperienceState } from "./plan-experience";

export type ExperienceRow = typeof experiences.$inferSelect;

export function valuesFromRow(row: ExperienceRow): ExperienceValues {
  return Object.fromEntries(
    EXPERIENCE_FIELD_NAMES.map((name) => [name, row[name] ?? null]),
  ) as ExperienceValues;
}

export function toExperience(row: ExperienceRow): Experience {
  return {
    ...valuesFromRow(row),
    id: row.id,
    wineryId: row.wineryId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export const experienceKey = (wineryId: string, id: string) =>
  and(eq(experiences.wineryId, wineryId), eq(experiences.id, id));

/** The two reads a plan starts from: the experience and its slots (ordered, so plans are stable). */
export function stateQueries(db: AnyDb, wineryId: string, id: string) {
  return {
    experience: db.select().from(experiences).where(experienceKey(wineryId, id)),
    slots: db
      .select(slotColumnsWithReservations)
      .from(slots)
      .where(and(eq(slots.wineryId, wineryId), eq(slots.experienceId, id)))
      .orderBy(slots.date, slots.time),
  };
}

export function toState(
  experience: ExperienceRow | undefined,
  slotRows: Parameters<typeof toSlotState>[0][],
): ExperienceState {
  return {
    values: experience ? valuesFromRow(experience) : null,
    slots: slotRows.map(toSlotState),
  };
}
