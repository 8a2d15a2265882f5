import { api } from "../helpers/api";
import { storedProduct, wine } from "../helpers/catalogue";
import { createExperience, nextWeekDays } from "../helpers/experiences";
import type { TestTenant } from "../helpers/factories";
import { externalOrder, importedOrder } from "../helpers/orders";
import { experienceWithSlot, importOk, reservationBody } from "../helpers/reservations";
import { wooOrder } from "../helpers/woocommerce";

/** One write, ready to send: the same request is sent under each fault, then once more healthy. */
export interface WriteRequest {
  /** Under /api, with the path parameters filled in. */
  path: string;
  body: unknown;
  headers?: Record<string, string>;
}

export interface WriteCase {
  /** Makes what the write needs (with the database up) and answers the request to send. */
  prepare(tenant: TestTenant): Promise<WriteRequest>;
  /** The status of the request once the database is back. */
  succeeds: number;
}

const unique = () => crypto.randomUUID().slice(0, 8);

/** The id of something made by a create route, from its JSON answer. */
async function createdId(path: string, tenant: TestTenant, body: unknown): Promise<string> {
  const response = await api(path, { key: tenant.apiKey, body });
  if (response.status >= 300)
    throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return String(((await response.json()) as { id: string | number }).id);
}

const customerClass = () => ({
  className: `Club ${unique()}`,
  classType: "WINE_CLUB",
  discountRate: 10,
  isActive: true,
  isPaid: true,
  price: 240,
  priceType: "YEARLY",
});

/**
 * Every write operation of the OpenAPI document, keyed `METHOD /api/path-template` as the document
 * spells it. test/faults/database-down.test.ts fails, naming the operation, when a documented write
 * has no entry here (or in READ_ONLY_OPERATIONS): a new write route must say how to call it.
 */
