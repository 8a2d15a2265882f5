import { z } from "@hono/zod-openapi";
import { DateTime, Int32, Int64, MAX_INSTANT_MS, MIN_INSTANT_MS, NonBlank, Uuid } from "./common";

const TimestampFields = {
  date: Int32.openapi({ description: "Day of the month, 1..31." }),
  day: Int32.openapi({ description: "Day of the week, 0 = Sunday." }),
  hours: Int32,
  minutes: Int32,
  month: Int32.openapi({ description: "0 = January." }),
  nanos: Int32.openapi({ description: "Fraction of the second in nanoseconds, 0..999,999,999." }),
  seconds: Int32,
  time: Int64.openapi({ description: "Epoch milliseconds: the instant." }),
  timezoneOffset: Int32.openapi({ description: "Always 0 (UTC)." }),
  year: Int32.openapi({ description: "Year minus 1900." }),
};

export const TimestampSchema = z.object(TimestampFields).openapi("Timestamp", {
  description:
    "java.sql.Timestamp's bean shape in UTC: every field is what its getters give with the JVM's default time zone UTC, including Java's Julian calendar before 1582-10-15.",
});

const EpochMillis = Int64.min(MIN_INSTANT_MS, "must lie in the years 0001..9999 in UTC").max(
  MAX_INSTANT_MS,
  "must lie in the years 0001..9999 in UTC",
);

/** A Timestamp on input: the object (its `time` decides; the other fields are not read) or ISO. */
export const TimestampInputSchema = z
  .union([
    DateTime.transform((iso) => Date.parse(iso)),
    z
      .object({ ...TimestampFields, time: EpochMillis })
      .partial()
      .required({ time: true })
      .transform((t) => t.time),
  ])
  .openapi("TimestampInput", {
    description:
      "A Timestamp object (only `time`, epoch milliseconds, is read) or an ISO 8601 date-time with offset. Years 0001..9999 in UTC.",
  });

const Rate = z.number().min(0).max(100).openapi({ description: "A percentage, 0..100." });
/**
 * The interface types `price` `number`, unlike every money field it names `...Cents` (integers):
 * a decimal amount in the currency's units, as the systems it comes from keep it.
 */
const ClassPrice = z.number().min(0).max(1e12).openapi({
  description:
    "The class's price in the currency's units, a decimal number (e.g. 240 or 19.99), 0..1e12. Unlike the interface's money fields named `...Cents`, which are integer cents, the interface types `price` as a plain number, and it is stored and answered as given.",
});
const PriceType = z.enum(["MONTHLY", "YEARLY", "UNA_TANTUM"]);

// Fields the service does not store from the body take null as not given (generated clients send
// a null for each unset field).
const CommandIds = {
  wineryId: Uuid.nullish().openapi({
    description: "If present (not null), must be the API key's winery.",
  }),
  classId: Int32.nullish().openapi({
    description: "Read-only: numbered by the service per winery (1, 2, 3, ...); ignored.",
  }),
};

/**
 * What a new class gets for an optional field left out or null. The schema's defaults fill a field
 * left out; the service fills a null (Zod applies a default to undefined only).
 */
export const CLASS_DEFAULTS = {
  caseDiscountRate: 0,
  discountRate: 0,
  isActive: true,
  isPaid: false,
  price: 0,
} as const;

/** A new class: name, type and priceType required, the rest defaulted (left out or null). */
export const CreateCustomerClassCommandSchema = z
  .object({
    id: Uuid.nullish().openapi({
      description: "Ignored: the service gives a new class its own id (in the answer).",
    }),
    ...CommandIds,
    className: NonBlank(200),
    classType: NonBlank(100),
    caseDiscountRate: Rate.nullish().default(CLASS_DEFAULTS.caseDiscountRate),
    discountRate: Rate.nullish().default(CLASS_DEFAULTS.discountRate),
    isActive: z.boolean().nullish().default(CLASS_DEFAULTS.isActive),
    isPaid: z.boolean().nullish().default(CLASS_DEFAULTS.isPaid),
    price: ClassPrice.nullish().default(CLASS_DEFAULTS.price),
    priceType: PriceType,
    validityDate: TimestampInputSchema.nullable().default(null),
  })
  .openapi("CreateCustomerClassCommand");
export type CreateCustomerClassCommand = z.infer<typeof CreateCustomerClassCommandSchema>;

/**
 * E7: every field optional and without a default, so the service can tell a field left out (kept)
 * from one sent (replaced). validityDate null clears it (no expiry); a null for a field the class
 * always has keeps the stored value, as leaving it out does.
 */
export const UpdateCustomerClassCommandSchema = z
  .object({
    id: Uuid.nullish().openapi({
      description: "If present (not null), must be the id in the path.",
    }),
    ...CommandIds,
    className: NonBlank(200).nullish(),
    classType: NonBlank(100).nullish(),
    caseDiscountRate: Rate.nullish(),
    discountRate: Rate.nullish(),
    isActive: z.boolean().nullish(),
    isPaid: z.boolean().nullish(),
    price: ClassPrice.nullish(),
    priceType: PriceType.nullish(),
    validityDate: TimestampInputSchema.nullable().optional(),
  })
  .openapi("UpdateCustomerClassCommand");
export type UpdateCustomerClassCommand = z.infer<typeof UpdateCustomerClassCommandSchema>;

export const CustomerClassSchema = z
  .object({
    id: Uuid,
    wineryId: Uuid,
    classId: Int32,
    className: z.string(),
    classType: z.string(),
    caseDiscountRate: z.number(),
    discountRate: z.number(),
    isActive: z.boolean(),
    isPaid: z.boolean(),
    price: ClassPrice,
    priceType: PriceType,
    validityDate: TimestampSchema.nullable(),
    isExpired: z.boolean().openapi({ description: "validityDate lies in the past." }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .openapi("CustomerClassDTO");
export type CustomerClass = z.infer<typeof CustomerClassSchema>;

export const CustomerClassIdParamsSchema = z.object({
  id: Uuid.openapi({ param: { name: "id", in: "path" } }),
});
