import { type SQL, sql } from "drizzle-orm";
import type { HttpDb } from "../../db/client";
import { NotFoundError, ValidationError } from "../../lib/errors";
import { toJavaTimestamp } from "../../lib/java-timestamp";
import type { CustomerClass, CustomerClassCommand } from "../../schemas/customer-classes";

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
 * concurrent creations get distinct, gap-free numbers).
 */
export function createCustomerClass(db: HttpDb, wineryId: string, input: CustomerClassCommand) {
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
      ${input.caseDiscountRate}, ${input.discountRate}, ${input.isActive}, ${input.isPaid},
      ${input.price}, ${input.priceType}, ${validity(input.validityDate)}
    from counter
    returning ${COLUMNS}`,
  );
}

/** E7: replaces the fields of the winery's class (classId stays), in one statement. */
export function updateCustomerClass(
  db: HttpDb,
  wineryId: string,
  id: string,
  input: CustomerClassCommand,
) {
  if (input.id !== undefined && input.id.toLowerCase() !== id.toLowerCase()) {
    throw new ValidationError([{ path: "id", message: "must be the id in the path" }]);
  }
  return one(
    db,
    sql`update customer_classes set class_name = ${input.className},
      class_type = ${input.classType}, case_discount_rate = ${input.caseDiscountRate},
      discount_rate = ${input.discountRate}, is_active = ${input.isActive},
      is_paid = ${input.isPaid}, price = ${input.price}, price_type = ${input.priceType},
      validity_date = ${validity(input.validityDate)}, updated_at = now()
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
