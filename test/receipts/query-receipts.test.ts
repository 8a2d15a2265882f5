import { inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { receiptLines, receiptPayments, receipts } from "../../src/db/schema";
import type { Order } from "../../src/schemas/orders";
import type { ReceiptPage, ReceiptQuery } from "../../src/schemas/receipts";
import { receiptPageStatement } from "../../src/services/receipts/query-receipts";
import { api, expectProblem } from "../helpers/api";
import { testDb } from "../helpers/db";
import { createTenant, type TestTenant } from "../helpers/factories";
import { importedOrder } from "../helpers/orders";
import { insertReceipts, receiptRow } from "../helpers/receipts";
import { countRoundTrips } from "../helpers/round-trips";

let tenant: TestTenant;
let other: TestTenant;
const channelA = crypto.randomUUID();
const channelB = crypto.randomUUID();
const suite = crypto.randomUUID();
const at = (iso: string) => new Date(iso);

beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
  const w = tenant.wineryId;
  // Progressive numbers name the receipts in the expectations below.
  await insertReceipts([
    receiptRow(w, 101, {
      createdAt: at("2026-01-01T10:00:00Z"),
      refDate: at("2026-01-01T10:00:00Z"),
      totalCents: 500,
      customerName: "Marco Bianchi",
      wineryChannelId: channelA,
      terminalId: "T1",
      terminalName: "Bar",
    }),
    receiptRow(w, 102, {
      createdAt: at("2026-01-02T10:00:00Z"),
      refDate: at("2026-01-02T23:59:59.999Z"),
      totalCents: 1500,
      customerName: "Anna Rossi",
      wineryChannelId: channelB,
      status: "SENT",
      authorityCommunicationState: "DONE",
    }),
    receiptRow(w, 103, {
      createdAt: at("2026-01-03T10:00:00Z"),
      refDate: at("2026-01-03T00:00:00Z"),
      totalCents: 2500,
      customerName: "MARCO 100% Verdi",
      fiscalOperation: "REFUND",
      saleDocumentState: "ISSUED",
      pointOfSaleSuiteId: suite,
      externalReceiptId: "EXT-103",
    }),
    receiptRow(w, 104, {
      createdAt: at("2026-01-03T10:00:00Z"),
      refDate: at("2026-01-04T12:00:00Z"),
      totalCents: 2500,
      receiptType: "MANUAL",
      wineryChannelId: channelA,
    }),
    receiptRow(w, 105, {
      createdAt: at("2026-01-03T10:00:00Z"),
      refDate: at("2026-01-05T12:00:00Z"),
      totalCents: 9000,
      integrationId: suite,
    }),
  ]);
});

const query = (body: Partial<Record<keyof ReceiptQuery, unknown>>, key = tenant.apiKey) =>
  api("/v2/receipts/query", { key, body });

async function page(body: Partial<Record<keyof ReceiptQuery, unknown>>, key = tenant.apiKey) {
  const response = await query(body, key);
  expect(response.status).toBe(200);
  return (await response.json()) as ReceiptPage;
}

const numbers = (p: ReceiptPage) => p.content.map((r) => r.progressiveNumber);

