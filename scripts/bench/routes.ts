/**
 * The bench's route table: one entry per route of the OpenAPI document that the seeded data can
 * exercise, with how to build its request number `seq` (writes get unique bodies: new emails,
 * external ids, codes, product ids ...). A route missing from /api/openapi.json is skipped, so an
 * entry can be written before its route is merged. A route of the document without an entry
 * is listed in the report as not measured.
 */
import type { LoadRequest } from "./cannon";
import { MEASURED_RANGE, type ReservationTargets } from "./generate";

/** The seeded ids the requests use (see run.ts). */
export interface Fixtures {
  /** The demo winery of `npm run seed` (seed-data.ts): one of everything. */
  demo: {
    wineryId: string;
    apiKey: string;
    apiChannelKey: string;
    orderId: string;
    couponCode: string;
    commerceSessionId: string;
    productId: string;
    fileId: string;
    attributeId: string;
    customerClassId: string;
    experienceId: string;
    /** What E11 imports into and E14 refunds (generate.ts). */
    reservations: ReservationTargets;
  };
  /** The measured winery: fixed data in the scaled tables (generate.ts). */
  measured: { wineryId: string; apiKey: string };
  /** A tag unique to this run, for unique values across runs on one database. */
  tag: string;
  /** The dates the list routes ask for (default MEASURED_RANGE, where the measured winery's are). */
  range?: { from: string; to: string };
}

export interface BenchRoute {
  /** The spec's endpoint number, or a short name. */
  id: string;
  method: "GET" | "POST" | "PUT";
  /** As in the OpenAPI document. */
  path: string;
  kind: "baseline" | "read" | "write";
  /** Part of the scaling table (p50 at the small and the large table size). */
  scaled?: boolean;
  /** Why the entry is not measured yet, when it is not. */
  todo?: string;
  request(f: Fixtures, seq: number): LoadRequest;
}

const json = (method: string, path: string, apiKey: string, body?: unknown): LoadRequest => ({
  method,
  path,
  headers: {
    APIKey: apiKey,
    ...(body !== undefined && { "Content-Type": "application/json" }),
  },
  ...(body !== undefined && { body: JSON.stringify(body) }),
});

/** The request with an Idempotency-Key of its own: every one is a first attempt, never a replay. */
const withKey = (request: LoadRequest, key: string): LoadRequest => ({
  ...request,
  headers: { ...request.headers, "Idempotency-Key": key },
});

const rangeOf = (f: Fixtures) => f.range ?? MEASURED_RANGE;
/** The reservation E14's `seq`-th request refunds: each of the paid ones in turn. */
const refundTarget = (f: Fixtures, seq: number) => {
  const ids = f.demo.reservations.refundReservationIds;
  return ids[seq % ids.length];
};
const dateTimeRange = (f: Fixtures) => ({
  dateFrom: `${rangeOf(f).from}T00:00:00Z`,
  dateTo: `${rangeOf(f).to}T23:59:59Z`,
});

/** A legacy order (E1) with a unique external id. */
function legacyOrder(id: string) {
  return {
    id,
    date: "2026-05-14",
    status: "PAID",
    buyerEmail: "marco.bianchi@example.com",
    buyerFirstname: "Marco",
    buyerLastname: "Bianchi",
    city: "Roma",
    countryIso: "IT",
    amountCents: 7480,
    amountShipmentCents: 990,
    amountVatCents: 1349,
    amountVatPercentage: 22,
    paymentMethod: "card",
    quantity: 4,
    sourceExternal: { id: "POS-7", type: "POS_TERMINAL" },
    items: [
      {
        sku: "BRUNELLO-2019",
        name: "Brunello 2019",
        quantity: 1,
        unitPriceCents: 4500,
        amountCents: 4500,
        vatPercentage: 22,
        type: "PRODUCT",
      },
      {
        sku: "ROSSO-2022",
        name: "Rosso 2022",
        quantity: 3,
        unitPriceCents: 830,
        amountCents: 2490,
        vatPercentage: 22,
        type: "PRODUCT",
      },
    ],
  };
}

/** A WooCommerce order (E19) with a unique id: one line, shipping. */
function wooOrder(id: number) {
  return {
    id,
    number: String(id),
    status: "processing",
    currency: "EUR",
    prices_include_tax: false,
    date_created_gmt: "2026-05-01T10:00:00",
    date_modified_gmt: "2026-05-01T10:05:00",
    discount_total: "0.00",
    shipping_total: "10.00",
    shipping_tax: "2.20",
    total: "67.10",
    total_tax: "12.10",
    billing: {
      first_name: "Giulia",
      last_name: "Rossi",
      city: "Firenze",
      country: "IT",
      email: `giulia.${id}@example.com`,
    },
    line_items: [
      {
        id: 1,
        name: "Brunello di Montalcino 2019",
        product_id: 94,
        quantity: 1,
        subtotal: "45.00",
        subtotal_tax: "9.90",
        total: "45.00",
        total_tax: "9.90",
        sku: "BRUNELLO-2019",
        price: 45,
      },
    ],
    shipping_lines: [
      {
        id: 2,
        method_title: "Flat rate",
        method_id: "flat_rate",
        total: "10.00",
        total_tax: "2.20",
      },
    ],
  };
}

