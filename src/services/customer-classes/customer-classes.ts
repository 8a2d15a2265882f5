import { type SQL, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { NotFoundError } from "../../lib/errors";
import { toJavaTimestamp } from "../../lib/java-timestamp";
import { assertBodyIdIsPathId } from "../../lib/path-id";
import {
  CLASS_DEFAULTS,
  type CreateCustomerClassCommand,
  type CustomerClass,
  type UpdateCustomerClassCommand,
} from "../../schemas/customer-classes";

/** Timestamps leave Postgres as epoch milliseconds: exact for every year 0001..9999. */
const COLUMNS = sql`id, winery_id as "wineryId", class_id as "classId",
  class_name as "className", class_type as "classType",
  case_discount_rate as "caseDiscountRate", discount_rate as "discountRate",
  is_active as "isActive", is_paid as "isPaid", price, price_type as "priceType",
  (extract(epoch from validity_date) * 1000)::float8 as "validityMs",
  (extract(epoch from created_at) * 1000)::float8 as "createdMs",
  (extract(epoch from updated_at) * 1000)::float8 as "updatedMs"`;

type Row = Omit<CustomerClass, "validityDate" | "createdAt" | "updatedAt" | "isExpired"> & {
  validityMs: number | null;
  createdMs: number;
  updatedMs: number;
};

/** decisions.md: expired when validityDate lies in the past (an instant equal to now is not). */
export function isExpired(validityMs: number | null, nowMs: number): boolean {
  return validityMs !== null && validityMs < nowMs;
}

function toDto(row: Row, nowMs: number): CustomerClass {
  const { validityMs, createdMs, updatedMs, ...rest } = row;
  return {
    ...rest,
    validityDate: validityMs === null ? null : toJavaTimestamp(validityMs),
    isExpired: isExpired(validityMs, nowMs),
    createdAt: toJavaTimestamp(createdMs),
    updatedAt: toJavaTimestamp(updatedMs),
  };
}

const validity = (ms: number | null) =>
  // Integer arithmetic on an interval: exact to the millisecond, unlike to_timestamp(float).
  ms === null ? sql`null` : sql`(timestamptz 'epoch' + ${ms}::bigint * interval '1 millisecond')`;

async function one(db: HttpDb, statement: SQL, id?: string): Promise<CustomerClass> {
  const result = await db.execute<Row>(statement);
  const row = result.rows[0];
  if (!row) throw new NotFoundError("Customer class", id);
  return toDto(row, Date.now());
}

/**
 * Creates a class in one statement: its classId is the winery's next number, taken from the
 * winery_counters row 'customer_class' in the same statement (the upsert locks that row, so
 * concurrent creations get distinct, gap-free numbers). An optional field sent as null takes its
 * default, as one left out does.
 */
export function createCustomerClass(
  db: HttpDb,
  wineryId: string,
  input: CreateCustomerClassCommand,
) {
  return one(
    db,
    sql`with counter as (
      insert into winery_counters (winery_id, name, value) values (${wineryId}, 'customer_class', 1)
      on conflict (winery_id, name)
        do update set value = winery_counters.value + 1, updated_at = now()
      returning value
    )
    insert into customer_classes (winery_id, class_id, class_name, class_type,
      case_discount_rate, discount_rate, is_active, is_paid, price, price_type, validity_date)
    select ${wineryId}, counter.value, ${input.className}, ${input.classType},
      ${input.caseDiscountRate ?? CLASS_DEFAULTS.caseDiscountRate},
      ${input.discountRate ?? CLASS_DEFAULTS.discountRate},
      ${input.isActive ?? CLASS_DEFAULTS.isActive}, ${input.isPaid ?? CLASS_DEFAULTS.isPaid},
      ${input.price ?? CLASS_DEFAULTS.price}, ${input.priceType}, ${validity(input.validityDate)}
    from counter
    returning ${COLUMNS}`,
  );
}

/** The columns E7 may set, by field name. validity_date is set apart (its value is an expression). */
const UPDATABLE = {
  className: "class_name",
  classType: "class_type",
  caseDiscountRate: "case_discount_rate",
  discountRate: "discount_rate",
  isActive: "is_active",
  isPaid: "is_paid",
  price: "price",
  priceType: "price_type",
} as const satisfies Partial<Record<keyof UpdateCustomerClassCommand, string>>;

/**
 * E7: in one statement, each field sent replaces its column and each field left out or null keeps
 * it (these columns cannot be cleared). The statement has the same shape whatever was sent: per
 * column a flag parameter says whether the field was sent (`case when $sent then $value else
 * column end`). validity_date is the one column null clears, so there absent and null differ.
 * classId stays.
 */
export function updateCustomerClass(
  db: HttpDb,
  wineryId: string,
  id: string,
  input: UpdateCustomerClassCommand,
) {
  assertBodyIdIsPathId(input.id, id, "must be the id in the path");
  const sets = Object.entries(UPDATABLE).map(([field, column]) => {
    const value = input[field as keyof typeof UPDATABLE];
    const col = sql.identifier(column);
    return sql`${col} = case when ${value != null}::boolean then ${value ?? null} else ${col} end`;
  });
  const ms = input.validityDate;
  return one(
    db,
    sql`update customer_classes set ${sql.join(sets, sql`, `)},
      validity_date = case when ${ms !== undefined}::boolean
        then timestamptz 'epoch' + ${ms ?? null}::bigint * interval '1 millisecond'
        else validity_date end,
      updated_at = now()
    where id = ${id} and winery_id = ${wineryId}
    returning ${COLUMNS}`,
    id,
  );
}

export function getCustomerClass(db: HttpDb, wineryId: string, id: string) {
  return one(
    db,
    sql`select ${COLUMNS} from customer_classes where id = ${id} and winery_id = ${wineryId}`,
    id,
  );
}