describe("E4 POST /v2/receipts/query: filters", () => {
  it.each<[string, Record<string, unknown>, number[]]>([
    ["no filter (createdAt desc, ties by id desc)", {}, [105, 104, 103, 102, 101]],
    ["status", { status: "SENT" }, [102]],
    ["documentStatus", { documentStatus: "CREATED" }, [101, 103, 104, 105]],
    ["authorityCommunicationState", { authorityCommunicationState: "DONE" }, [102]],
    [
      "authorityCommunicationStates",
      { authorityCommunicationStates: "DONE, TODO" },
      [101, 102, 103, 104, 105],
    ],
    ["fiscalOperation", { fiscalOperation: "REFUND" }, [103]],
    ["fiscalOperations", { fiscalOperations: "REFUND,VOID" }, [103]],
    ["receiptType", { receiptType: "MANUAL" }, [104]],
    ["saleDocumentState", { saleDocumentState: "NONE" }, [101, 102, 104, 105]],
    ["saleDocumentStates", { saleDocumentStates: "ISSUED,,X" }, [103]],
    ["customerName (case-insensitive substring)", { customerName: "marco" }, [101, 103]],
    ["customerName with a LIKE wildcard taken literally", { customerName: "100%" }, [103]],
    ["customerName empty: no filter", { customerName: "" }, [101, 102, 103, 104, 105]],
    ["terminalId", { terminalId: "T1" }, [101]],
    ["terminalName", { terminalName: "Bar" }, [101]],
    ["externalReceiptId", { externalReceiptId: "EXT-103" }, [103]],
    ["wineryChannelId", { wineryChannelId: channelA }, [101, 104]],
    ["wineryChannelId that is no uuid", { wineryChannelId: "shop" }, []],
    ["wineryChannelIds", { wineryChannelIds: `${channelA},${channelB}` }, [101, 102, 104]],
    [
      // The most values a list takes, as uuids (an outside audit found 1,000 refused by its length).
      "wineryChannelIds of 1,000 uuids",
      {
        wineryChannelIds: [
          channelB,
          ...Array.from(
            { length: 999 },
            (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
          ),
        ].join(","),
      },
      [102],
    ],
    ["pointOfSaleSuiteId", { pointOfSaleSuiteId: suite }, [103]],
    ["pointOfSaleSuiteIds", { pointOfSaleSuiteIds: `x,${suite}` }, [103]],
    ["integrationId", { integrationId: suite }, [105]],
    ["progressiveNumber", { progressiveNumber: 102 }, [102]],
    ["startDate as a date", { startDate: "2026-01-03" }, [103, 104, 105]],
    ["endDate as a date (whole day)", { endDate: "2026-01-02" }, [101, 102]],
    ["endDate as a date-time (inclusive)", { endDate: "2026-01-03T00:00:00Z" }, [101, 102, 103]],
    // Found by test/fuzz: the end of 9999-12-31 is the year 10000, once a 500 from Postgres.
    ["endDate the last day there is", { endDate: "9999-12-31" }, [101, 102, 103, 104, 105]],
    [
      "endDate the last instant there is",
      { endDate: "9999-12-31T23:59:59.999Z" },
      [101, 102, 103, 104, 105],
    ],
    [
      "startDate as a date-time with offset",
      { startDate: "2026-01-04T13:00:00+01:00" },
      [104, 105],
    ],
    ["minTotalCents (inclusive)", { minTotalCents: 2500 }, [103, 104, 105]],
    ["maxTotalCents (inclusive)", { maxTotalCents: 1500 }, [101, 102]],
    ["combined", { minTotalCents: 1000, wineryChannelIds: channelA, endDate: "2026-01-04" }, [104]],
  ])("%s", async (_, filter, expected) => {
    const p = await page({ ...filter, sortBy: "createdAt,desc" });
    expect(numbers(p).sort()).toEqual([...expected].sort());
    expect(p.totalElements).toBe(expected.length);
  });

  it("answers the receipts with their lines and payments", async () => {
    const [receipt] = (await page({ progressiveNumber: 101 })).content;
    expect(receipt).toMatchObject({
      wineryId: tenant.wineryId,
      totalCents: 500,
      receiptLines: [{ lineNumber: 1, description: "line of 101", quantity: 1 }],
      receiptPayments: [{ grossTotalCents: 500, currency: "EUR", status: "PAID" }],
    });
  });
});

describe("E4: sorting", () => {
  it.each<[string, number[]]>([
    ["createdAt,desc", [105, 104, 103, 102, 101]],
    ["createdAt", [101, 102, 103, 104, 105]],
    ["refDate,desc", [105, 104, 103, 102, 101]],
    ["totalCents,asc", [101, 102, 103, 104, 105]],
    ["totalCents,DESC", [105, 104, 103, 102, 101]],
    ["progressiveNumber,desc", [105, 104, 103, 102, 101]],
  ])("sortBy %s", async (sortBy, expected) => {
    const p = await page({ sortBy });
    // Ties (103..105 share createdAt, 103 and 104 share totalCents) break by id, in the sort's
    // direction: compare with the ids rather than assuming insertion order.
    const ids = p.content.map((r) => r.id);
    expect(new Set(numbers(p))).toEqual(new Set(expected));
    const keyOf = (n: number) => p.content.find((r) => r.progressiveNumber === n);
    const field = sortBy.split(",")[0] as
      | "createdAt"
      | "refDate"
      | "totalCents"
      | "progressiveNumber";
    const desc = sortBy.toLowerCase().endsWith("desc");
    const sorted = [...p.content].sort((a, b) => {
      const ka = String(a[field]).padStart(30, "0");
      const kb = String(b[field]).padStart(30, "0");
      const byKey = ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
      return desc ? -byKey : byKey;
    });
    expect(ids).toEqual(sorted.map((r) => r.id));
    expect(keyOf(expected[0] as number)).toBeDefined();
  });

  it("keeps ties stable across pages (no receipt twice, none skipped)", async () => {
    const seen: string[] = [];
    for (let n = 0; n < 5; n++) {
      seen.push(
        ...(await page({ count: 1, page: n, sortBy: "totalCents,desc" })).content.map((r) => r.id),
      );
    }
    expect(new Set(seen).size).toBe(5);
  });
});

describe("E4: page arithmetic", () => {
  it.each<[string, Record<string, unknown>, Partial<ReceiptPage>]>([
    [
      "the first page",
      { count: 2, page: 0 },
      {
        number: 0,
        size: 2,
        numberOfElements: 2,
        totalElements: 5,
        totalPages: 3,
        first: true,
        last: false,
        empty: false,
      },
    ],
    [
      "the last page",
      { count: 2, page: 2 },
      { number: 2, numberOfElements: 1, totalPages: 3, first: false, last: true, empty: false },
    ],
    [
      "a page past the end",
      { count: 2, page: 7 },
      {
        number: 7,
        numberOfElements: 0,
        totalElements: 5,
        totalPages: 3,
        first: false,
        last: true,
        empty: true,
      },
    ],
    ["an exact fit", { count: 5 }, { totalPages: 1, first: true, last: true, numberOfElements: 5 }],
    [
      "an empty result",
      { status: "NOPE" },
      { totalElements: 0, totalPages: 0, first: true, last: true, empty: true, content: [] },
    ],
    ["the defaults", {}, { number: 0, size: 20 }],
  ])("%s", async (_, body, expected) => {
    const p = await page(body);
    expect(p).toMatchObject(expected);
    expect(p.pageable).toEqual({
      offset: p.size * p.number,
      pageNumber: p.number,
      pageSize: p.size,
      paged: true,
      unpaged: false,
      sort: { empty: false, sorted: true, unsorted: false },
    });
    expect(p.sort).toEqual({ empty: false, sorted: true, unsorted: false });
  });
});

describe("E4: date-time bounds finer than a millisecond", () => {
  let fine: TestTenant;
  beforeAll(async () => {
    fine = await createTenant();
    // refDates 0, 1 and 2 ms past midnight (the column holds whole milliseconds).
    await insertReceipts(
      [0, 1, 2].map((ms) =>
        receiptRow(fine.wineryId, 200 + ms, { refDate: new Date(Date.UTC(2031, 2, 11) + ms) }),
      ),
    );
  });

  it.each<[string, Record<string, unknown>, number[]]>([
    // Truncated to milliseconds, this inclusive lower bound admitted 200 (0.5 ms before it).
    ["startDate 0.5 ms past midnight", { startDate: "2031-03-11T00:00:00.0005Z" }, [201, 202]],
    // Rounded to microseconds (as Postgres reads it), this one admitted 201 (0.4 ns before it).
    ["startDate just past 1 ms", { startDate: "2031-03-11T00:00:00.0010004Z" }, [202]],
    ["startDate with an offset", { startDate: "2031-03-11T01:00:00.0005+01:00" }, [201, 202]],
    ["startDate exactly 1 ms", { startDate: "2031-03-11T00:00:00.001000000Z" }, [201, 202]],
    ["endDate 0.5 ms past midnight", { endDate: "2031-03-11T00:00:00.0005Z" }, [200]],
    ["endDate just before 2 ms", { endDate: "2031-03-11T00:00:00.001999999Z" }, [200, 201]],
    [
      "startDate and endDate the same instant",
      { startDate: "2031-03-11T00:00:00.0010Z", endDate: "2031-03-11T00:00:00.001000Z" },
      [201],
    ],
    [
      "endDate the last instant there is",
      { endDate: "9999-12-31T23:59:59.9999999Z" },
      [200, 201, 202],
    ],
    ["startDate the last instant there is", { startDate: "9999-12-31T23:59:59.9999999Z" }, []],
  ])("%s", async (_, filter, expected) => {
    const p = await page(filter, fine.apiKey);
    expect(numbers(p).sort()).toEqual(expected);
  });

  it("refuses an endDate a fraction of a millisecond before startDate", async () => {
    const problem = await expectProblem(
      await query(
        { startDate: "2031-03-11T00:00:00.0005Z", endDate: "2031-03-11T00:00:00.0001Z" },
        fine.apiKey,
      ),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors?.map((e) => e.path)).toContain("endDate");
  });
});

describe("E4: errors", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["count over the maximum", { count: 201 }, "count"],
    ["count 0", { count: 0 }, "count"],
    ["a negative page", { page: -1 }, "page"],
    ["an unknown sort field", { sortBy: "customerName,asc" }, "sortBy"],
    ["an unknown sort direction", { sortBy: "createdAt,up" }, "sortBy"],
    ["a start date that is not a date", { startDate: "yesterday" }, "startDate"],
    ["an end before the start", { startDate: "2026-01-03", endDate: "2026-01-02" }, "endDate"],
    ["a minimum over the maximum", { minTotalCents: 10, maxTotalCents: 5 }, "maxTotalCents"],
    ["a fractional total bound", { minTotalCents: 1.5 }, "minTotalCents"],
    ["an integrationId that is no uuid", { integrationId: "x" }, "integrationId"],
  ])("answers 400 for %s", async (_, body, field) => {
    const problem = await expectProblem(await query(body), 400, "VALIDATION_ERROR");
    expect(problem.errors?.map((e) => e.path)).toContain(field);
  });

  it("names a field's problem once, though two checks found it (an int's own safe range and the amount's bound)", async () => {
    const problem = await expectProblem(
      await query({ minTotalCents: 2 ** 53 }),
      400,
      "VALIDATION_ERROR",
    );
    expect(problem.errors).toEqual([
      { path: "minTotalCents", message: expect.stringMatching(/^Too big/) },
    ]);
    expect(problem.detail).not.toMatch(/more\)/);
  });
});