export const ROUTES: BenchRoute[] = [
  {
    id: "health",
    method: "GET",
    path: "/api/health",
    kind: "baseline",
    request: () => ({ method: "GET", path: "/api/health", headers: {} }),
  },
  // Reads.
  {
    id: "E4",
    method: "POST",
    path: "/api/v2/receipts/query",
    kind: "read",
    scaled: true,
    request: (f) =>
      json("POST", "/api/v2/receipts/query", f.measured.apiKey, {
        startDate: rangeOf(f).from,
        endDate: rangeOf(f).to,
        count: 20,
      }),
  },
  {
    id: "E5",
    method: "POST",
    path: "/api/v2/coupons/validate",
    kind: "read",
    request: (f) =>
      json("POST", "/api/v2/coupons/validate", f.demo.apiKey, { code: f.demo.couponCode }),
  },
  {
    id: "E8",
    method: "POST",
    path: "/api/v2/experiences/preview-propagation",
    kind: "read",
    request: (f) =>
      json("POST", "/api/v2/experiences/preview-propagation", f.demo.apiKey, {
        id: f.demo.experienceId,
        maxParties: 12,
        active: true,
      }),
  },
  {
    id: "E10",
    method: "POST",
    path: "/api/v2/product-catalog/products/winery/{wineryId}/query",
    kind: "read",
    scaled: true,
    request: (f) =>
      json(
        "POST",
        `/api/v2/product-catalog/products/winery/${f.measured.wineryId}/query`,
        f.measured.apiKey,
        {},
      ),
  },
  {
    id: "E16",
    method: "POST",
    path: "/api/v2/reservations/query",
    kind: "read",
    scaled: true,
    // The measured winery's 50 reservations (all in MEASURED_RANGE), experience titles in English.
    request: (f) =>
      json("POST", "/api/v2/reservations/query?Lang=en", f.measured.apiKey, {
        startTime: rangeOf(f).from,
        endTime: rangeOf(f).to,
      }),
  },
  {
    id: "E17",
    method: "POST",
    path: "/api/v3/contacts/query",
    kind: "read",
    scaled: true,
    request: (f) => json("POST", "/api/v3/contacts/query", f.measured.apiKey, dateTimeRange(f)),
  },
  {
    id: "E18",
    method: "POST",
    path: "/api/v2/contacts/query",
    kind: "read",
    request: (f) => json("POST", "/api/v2/contacts/query", f.measured.apiKey, dateTimeRange(f)),
  },
  {
    id: "E20",
    method: "POST",
    path: "/api/v4/orders/query",
    kind: "read",
    scaled: true,
    request: (f) =>
      json("POST", "/api/v4/orders/query", f.measured.apiKey, { ...dateTimeRange(f), limit: 50 }),
  },
  {
    id: "GET order",
    method: "GET",
    path: "/api/v4/orders/{id}",
    kind: "read",
    request: (f) => json("GET", `/api/v4/orders/${f.demo.orderId}`, f.demo.apiKey),
  },
  {
    id: "GET session",
    method: "GET",
    path: "/api/v2/commerce/sessions/{sessionId}",
    kind: "read",
    request: (f) =>
      json("GET", `/api/v2/commerce/sessions/${f.demo.commerceSessionId}`, f.demo.apiKey),
  },
  {
    id: "GET coupon",
    method: "GET",
    path: "/api/v2/coupons/{code}",
    kind: "read",
    request: (f) => json("GET", `/api/v2/coupons/${f.demo.couponCode}`, f.demo.apiKey),
  },
  {
    id: "GET product",
    method: "GET",
    path: "/api/v2/product-catalog/products/{id}",
    kind: "read",
    request: (f) =>
      json("GET", `/api/v2/product-catalog/products/${f.demo.productId}`, f.demo.apiKey),
  },
  {
    id: "GET customer class",
    method: "GET",
    path: "/api/v2/customerclass/{id}",
    kind: "read",
    request: (f) => json("GET", `/api/v2/customerclass/${f.demo.customerClassId}`, f.demo.apiKey),
  },
  {
    id: "GET experience",
    method: "GET",
    path: "/api/v2/experiences/{id}",
    kind: "read",
    request: (f) => json("GET", `/api/v2/experiences/${f.demo.experienceId}`, f.demo.apiKey),
  },
  {
    id: "GET availabilities",
    method: "GET",
    path: "/api/v2/availabilities",
    kind: "read",
    request: (f) => {
      const from = new Date().toISOString().slice(0, 10);
      const to = new Date(Date.now() + 60 * 86_400_000).toISOString().slice(0, 10);
      return json("GET", `/api/v2/availabilities?from=${from}&to=${to}`, f.demo.apiKey);
    },
  },
  {
    id: "GET problem",
    method: "GET",
    path: "/api/problems/{slug}",
    kind: "read",
    request: () => ({ method: "GET", path: "/api/problems/not-found", headers: {} }),
  },
  // Writes, each request with a body of its own.
  {
    id: "E1",
    method: "POST",
    path: "/api/v4/order-import/{apiChannelKey}",
    kind: "write",
    request: (f, seq) =>
      json(
        "POST",
        `/api/v4/order-import/${f.demo.apiChannelKey}`,
        f.demo.apiKey,
        legacyOrder(`BENCH-${f.tag}-${seq}`),
      ),
  },
  {
    id: "E1 (key)",
    method: "POST",
    path: "/api/v4/order-import/{apiChannelKey}",
    kind: "write",
    // The retry-safe import: claim, write and stored answer in one transaction.
    request: (f, seq) =>
      withKey(
        json(
          "POST",
          `/api/v4/order-import/${f.demo.apiChannelKey}`,
          f.demo.apiKey,
          legacyOrder(`BENCH-KEY-${f.tag}-${seq}`),
        ),
        `bench-e1-${f.tag}-${seq}`,
      ),
  },
  {
    id: "E2",
    method: "PUT",
    path: "/api/v4/orders/{id}",
    kind: "write",
    // The same order each time, without expectedUpdatedAt (last write wins): a changing note.
    request: (f, seq) =>
      json("PUT", `/api/v4/orders/${f.demo.orderId}`, f.demo.apiKey, {
        notes: `bench ${seq}`,
        status: "PAID",
      }),
  },
  {
    id: "E3",
    method: "PUT",
    path: "/api/v2/commerce/sessions/{sessionId}",
    kind: "write",
    request: (f, seq) => {
      const id = crypto.randomUUID();
      return json("PUT", `/api/v2/commerce/sessions/${id}`, f.demo.apiKey, {
        id,
        cartMode: "POS",
        channel: "counter",
        customName: `Table ${seq}`,
        status: "OPEN",
        guests: 2,
        wineryId: f.demo.wineryId,
        items: [
          { id: crypto.randomUUID(), productId: f.demo.productId, quantity: 2, lineIndex: 0 },
        ],
      });
    },
  },
  {
    id: "E6",
    method: "POST",
    path: "/api/v2/product-catalog/attributes",
    kind: "write",
    request: (f, seq) =>
      json("POST", "/api/v2/product-catalog/attributes", f.demo.apiKey, {
        code: `bench-${f.tag}-${seq}`,
      }),
  },
  {
    id: "E7",
    method: "PUT",
    path: "/api/v2/customerclass/{id}",
    kind: "write",
    request: (f, seq) =>
      json("PUT", `/api/v2/customerclass/${f.demo.customerClassId}`, f.demo.apiKey, {
        className: `Wine club ${seq}`,
        classType: "CLUB",
        priceType: "YEARLY",
      }),
  },
  {
    id: "POST customer class",
    method: "POST",
    path: "/api/v2/customerclass",
    kind: "write",
    request: (f, seq) =>
      json("POST", "/api/v2/customerclass", f.demo.apiKey, {
        className: `Bench class ${f.tag} ${seq}`,
        classType: "CLUB",
        priceType: "MONTHLY",
      }),
  },
  {
    id: "E9",
    method: "POST",
    path: "/api/v2/availabilities/actions",
    kind: "write",
    request: (f, seq) => {
      const day = new Date(Date.now() + (30 + (seq % 300)) * 86_400_000).toISOString().slice(0, 10);
      const minute = seq % 600;
      const time = `${String(8 + Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
      return json("POST", "/api/v2/availabilities/actions", f.demo.apiKey, {
        requests: [{ action: "CREATE", experienceId: f.demo.experienceId, day, time }],
      });
    },
  },
  {
    id: "E11",
    method: "PUT",
    path: "/api/v2/reservations/import/{reservationID}",
    kind: "write",
    // A new reservation of 2 guests each time, in the slots taken in turn (room for the whole run),
    // with its MASTER contact (a new one: E13's upsert rule) and an in-house payment.
    request: (f, seq) => {
      const { experienceId, slotDates, slotTime } = f.demo.reservations;
      return json("PUT", "/api/v2/reservations/import/NEW", f.demo.apiKey, {
        experienceId,
        date: slotDates[seq % slotDates.length],
        time: slotTime,
        state: "CONFIRMED",
        guestCount01: 2,
        guestCountTotal: 2,
        grossTotalCents: 5000,
        paidTotalCents: 5000,
        paid: true,
        languageIso: "en",
        paymentCurrency: "EUR",
        reservationContacts: [
          {
            contactType: "MASTER",
            countryIso: "IT",
            email: `bench-guest-${f.tag}-${seq}@example.com`,
            firstName: "Giulia",
            lastName: "Rossi",
            phoneNumber: "+39 055 123 4567",
          },
        ],
      });
    },
  },
  {
    id: "E12",
    method: "PUT",
    path: "/api/v2/product-catalog/products/{id}/files/{fileId}",
    kind: "write",
    request: (f, seq) =>
      json(
        "PUT",
        `/api/v2/product-catalog/products/${f.demo.productId}/files/${f.demo.fileId}`,
        f.demo.apiKey,
        {
          displayOrder: seq % 1000,
        },
      ),
  },
  {
    id: "E13",
    method: "POST",
    path: "/api/v2/contacts",
    kind: "write",
    request: (f, seq) =>
      json("POST", "/api/v2/contacts", f.demo.apiKey, {
        contactType: "MASTER",
        countryIso: "IT",
        email: `bench-${f.tag}-${seq}@example.com`,
        firstName: "Bench",
        lastName: `Contact ${seq}`,
        phoneNumber: `+39 333 ${String(seq).padStart(7, "0")}`,
      }),
  },
  {
    id: "E14",
    method: "POST",
    path: "/api/v2/reservations/{reservationID}/refund",
    kind: "write",
    // One cent of a large in-house payment each time, without Idempotency-Key (one statement), so
    // the reservations stay refundable for the whole run; they take turns (refundReservationIds).
    request: (f, seq) =>
      json("POST", `/api/v2/reservations/${refundTarget(f, seq)}/refund`, f.demo.apiKey, {
        amountCents: 1,
      }),
  },
  {
    id: "E14 (key)",
    method: "POST",
    path: "/api/v2/reservations/{reservationID}/refund",
    kind: "write",
    request: (f, seq) =>
      withKey(
        json("POST", `/api/v2/reservations/${refundTarget(f, seq)}/refund`, f.demo.apiKey, {
          amountCents: 1,
        }),
        `bench-e14-${f.tag}-${seq}`,
      ),
  },
  {
    id: "E15",
    method: "POST",
    path: "/api/v2/product-catalog/attributes/{id}/toggle-visibility",
    kind: "write",
    request: (f) =>
      json(
        "POST",
        `/api/v2/product-catalog/attributes/${f.demo.attributeId}/toggle-visibility`,
        f.demo.apiKey,
        {},
      ),
  },
  {
    id: "E19",
    method: "POST",
    path: "/api/v2/shopplugin/orders",
    kind: "write",
    // The plugin sends the order document JSON-encoded once more: a JSON string as the body.
    request: (f, seq) =>
      json(
        "POST",
        `/api/v2/shopplugin/orders?tagName=woocommerce&wineryId=${f.demo.wineryId}`,
        f.demo.apiKey,
        JSON.stringify(wooOrder(1_000_000 + seq)),
      ),
  },
  {
    id: "PUT coupon",
    method: "PUT",
    path: "/api/v2/coupons/{code}",
    kind: "write",
    request: (f, seq) =>
      json("PUT", `/api/v2/coupons/BENCH-${f.tag}-${seq}`, f.demo.apiKey, {
        active: true,
        discountType: "percent",
        discountPercent: 10,
      }),
  },
  {
    id: "PUT product",
    method: "PUT",
    path: "/api/v2/product-catalog/products/{id}",
    kind: "write",
    request: (f, seq) =>
      json("PUT", `/api/v2/product-catalog/products/${crypto.randomUUID()}`, f.demo.apiKey, {
        nameIt: `Vino ${seq}`,
        nameEn: `Wine ${seq}`,
        sku: `BENCH-${f.tag}-${seq}`,
        status: "PUBLISHED",
        priceCents: 4500,
        priceCurrency: "EUR",
        defaultVatRate: 22,
      }),
  },
  {
    id: "PUT experience",
    method: "PUT",
    path: "/api/v2/experiences/{id}",
    kind: "write",
    request: (f) =>
      json("PUT", `/api/v2/experiences/${crypto.randomUUID()}`, f.demo.apiKey, {
        active: true,
        maxParties: 10,
        minPartiesToEnable: 1,
        languagesIsoCode: ["en", "it"],
        titleTranslations: { en: "Tasting", it: "Degustazione" },
      }),
  },
];

/** "METHOD /path" of every operation in an OpenAPI document. */
export function documentedOperations(doc: {
  paths: Record<string, Record<string, unknown>>;
}): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}
