import { and, eq, not, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { postgresError } from "../../db/errors";
import { attributes } from "../../db/schema";
import { AppError, NotFoundError, ValidationError } from "../../lib/errors";
import type {
  Attribute,
  CreationResponse,
  ToggleVisibilityRequest,
  UpsertAttributeRequest,
} from "../../schemas/attributes";

type Given<T> = { [K in keyof T]?: Exclude<T[K], null> };

/** The fields sent with a value: a null is dropped, as if the field had been left out. */
function given<T extends object>(fields: T): Given<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v != null)) as Given<T>;
}

/**
 * E6. One statement either way: with `attributeId`, an UPDATE of the winery's attribute (NOT_FOUND
 * otherwise); without, an INSERT ... ON CONFLICT (winery_id, code) DO UPDATE, so concurrent
 * upserts of one code converge on one attribute. Fields left out or null keep their stored values
 * (defaults on creation); by id that includes `code`.
 */
export async function upsertAttribute(
  db: HttpDb,
  wineryId: string,
  input: UpsertAttributeRequest,
): Promise<CreationResponse> {
  const { attributeId, ...fields } = input;
  const set = given(fields);
  try {
    if (attributeId != null) {
      const [row] = await db
        .update(attributes)
        .set({ ...set, updatedAt: sql`now()` })
        .where(and(eq(attributes.id, attributeId), eq(attributes.wineryId, wineryId)))
        .returning({ id: attributes.id });
      if (!row) throw new NotFoundError("Attribute", attributeId);
      return answer(row.id, false);
    }
    const { code } = set;
    // The route schema requires `code` without `attributeId`; this keeps the insert total.
    if (code === undefined) {
      throw new ValidationError([{ path: "code", message: "is required without attributeId" }]);
    }
    const [row] = await db
      .insert(attributes)
      .values({ ...set, code, wineryId })
      .onConflictDoUpdate({
        target: [attributes.wineryId, attributes.code],
        set: { ...set, updatedAt: sql`now()` },
      })
      .returning({ id: attributes.id, created: sql<boolean>`xmax = 0` });
    if (!row) throw new Error("attribute upsert returned no row");
    return answer(row.id, row.created);
  } catch (error) {
    if (postgresError(error)?.constraint === "attributes_winery_code") {
      throw new AppError(
        "CONFLICT",
        `Another attribute of the winery has the code ${input.code}.`,
        {
          extensions: { attributeCode: input.code },
        },
      );
    }
    throw error;
  }
}

function answer(id: number, created: boolean): CreationResponse {
  return created
    ? { id: String(id), message: "Attribute created.", status: "CREATED" }
    : { id: String(id), message: "Attribute updated.", status: "UPDATED" };
}

/**
 * E15. One UPDATE, no read first: `is_visible = not is_visible` is evaluated on the row as locked
 * by the UPDATE, so concurrent toggles serialise and N toggles flip it N times. With `isVisible`,
 * the attribute is set to that value instead (idempotent).
 */
export async function toggleAttributeVisibility(
  db: HttpDb,
  wineryId: string,
  attributeId: number,
  input: ToggleVisibilityRequest,
): Promise<Attribute> {
  const [row] = await db
    .update(attributes)
    .set({
      isVisible: input.isVisible ?? not(attributes.isVisible),
      updatedAt: sql`now()`,
    })
    .where(and(eq(attributes.id, attributeId), eq(attributes.wineryId, wineryId)))
    .returning();
  if (!row) throw new NotFoundError("Attribute", attributeId);
  return {
    id: row.id,
    code: row.code,
    names: row.names,
    applicableToTypes: row.applicableToTypes,
    displayOrder: row.displayOrder,
    isVisible: row.isVisible,
    valueType: row.valueType,
    updatedAt: row.updatedAt.toISOString(),
  };
}
