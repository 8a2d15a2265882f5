import { expect } from "vitest";
import type { CommerceSession } from "../../src/schemas/commerce-sessions";
import type { Coupon, CouponUtilizationResult } from "../../src/schemas/coupons";
import { api } from "../helpers/api";
import type { TestTenant } from "../helpers/factories";
import { insertReceipts, receiptRow } from "../helpers/receipts";
import { type MatrixEntry, okJson, readOk, record, unique } from "./matrix-entry";

async function sessionOfA(a: TestTenant) {
  const id = crypto.randomUUID();
  const name = `A-item-${unique()}`;
  const response = await api(`/v2/commerce/sessions/${id}`, {
    key: a.apiKey,
    method: "PUT",
    body: { status: "OPEN", customName: name, items: [{ name, qty: 2, unitPriceCents: 1250 }] },
  });
  await okJson(response);
  return { ids: { sessionId: id }, marks: [name] };
}

async function couponOfA(a: TestTenant) {
  const code = `A${unique()}`;
  const response = await api(`/v2/coupons/${code}`, {
    key: a.apiKey,
    method: "PUT",
    body: { discountType: "percent", discountPercent: 10, type: "RESERVATION", useMax: 5 },
  });
  const coupon = await okJson<Coupon>(response);
  return { ids: { code, couponId: coupon.id }, marks: [coupon.id] };
}

const sessionPath = (id = "") => `/v2/commerce/sessions/${id}`;
const wines = [{ entityType: "PRODUCT", entityId: "BRUNELLO", amountCentsBeforeDiscount: 9000 }];

export const commerce: MatrixEntry[] = [
  {
    operation: "GET /api/v2/commerce/sessions/{sessionId}",
    case: "A's session id is 404",
    arrangeA: sessionOfA,
    requestAsB: (ids) => ({ path: sessionPath(ids.sessionId) }),
    expected: 404,
  },
  {
    // Sessions are keyed (winery, id): B's PUT of the same uuid makes B's own session at version 1,
    // neither reading nor replacing A's.
    operation: "PUT /api/v2/commerce/sessions/{sessionId}",
    case: "A's session id makes B's own session (version 1, B's items only); A's is unchanged",
    arrangeA: sessionOfA,
    requestAsB: (ids) => ({
      path: sessionPath(ids.sessionId),
      method: "PUT",
      body: { status: "OPEN", items: [{ name: "B's wine", qty: 1, unitPriceCents: 900 }] },
    }),
    expected: 200,
    checkAnswer: (body, _, b) => {
      const session = body as CommerceSession;
      expect(session).toMatchObject({ wineryId: b.wineryId, version: 1 });
      expect(session.items.map((i) => i.name)).toEqual(["B's wine"]);
    },
    readAsA: (ids, a) => readOk(a, sessionPath(ids.sessionId)),
  },
  {
    operation: "PUT /api/v2/commerce/sessions/{sessionId}",
    case: "A's wineryId in the body is 403",
    arrangeA: async (a) => ({ ids: { wineryId: a.wineryId } }),
    requestAsB: (ids) => ({
      path: sessionPath(crypto.randomUUID()),
      method: "PUT",
      body: { wineryId: ids.wineryId, status: "OPEN", items: [] },
    }),
    expected: 403,
  },
  {
    operation: "POST /api/v2/receipts/query",
    case: "B's query naming A's receipt finds nothing",
    arrangeA: async (a) => {
      const externalReceiptId = `A-${unique()}`;
      const customerName = `Aurora ${unique()}`;
      const progressive = 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
      const [receipt] = await insertReceipts([
        receiptRow(a.wineryId, progressive, { externalReceiptId, customerName }),
      ]);
      return { ids: { externalReceiptId }, marks: [customerName, receipt?.id ?? "none"] };
    },
    requestAsB: (ids) => ({
      path: "/v2/receipts/query",
      body: { externalReceiptId: ids.externalReceiptId },
    }),
    expected: 200,
    checkAnswer: (body) => expect(record(body).totalElements).toBe(0),
  },
  {
    operation: "POST /api/v2/receipts/query",
    case: "A's wineryId in the body is 403",
    arrangeA: async (a) => ({ ids: { wineryId: a.wineryId } }),
    requestAsB: (ids) => ({ path: "/v2/receipts/query", body: { wineryId: ids.wineryId } }),
    expected: 403,
  },
  {
    operation: "POST /api/v2/coupons/validate",
    case: "A's code is NOT_FOUND for B, and A's coupon is unchanged",
    arrangeA: couponOfA,
    requestAsB: (ids) => ({
      path: "/v2/coupons/validate",
      body: { code: ids.code, purchaseType: "RESERVATION", saleEntities: wines },
    }),
    expected: 200,
    checkAnswer: (body) => {
      const result = body as CouponUtilizationResult;
      expect(result).toMatchObject({ success: false, coupon: null, discountTotalCents: 0 });
      expect(result.message).toMatch(/^NOT_FOUND/);
    },
    readAsA: (ids, a) => readOk(a, `/v2/coupons/${ids.code}`),
  },
  {
    operation: "POST /api/v2/coupons/validate",
    case: "A's wineryId in the body is 403",
    arrangeA: async (a) => ({ ids: { ...(await couponOfA(a)).ids, wineryId: a.wineryId } }),
    requestAsB: (ids) => ({
      path: "/v2/coupons/validate",
      body: { code: ids.code, wineryId: ids.wineryId, saleEntities: wines },
    }),
    expected: 403,
  },
  {
    operation: "GET /api/v2/coupons/{code}",
    case: "A's code is 404",
    arrangeA: couponOfA,
    requestAsB: (ids) => ({ path: `/v2/coupons/${ids.code}` }),
    expected: 404,
  },
  {
    // Codes are unique per winery: B's PUT of A's code makes B's own coupon.
    operation: "PUT /api/v2/coupons/{code}",
    case: "A's code makes B's own coupon; A's is unchanged",
    arrangeA: couponOfA,
    requestAsB: (ids) => ({
      path: `/v2/coupons/${ids.code}`,
      method: "PUT",
      body: { discountType: "percent", discountPercent: 50, type: "RESERVATION" },
    }),
    expected: 200,
    checkAnswer: (body, ids) => expect(record(body).id).not.toBe(ids.couponId),
    readAsA: (ids, a) => readOk(a, `/v2/coupons/${ids.code}`),
  },
];
