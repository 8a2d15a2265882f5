import { and, eq } from "drizzle-orm";
import { expect } from "vitest";
import { contacts, orders } from "../../src/db/schema";
import type { Contact } from "../../src/schemas/contacts";
import type { Order } from "../../src/schemas/orders";
import { api } from "../helpers/api";
import { testDb } from "../helpers/db";
import type { TestTenant } from "../helpers/factories";
import { externalOrder, importedOrder, importOrder } from "../helpers/orders";
import { wooOrder } from "../helpers/woocommerce";
import { type MatrixEntry, okJson, readOk, record, unique } from "./matrix-entry";

/** An order of A on a date no other test uses, so a date-range list that leaks would show it. */
async function orderOfA(a: TestTenant) {
  const day = String(1 + Math.floor(Math.random() * 28)).padStart(2, "0");
  const date = `2031-0${1 + Math.floor(Math.random() * 9)}-${day}`;
  const email = `a-${unique()}@example.com`;
  const order = await importedOrder(a, { date, buyerEmail: email });
  return {
    ids: { orderId: String(order.id), date },
    marks: [order.externalId, email],
  };
}

async function contactOfA(a: TestTenant) {
  const email = `a-${unique()}@example.com`;
  const lastName = `Avalon-${unique()}`;
  const response = await api("/v2/contacts", {
    key: a.apiKey,
    body: {
      email,
      firstName: "Anna",
      lastName,
      phoneNumber: "+39 055 1",
      countryIso: "IT",
      contactType: "MASTER",
    },
  });
  const contact = await okJson<Contact>(response);
  return { ids: { contactId: String(contact.id), email }, marks: [lastName, email] };
}

const contactRow = (ids: { contactId?: string }, a: TestTenant) =>
  testDb()
    .select()
    .from(contacts)
    .where(and(eq(contacts.wineryId, a.wineryId), eq(contacts.id, Number(ids.contactId))));

const aroundNow = () => ({
  dateFrom: new Date(Date.now() - 3_600_000).toISOString(),
  dateTo: new Date(Date.now() + 3_600_000).toISOString(),
});