describe("E4: receipts issued by E1, cost and plan", () => {
  it("finds the receipt E1 issued, with a line per item and the payment", async () => {
    const buyer = await createTenant();
    const order: Order = await importedOrder(buyer);
    const p = await page({}, buyer.apiKey);
    expect(p.totalElements).toBe(1);
    expect(p.content[0]).toMatchObject({
      externalEntityId: expect.any(String),
      receiptType: "ORDER",
      fiscalOperation: "RECEIPT",
      status: "CREATED",
      authorityCommunicationState: "TODO",
      saleDocumentState: "NONE",
      progressiveNumber: 1,
      totalCents: order.amountCents,
    });
    expect(p.content[0]?.receiptLines).toHaveLength(order.items.length);
    expect(p.content[0]?.receiptPayments).toMatchObject([{ grossTotalCents: order.amountCents }]);
  });

  it("finds an order's receipt by externalEntityId: the order's id as E1 answers it, or the receipt's own uuid", async () => {
    const buyer = await createTenant();
    const order: Order = await importedOrder(buyer);
    const other: Order = await importedOrder(buyer);
    const byOrder = await page({ externalEntityId: String(order.id) }, buyer.apiKey);
    expect(byOrder.content.map((r) => r.totalCents)).toEqual([order.amountCents]);
    const uuid = byOrder.content[0]?.externalEntityId;
    const byUuid = await page({ externalEntityId: uuid }, buyer.apiKey);
    expect(byUuid.content.map((r) => r.id)).toEqual(byOrder.content.map((r) => r.id));
    expect((await page({ externalEntityId: String(other.id) }, buyer.apiKey)).totalElements).toBe(
      1,
    );
    // Another winery's order id, an id past the safe range, one with a leading zero: nothing.
    for (const none of [String(order.id), "99999999999999999", `0${order.id}`]) {
      const key = none === String(order.id) ? tenant.apiKey : buyer.apiKey;
      expect((await page({ externalEntityId: none }, key)).totalElements).toBe(0);
    }
  });

  it("costs one round trip per page", async () => {
    const { result, trips } = await countRoundTrips(() => query({ count: 2, page: 1 }));
    expect(result.status).toBe(200);
    expect(trips).toEqual({ httpRequests: 1, wsSessions: 0 });
  });

  it("walks a winery-led index for the page and the count", async () => {
    const db = testDb();
    const statement = receiptPageStatement(
      tenant.wineryId,
      { wineryChannelIds: [channelA] } as ReceiptQuery,
      { size: 20, number: 0, sort: { field: "createdAt", direction: "desc" } },
    );
    // A table this small is cheaper to scan; forbid that to see which index the plan would use.
    const [, plan] = await db.batch([
      db.execute(sql`set local enable_seqscan = off`),
      db.execute(sql`explain (format text) ${statement}`),
    ]);
    const text = plan.rows.map((row) => Object.values(row).join("")).join("\n");
    expect(text).toMatch(/Index (Only )?Scan.* using receipts_winery_/);
    expect(text).not.toMatch(/Seq Scan on receipts/);
  });
});