export const WRITE_CASES: Record<string, WriteCase> = {
  "POST /api/v4/order-import/{apiChannelKey}": {
    prepare: async (t) => ({
      path: `/v4/order-import/${t.apiChannelKey}`,
      body: externalOrder(),
      headers: { "Idempotency-Key": `faults-${crypto.randomUUID()}` },
    }),
    succeeds: 200,
  },
  "PUT /api/v4/orders/{id}": {
    prepare: async (t) => {
      const order = await importedOrder(t);
      return {
        path: `/v4/orders/${order.id}`,
        body: { status: "SHIPPED", notes: "faults", expectedUpdatedAt: order.updatedAt },
      };
    },
    succeeds: 200,
  },
  "POST /api/v2/contacts": {
    prepare: async () => ({
      path: "/v2/contacts",
      body: {
        contactType: "MASTER",
        countryIso: "IT",
        email: `faults-${unique()}@example.com`,
        firstName: "Fault",
        lastName: "Tolerant",
        phoneNumber: "+39 333 0000000",
      },
    }),
    succeeds: 200,
  },
  "POST /api/v2/shopplugin/orders": {
    prepare: async (t) => ({
      path: `/v2/shopplugin/orders?tagName=woocommerce&wineryId=${t.wineryId}`,
      body: JSON.stringify(wooOrder()), // E19 takes the shop's order document as a JSON string
    }),
    succeeds: 201,
  },
  "PUT /api/v2/commerce/sessions/{sessionId}": {
    prepare: async () => ({
      path: `/v2/commerce/sessions/${crypto.randomUUID()}`,
      body: {
        status: "OPEN",
        items: [
          {
            name: "Tasting",
            itemType: "PRODUCT",
            productId: "sku-t",
            qty: 2,
            unitPriceCents: 1250,
          },
        ],
      },
    }),
    succeeds: 200,
  },
  "PUT /api/v2/coupons/{code}": {
    prepare: async () => ({
      path: `/v2/coupons/F${unique()}`,
      body: {
        discountType: "percent",
        discountPercent: 10,
        couponRules: [{ entityType: "PRODUCT", entityId: "BRUNELLO" }],
      },
    }),
    succeeds: 200,
  },
  "PUT /api/v2/product-catalog/products/{id}": {
    prepare: async () => ({
      path: `/v2/product-catalog/products/${crypto.randomUUID()}`,
      body: wine({ files: [{ url: "https://cdn.example.com/a.jpg", displayOrder: 1 }] }),
    }),
    succeeds: 200,
  },
  "PUT /api/v2/product-catalog/products/{id}/files/{fileId}": {
    prepare: async (t) => {
      const product = await storedProduct(t, {
        files: [{ url: "https://cdn.example.com/a.jpg", displayOrder: 1 }],
      });
      return {
        path: `/v2/product-catalog/products/${product.id}/files/${product.files[0]?.id}`,
        body: { displayOrder: 9, flags: "COVER" },
      };
    },
    succeeds: 200,
  },
  "POST /api/v2/product-catalog/attributes": {
    prepare: async () => ({
      path: "/v2/product-catalog/attributes",
      body: { code: `grape-${unique()}`, names: { it: "Vitigno", en: "Grape" } },
    }),
    succeeds: 200,
  },
  "POST /api/v2/product-catalog/attributes/{id}/toggle-visibility": {
    prepare: async (t) => {
      const id = await createdId("/v2/product-catalog/attributes", t, {
        code: `grape-${unique()}`,
        names: { it: "Vitigno" },
      });
      return { path: `/v2/product-catalog/attributes/${id}/toggle-visibility`, body: {} };
    },
    succeeds: 200,
  },
  "POST /api/v2/customerclass": {
    prepare: async () => ({ path: "/v2/customerclass", body: customerClass() }),
    succeeds: 201,
  },
  "PUT /api/v2/customerclass/{id}": {
    prepare: async (t) => {
      const id = await createdId("/v2/customerclass", t, customerClass());
      return { path: `/v2/customerclass/${id}`, body: { ...customerClass(), discountRate: 20 } };
    },
    succeeds: 200,
  },
  "PUT /api/v2/experiences/{id}": {
    prepare: async () => ({
      path: `/v2/experiences/${crypto.randomUUID()}`,
      body: {
        active: true,
        maxParties: 10,
        minPartiesToEnable: 1,
        languagesIsoCode: ["en"],
        titleTranslations: { en: "Tasting" },
      },
    }),
    succeeds: 200,
  },
  "POST /api/v2/availabilities/actions": {
    prepare: async (t) => {
      const experience = await createExperience(t);
      const [from, , to] = nextWeekDays("SATURDAY", 3);
      return {
        path: "/v2/availabilities/actions",
        body: {
          requests: [
            {
              action: "CREATE",
              experienceId: experience.id,
              startFromValid: from,
              endToValid: to,
              weekDays: { SATURDAY: true },
              time: { hour: 15, minute: 0 },
            },
          ],
        },
      };
    },
    succeeds: 200,
  },
  "PUT /api/v2/reservations/import/{reservationID}": {
    prepare: async (t) => ({
      path: `/v2/reservations/import/${crypto.randomUUID()}`,
      body: reservationBody(await experienceWithSlot(t), { paidTotalCents: 5000, paid: true }),
    }),
    succeeds: 200,
  },
  "POST /api/v2/reservations/{reservationID}/refund": {
    prepare: async (t) => {
      const id = crypto.randomUUID();
      const body = reservationBody(await experienceWithSlot(t), {
        paidTotalCents: 5000,
        paid: true,
      });
      await importOk(t, id, body);
      return {
        path: `/v2/reservations/${id}/refund`,
        body: { amountCents: 1000 },
        headers: { "Idempotency-Key": `faults-${crypto.randomUUID()}` },
      };
    },
    succeeds: 200,
  },
};

/** Operations sent with POST that write nothing (queries with a body, previews, validations). */
export const READ_ONLY_OPERATIONS = new Set([
  "POST /api/v2/contacts/query",
  "POST /api/v3/contacts/query",
  "POST /api/v4/orders/query",
  "POST /api/v2/receipts/query",
  "POST /api/v2/coupons/validate",
  "POST /api/v2/product-catalog/products/winery/{wineryId}/query",
  "POST /api/v2/experiences/preview-propagation",
  "POST /api/v2/reservations/query",
]);