export const ordersAndContacts: MatrixEntry[] = [
  {
    operation: "GET /api/v4/orders/{id}",
    case: "A's order id is 404",
    arrangeA: orderOfA,
    requestAsB: (ids) => ({ path: `/v4/orders/${ids.orderId}` }),
    expected: 404,
  },
  {
    operation: "PUT /api/v4/orders/{id}",
    case: "A's order id is 404 and the order is unchanged (updatedAt included)",
    arrangeA: orderOfA,
    requestAsB: (ids) => ({
      path: `/v4/orders/${ids.orderId}`,
      method: "PUT",
      body: { notes: "written by B", userMetadata: { by: "B" } },
    }),
    expected: 404,
    readAsA: (ids, a) => readOk(a, `/v4/orders/${ids.orderId}`),
  },
  {
    operation: "PUT /api/v4/orders/{id}",
    case: "A's contact as a secondary contact of B's order is 400; A's contact is unchanged",
    arrangeA: contactOfA,
    requestAsB: async (ids, b) => ({
      path: `/v4/orders/${(await importedOrder(b)).id}`,
      method: "PUT",
      body: { userMetadata: { secondaryContacts: [{ contactId: ids.contactId, amountCents: 0 }] } },
    }),
    expected: 400,
    checkAnswer: (body) =>
      expect(record(body).errors).toEqual([
        expect.objectContaining({ path: expect.stringMatching(/secondaryContacts/) }),
      ]),
    readAsA: contactRow,
  },
  {
    operation: "POST /api/v4/orders/query",
    case: "B's list of the day of A's order holds none of it",
    arrangeA: orderOfA,
    requestAsB: (ids) => ({
      path: "/v4/orders/query",
      body: { dateFrom: `${ids.date}T00:00:00Z`, dateTo: `${ids.date}T23:59:59Z`, limit: 500 },
    }),
    expected: 200,
    checkAnswer: (body) => expect(record(body).total).toBe(0),
  },
  {
    operation: "POST /api/v4/order-import/{apiChannelKey}",
    case: "A's channel key is 404 and A gets no order",
    arrangeA: async (a) => ({ ids: { channel: a.apiChannelKey, externalId: `B-${unique()}` } }),
    requestAsB: (ids) => ({
      path: `/v4/order-import/${ids.channel}`,
      body: externalOrder({ id: ids.externalId }),
    }),
    expected: 404,
    readAsA: (ids, a) =>
      testDb()
        .select({ id: orders.id })
        .from(orders)
        .where(and(eq(orders.wineryId, a.wineryId), eq(orders.externalId, ids.externalId ?? ""))),
  },
  {
    // Idempotency keys are scoped by winery: B's key equal to A's is B's own, never A's replay.
    operation: "POST /api/v4/order-import/{apiChannelKey}",
    case: "A's Idempotency-Key and payload on B's channel import B's own order, not A's replay",
    arrangeA: async (a) => {
      const key = `shared-${unique()}`;
      const order = externalOrder({ buyerLastname: `A-${unique()}` });
      const response = await importOrder(a, order, { "Idempotency-Key": key });
      const stored = await okJson<Order>(response);
      // A's channel key is in A's answer: a replay of it to B would show it.
      return {
        ids: { key, order: JSON.stringify(order), orderId: String(stored.id) },
        marks: [a.apiChannelKey],
      };
    },
    requestAsB: (ids, b) => ({
      path: `/v4/order-import/${b.apiChannelKey}`,
      body: JSON.parse(ids.order ?? "{}"),
      headers: { "Idempotency-Key": ids.key ?? "" },
    }),
    expected: 200,
    checkAnswer: (body, ids, b) => {
      expect(String(record(body).id)).not.toBe(ids.orderId);
      expect(record(body).channel).toBe(b.apiChannelKey);
    },
    readAsA: (ids, a) => readOk(a, `/v4/orders/${ids.orderId}`),
  },
  {
    operation: "POST /api/v2/shopplugin/orders",
    case: "A's wineryId in the query is 403",
    arrangeA: async (a) => ({ ids: { wineryId: a.wineryId } }),
    requestAsB: (ids) => ({
      path: `/v2/shopplugin/orders?tagName=woocommerce&wineryId=${ids.wineryId}`,
      body: JSON.stringify(wooOrder()),
    }),
    expected: 403,
  },
  {
    operation: "POST /api/v2/shopplugin/orders",
    case: "the storefront id of A's order makes B's own order; A's is unchanged",
    arrangeA: async (a) => {
      const document = wooOrder({ billing: { ...wooOrder().billing, last_name: `A-${unique()}` } });
      const response = await api(
        `/v2/shopplugin/orders?tagName=woocommerce&wineryId=${a.wineryId}`,
        {
          key: a.apiKey,
          body: JSON.stringify(document),
        },
      );
      return {
        ids: { orderId: String(await okJson(response, 201)), document: JSON.stringify(document) },
        marks: [document.billing.last_name],
      };
    },
    requestAsB: (ids, b) => {
      const document = JSON.parse(ids.document ?? "{}");
      document.billing.last_name = "Bianchi";
      return {
        path: `/v2/shopplugin/orders?tagName=woocommerce&wineryId=${b.wineryId}`,
        body: JSON.stringify(document),
      };
    },
    expected: 201,
    checkAnswer: (body, ids) => expect(body).not.toBe(ids.orderId),
    readAsA: (ids, a) => readOk(a, `/v4/orders/${ids.orderId}`),
  },
  {
    operation: "POST /api/v2/contacts",
    case: "A's contact's email makes B's own contact; A's is unchanged",
    arrangeA: contactOfA,
    requestAsB: (ids) => ({
      path: "/v2/contacts",
      body: {
        email: ids.email,
        firstName: "Bruno",
        lastName: "Bianchi",
        phoneNumber: "+39 02 1",
        countryIso: "IT",
        contactType: "MASTER",
      },
    }),
    expected: 200,
    checkAnswer: (body, ids) => expect(String(record(body).id)).not.toBe(ids.contactId),
    readAsA: contactRow,
  },
  ...(["/v2/contacts/query", "/v3/contacts/query"] as const).map(
    (path): MatrixEntry => ({
      operation: `POST /api${path}`,
      case: "B's export of the hour A's contact was made holds none of it",
      arrangeA: contactOfA,
      requestAsB: () => ({ path, body: aroundNow() }),
      expected: 200,
    }),
  ),
];