/**
 * The reference for the bytes of a receipt: the ReceiptV2 document as the Worker built it before
 * Postgres wrote the text (toReceipt, from the rows as drizzle reads them), through JSON.stringify.
 */
function referenceReceipt(
  r: typeof receipts.$inferSelect,
  lines: (typeof receiptLines.$inferSelect)[],
  payments: (typeof receiptPayments.$inferSelect)[],
) {
  return {
    id: r.id,
    externalEntityId: r.externalEntityId,
    integrationId: r.integrationId,
    pointOfSaleSuiteId: r.pointOfSaleSuiteId,
    referencedReceiptId: r.referencedReceiptId,
    wineryId: r.wineryId,
    adeDocumentNumber: r.adeDocumentNumber,
    authorityCommunicationState: r.authorityCommunicationState,
    cancellationReason: r.cancellationReason,
    externalReceiptId: r.externalReceiptId,
    extraData: r.extraData,
    fiscalOperation: r.fiscalOperation,
    internalDocumentNumber: r.internalDocumentNumber,
    pdfLink: r.pdfLink,
    publicLink: r.publicLink,
    qrCodeData: r.qrCodeData,
    receiptData: r.receiptData,
    receiptType: r.receiptType,
    referencedInternalDocumentNumber: r.referencedInternalDocumentNumber,
    saleDocumentState: r.saleDocumentState,
    status: r.status,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    refDate: r.refDate.toISOString(),
    discountTotalCents: r.discountTotalCents,
    totalCents: r.totalCents,
    totalNoVatCents: r.totalNoVatCents,
    vatAmountCents: r.vatAmountCents,
    progressiveNumber: r.progressiveNumber,
    receiptLines: lines
      .filter((l) => l.receiptId === r.id)
      .sort((a, b) => a.lineNumber - b.lineNumber || (a.id < b.id ? -1 : 1))
      .map((l) => ({
        additionalText: l.additionalText,
        createdAt: l.createdAt.toISOString(),
        description: l.description,
        discountAmountCents: l.discountAmountCents,
        discountPercent: l.discountPercent,
        entityId: l.entityId,
        entityType: l.entityType,
        fiscalNatureId: l.fiscalNatureId,
        id: l.id,
        inlineDiscountAmountCents: l.inlineDiscountAmountCents,
        inlineDiscountName: l.inlineDiscountName,
        lineNumber: l.lineNumber,
        lineType: l.lineType,
        netTotalCents: l.netTotalCents,
        quantity: l.quantity,
        receiptId: l.receiptId,
        saleRowId: l.saleRowId,
        stornoReceiptId: l.stornoReceiptId,
        unit: l.unit,
        unitPriceCents: l.unitPriceCents,
        updatedAt: l.updatedAt.toISOString(),
        vatAmountCents: l.vatAmountCents,
        vatPercent: l.vatPercent,
      })),
    receiptPayments: payments
      .filter((m) => m.receiptId === r.id)
      .sort((a, b) => a.paymentNumber - b.paymentNumber || (a.id < b.id ? -1 : 1))
      .map((m) => ({
        createdAt: m.createdAt.toISOString(),
        currency: m.currency,
        externalId: m.externalId,
        grossTotalCents: m.grossTotalCents,
        id: m.id,
        method: m.method,
        paymentId: m.paymentId,
        paymentNumber: m.paymentNumber,
        provider: m.provider,
        receiptId: m.receiptId,
        status: m.status,
        updatedAt: m.updatedAt.toISOString(),
      })),
  };
}

