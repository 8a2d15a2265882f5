import type { Operation } from "./operations";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What a valid body must also respect beyond its JSON Schema, from decisions.md. The generator
 * makes its bodies respect these where that is simple; the rest is an explicit allowance below.
 */

/** Range bounds that must not be reversed (E17/E18/E20 dateFrom <= dateTo, and their kin). */
const RANGE_PAIRS: [string, string][] = [
  ["dateFrom", "dateTo"],
  ["startAt", "endAt"],
  ["startDate", "endDate"],
  ["startTime", "endTime"],
  ["validityFrom", "validityTo"],
  ["validityStart", "validityEnd"],
  ["startFromValid", "endToValid"],
  ["from", "to"],
  ["minTotalCents", "maxTotalCents"],
];

/** Ranges with a longest span in days (E9's slot ranges, the availability listing). */
const MAX_SPAN_DAYS: Record<string, number> = {
  from: 366,
  startFromValid: 365,
  validityStart: 365,
};
const DAY_MS = 86_400_000;

/**
 * Contact lists have exactly one MASTER (decisions.md, E11): in any array of objects with a
 * contactType, the first is the MASTER and the others SECONDARY.
 */
function exactlyOneMaster(value: Record<string, unknown>) {
  for (const child of Object.values(value)) {
    if (!Array.isArray(child) || !child.some((c) => isObject(c) && "contactType" in c)) continue;
    child.forEach((contact, i) => {
      if (isObject(contact)) contact.contactType = i === 0 ? "MASTER" : "SECONDARY";
    });
  }
}

/**
 * A copy of a generated value with every range of RANGE_PAIRS in order (and within its longest
 * span, for the date ranges that have one), at any depth.
 */