describe("E4: the answer's bytes", () => {
  it("are the receipts, lines and payments as JSON.stringify writes them", async () => {
    const buyer = await createTenant();
    const db = testDb();
    const odd = 'a "quoted" \\ back\nslash\t\u0001 \u2028 é 🍷 </script>';
    const stored = await db
      .insert(receipts)
      .values([
        // Every nullable field set, odd text, negative and large amounts, uneven milliseconds.
        receiptRow(buyer.wineryId, 1, {
          externalEntityId: crypto.randomUUID(),
          integrationId: crypto.randomUUID(),
          pointOfSaleSuiteId: crypto.randomUUID(),
          referencedReceiptId: crypto.randomUUID(),
          adeDocumentNumber: odd,
          cancellationReason: "",
          externalReceiptId: "EXT-1",
          extraData: '{"a": 1}',
          internalDocumentNumber: "0001",
          pdfLink: "https://example.com/r.pdf?a=1&b=2",
          publicLink: "https://example.com/r",
          qrCodeData: odd,
          receiptData: "line1\r\nline2",
          referencedInternalDocumentNumber: "0000",
          createdAt: at("2026-02-01T10:00:00.007Z"),
          updatedAt: at("2026-02-01T10:00:00.000Z"),
          refDate: at("1999-12-31T23:59:59.999Z"),
          discountTotalCents: -120,
          totalCents: 9007199254740991,
          totalNoVatCents: -1,
          vatAmountCents: 0,
        }),
        // Nothing optional, no lines, no payments.
        receiptRow(buyer.wineryId, 2, { createdAt: at("2026-02-01T10:00:01.000Z") }),
        // Lines only.
        receiptRow(buyer.wineryId, 3, { createdAt: at("2026-02-01T10:00:02.120Z") }),
      ])
      .returning();
    const [full, , linesOnly] = stored as [
      typeof receipts.$inferSelect,
      typeof receipts.$inferSelect,
      typeof receipts.$inferSelect,
    ];
    await db.insert(receiptLines).values([
      {
        receiptId: full.id,
        lineNumber: 2,
        lineType: "SALE",
        netTotalCents: 100,
        quantity: 3,
        unitPriceCents: 50,
        vatAmountCents: 22,
        additionalText: odd,
        description: "Vino rosso",
        discountAmountCents: -5,
        discountPercent: 10,
        entityId: "SKU-1",
        entityType: "PRODUCT",
        fiscalNatureId: crypto.randomUUID(),
        inlineDiscountAmountCents: 7,
        inlineDiscountName: "promo",
        saleRowId: 42,
        stornoReceiptId: crypto.randomUUID(),
        unit: "bottle",
        vatPercent: 22,
        createdAt: at("2026-02-01T10:00:00.001Z"),
      },
      // Two lines share a number: ordered by id.
      ...[1, 1, 3].map((lineNumber) => ({
        receiptId: full.id,
        lineNumber,
        lineType: "SALE",
        netTotalCents: 0,
        quantity: 1,
        unitPriceCents: 0,
        vatAmountCents: 0,
      })),
      ...[5, 4].map((lineNumber) => ({
        receiptId: linesOnly.id,
        lineNumber,
        lineType: "REFUND",
        netTotalCents: -10,
        quantity: 2,
        unitPriceCents: -5,
        vatAmountCents: 0,
      })),
    ]);
    await db.insert(receiptPayments).values([
      ...[2, 1, 1].map((paymentNumber) => ({
        receiptId: full.id,
        currency: "EUR",
        grossTotalCents: 100 * paymentNumber,
        paymentNumber,
        status: "PAID",
      })),
      {
        receiptId: full.id,
        currency: "USD",
        externalId: odd,
        grossTotalCents: -1,
        method: "CARD",
        paymentId: crypto.randomUUID(),
        paymentNumber: 3,
        provider: "stripe",
        status: "REFUNDED",
        updatedAt: at("2026-02-01T10:00:00.010Z"),
      },
    ]);
    const ids = stored.map((r) => r.id);
    const [rows, lines, payments] = await Promise.all([
      db.select().from(receipts).where(inArray(receipts.id, ids)),
      db.select().from(receiptLines).where(inArray(receiptLines.receiptId, ids)),
      db.select().from(receiptPayments).where(inArray(receiptPayments.receiptId, ids)),
    ]);
    for (const sortBy of ["createdAt,desc", "progressiveNumber,asc"]) {
      const response = await query({ sortBy }, buyer.apiKey);
      expect(response.status).toBe(200);
      const text = await response.text();
      const order = sortBy.startsWith("createdAt") ? [3, 2, 1] : [1, 2, 3];
      const expected = order.map((n) => {
        const r = rows.find((row) => row.progressiveNumber === n) as typeof receipts.$inferSelect;
        return referenceReceipt(r, lines, payments);
      });
      expect(text.startsWith(`{"content":${JSON.stringify(expected)},"empty":false,`)).toBe(true);
      expect(text).toBe(JSON.stringify(JSON.parse(text)));
    }
  });
});

describe("E4: line quantities as JavaScript writes them", () => {
  // The API stores integers only (order items' quantities are Int64); the column is numeric, so a
  // value stored by hand is written as JSON.stringify(Number(its numeric text)) would write it.
  const quantities = [
    "1",
    "0",
    "-3",
    "5.000",
    "9007199254740991",
    "9007199254740993",
    "18275390876315350",
    "123456789012345678901234",
    "1e21",
    "999999999999999999999",
    "1.5",
    "-2.250",
    "0.1",
    "0.30000000000000004",
    "3.14159265358979323846",
    "0.000001",
    "1e-7",
    "-0.0000001234",
    "1.2345678901234567e-300",
    "5e-324",
    "1e-400",
  ];

  it("is JSON.stringify(Number(text)) of every stored value, tiny, huge and negative", async () => {
    const buyer = await createTenant();
    const [receipt] = await insertReceipts([receiptRow(buyer.wineryId, 1)]);
    const db = testDb();
    await db.execute(sql`insert into receipt_lines (receipt_id, line_number, line_type,
        net_total_cents, quantity, unit_price_cents, vat_amount_cents)
      select ${receipt?.id}::uuid, 1 + n::int, 'SALE', 0, q::numeric, 0, 0
      from jsonb_array_elements_text(${JSON.stringify(quantities)}::jsonb) with ordinality as u(q, n)`);
    const stored = await db.execute<{ text: string }>(sql`select quantity::text as text
      from receipt_lines where receipt_id = ${receipt?.id} order by line_number, id`);
    const response = await query({}, buyer.apiKey);
    expect(response.status).toBe(200);
    const text = await response.text();
    const written = [...text.matchAll(/"quantity":([^,]*),/g)].map((m) => m[1]);
    expect(written).toEqual(stored.rows.map((r) => JSON.stringify(Number(r.text))));
    expect(written.slice(1)).toContain("1e-7");
    expect(written.slice(1)).toContain("1e+21");
    expect(written.slice(1)).toContain("18275390876315350");
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
  });
});

describe("E4: tenancy", () => {
  it("answers 403 when the body names another winery", async () => {
    await expectProblem(await query({ wineryId: other.wineryId }), 403, "FORBIDDEN");
    expect((await page({ wineryId: tenant.wineryId })).totalElements).toBe(5);
  });

  it("never shows another winery's receipts", async () => {
    expect(await page({}, other.apiKey)).toMatchObject({ totalElements: 0, content: [] });
  });
});