export function respectDocumentedRules<T>(value: T): T {
  if (Array.isArray(value)) return value.map(respectDocumentedRules) as T;
  if (typeof value !== "object" || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    // defineProperty keeps `__proto__` an own key, as it was sent.
    Object.defineProperty(copy, key, {
      value: respectDocumentedRules(child),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  exactlyOneMaster(copy);
  for (const [from, to] of RANGE_PAIRS) {
    const a = copy[from];
    const b = copy[to];
    if (typeof a === "number" && typeof b === "number") {
      [copy[from], copy[to]] = [Math.min(a, b), Math.max(a, b)];
      continue;
    }
    if (typeof a !== "string" || typeof b !== "string") continue;
    const [low, high] = Date.parse(a) > Date.parse(b) ? [b, a] : [a, b];
    copy[from] = low;
    copy[to] = high;
    const span = MAX_SPAN_DAYS[from];
    if (
      span &&
      /^\d{4}-\d{2}-\d{2}$/.test(low) &&
      Date.parse(high) - Date.parse(low) > span * DAY_MS
    )
      copy[to] = new Date(Date.parse(low) + 30 * DAY_MS).toISOString().slice(0, 10);
  }
  return copy as T;
}

const WEEK_DAYS = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"];

const each = (list: unknown, fn: (item: Record<string, unknown>) => void) => {
  if (Array.isArray(list)) for (const item of list) if (isObject(item)) fn(item);
};

/**
 * Rules of one operation that a generated body is made to respect (simple ones only: the others
 * are allowances below). `params` are the path and query values of the request.
 */
const FIXUPS: Record<
  string,
  (body: Record<string, unknown>, params: Record<string, string>) => void
> = {
  // E3, E7, experiences, products: a body id, when sent, is the path's id (the route descriptions
  // say so).
  putCommerceSession: (body, params) => {
    if (typeof body.id === "string" && params.sessionId) body.id = params.sessionId;
  },
  updateCustomerClass: (body, params) => {
    if (typeof body.id === "string" && params.id) body.id = params.id;
  },
  saveExperience: (body, params) => {
    if (typeof body.id === "string" && params.id) body.id = params.id;
    slotRequestsWithTime(body);
  },
  previewExperiencePropagation: (body) => slotRequestsWithTime(body),
  // E5 coupon: a percent coupon needs discountPercent, a fixed one discountCents.
  putCoupon: (body) => {
    if (body.discountType === "percent" && body.discountPercent == null) body.discountPercent = 10;
    if (body.discountType === "fixed" && body.discountCents == null) body.discountCents = 100;
  },
  // E5: a sale entity needs its amount (whole or per unit).
  validateCoupon: (body) => {
    each(body.saleEntities, (e) => {
      if (e.amountCentsBeforeDiscount == null && e.amountCentsPerUnitBeforeDiscount == null)
        e.amountCentsBeforeDiscount = 100;
    });
  },
  // E6: without attributeId, code is required (the route's description); null is as left out.
  upsertAttribute: (body) => {
    if (body.attributeId == null && body.code == null) body.code = "fuzz";
  },
  // Catalogue: an attribute assignment names exactly one of attributeValueId and value.
  putProduct: (body, params) => {
    if (typeof body.id === "string" && params.id) body.id = params.id;
    // No two categories, channels or files share an id.
    body.categories = uniqueBy(body.categories, (c) => String(c.id).toLowerCase());
    body.channels = uniqueBy(body.channels, (c) => String(c.wineryChannelId).toLowerCase());
    body.files = uniqueBy(body.files, (f, i) => (typeof f.id === "number" ? f.id : `new ${i}`));
    each(body.attributeAssignments, (a) => {
      if (a.attributeValueId !== undefined && a.value !== undefined) delete a.value;
      if (a.attributeValueId === undefined && a.value === undefined) a.value = "red";
    });
  },
  // E11: closeSlots and openSlots both true is 400 (the route's description).
  importReservation: (body) => {
    if (body.closeSlots === true && body.openSlots === true) body.openSlots = false;
    // No two contacts share an email once folded (the route's description): prefix repeats.
    const seen = new Set<string>();
    if (Array.isArray(body.reservationContacts))
      body.reservationContacts.forEach((c, i) => {
        if (!isObject(c) || typeof c.email !== "string") return;
        let email = c.email.trim();
        if (seen.has(email.toLowerCase())) email = `x${i}${email}`;
        c.email = email;
        seen.add(email.toLowerCase());
      });
  },
  // E9: weekDays are MONDAY..SUNDAY (decisions.md, E9); a CREATE takes `day` or the range with
  // its week days, never both (the route's description).
  runSlotActions: (body) => {
    each(body.requests, (r) => {
      if (r.action === "CREATE" && r.day != null)
        for (const field of ["startFromValid", "endToValid", "weekDays"]) delete r[field];
      if (!isObject(r.weekDays)) return;
      r.weekDays = Object.fromEntries(
        Object.values(r.weekDays).map((on, i) => [WEEK_DAYS[i % 7] as string, on]),
      );
    });
  },
};

function uniqueBy(
  list: unknown,
  key: (item: Record<string, unknown>, index: number) => unknown,
): unknown {
  if (!Array.isArray(list)) return list;
  const seen = new Set<unknown>();
  return list.filter((item, i) => {
    if (!isObject(item)) return true;
    const k = key(item, i);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Experiences: a slot request without an id needs a time (a new slot is made at that time). */
function slotRequestsWithTime(body: Record<string, unknown>) {
  each(body.slotsRequests, (r) => {
    if (r.id === undefined && r.time == null) r.time = "10:00:00";
  });
}

/** A generated body made to respect the simple rules of its operation. */
export function respectOperationRules(
  op: Operation,
  value: unknown,
  params: Record<string, string>,
): unknown {
  const fixup = FIXUPS[op.operationId];
  if (!fixup || !isObject(value)) return respectDocumentedRules(value);
  const copy = respectDocumentedRules(value);
  fixup(copy, params);
  return copy;
}

/**
 * Business validations of decisions.md that a generated valid body may break, per operation, with
 * the fields each rule names: a 400 on a valid body is excused only when every path it names is
 * one of them.
 */
const VALID_BODY_ALLOWANCES: { operationId: string; fields: RegExp; reason: string }[] = [
  {
    operationId: "putProduct",
    fields: /^(categories|channels|attributeAssignments)$/,
    reason: "categories, channels and attributes must be the winery's rows (generated ids are not)",
  },
  {
    operationId: "validateCoupon",
    fields:
      /^(saleEntities|saleEntities\[\d+\]\.amountCentsPerUnitBeforeDiscount|totalAmountCentsBeforeDiscount)$/,
    reason:
      "per-unit amount times quantity and the entities' sum within ±(2^53-1), the sum not above the total (decisions.md, Hostile input; E5)",
  },
  ...["importOrder", "upsertShopPluginOrder"].map((operationId) => ({
    operationId,
    fields:
      /^(items|items\[\d+\]\.(unitPriceCents|amountDiscountCents)|amountCents|amountDiscountCents|amountVatCents)$/,
    reason:
      "derived amounts (unit price times quantity less the item's discount, line sums, discounts, totals) within ±(2^53-1) and not negative, VAT not above the amount (decisions.md, Hostile input; E1's receipt)",
  })),
  {
    operationId: "putCommerceSession",
    fields: /^items\[\d+\]\.unitPriceCents$/,
    reason: "an item's unit price times its qty within ±(2^53-1) (decisions.md, Hostile input)",
  },
  ...["saveExperience", "previewExperiencePropagation"].map((operationId) => ({
    operationId,
    fields: /^slotsRequests\[\d+\]\.(day|time|id|maxParties|validityEnd)$/,
    reason:
      "a slot request needs day or a validity range (at most 366 days), an existing id, and maxParties when the experience has none",
  })),
  {
    operationId: "runSlotActions",
    fields:
      /^requests\[\d+\]\.(day|endToValid|experienceId|slotId|time|newDay|newMaxParties|newMinParties)$/,
    reason:
      "E9 (decisions.md): CREATE needs experienceId and day or a range with weekDays at time; UPDATE/DELETE need slotId or parentSlotId; the range spans at most 366 days",
  },
];

/**
 * Problem codes that decisions.md defines as a 400 answer to a well-formed request: a business
 * outcome, not a validation (E14: nothing left to refund on a reservation the fuzzer created).
 */
export const BUSINESS_400_CODES = new Set(["NOT_REFUNDABLE"]);

export function validBodyAllowance(op: Operation, paths: string[]): boolean {
  const allowances = VALID_BODY_ALLOWANCES.filter((a) => a.operationId === op.operationId);
  return paths.length > 0 && paths.every((path) => allowances.some((a) => a.fields.test(path)));
}
