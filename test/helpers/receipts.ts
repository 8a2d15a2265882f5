import { receiptLines, receiptPayments, receipts } from "../../src/db/schema";
import { testDb } from "./db";

type ReceiptInsert = typeof receipts.$inferInsert;

/** A receipt row as E1 would issue it, with overrides; progressive numbers must be unique per winery. */
export function receiptRow(
  wineryId: string,
  progressiveNumber: number,
  overrides: Partial<ReceiptInsert> = {},
): ReceiptInsert {
  return {
    wineryId,
    progressiveNumber,
    receiptType: "ORDER",
    fiscalOperation: "RECEIPT",
    status: "CREATED",
    authorityCommunicationState: "TODO",
    saleDocumentState: "NONE",
    refDate: new Date("2026-03-10T10:00:00Z"),
    totalCents: 1000,
    totalNoVatCents: 820,
    vatAmountCents: 180,
    ...overrides,
  };
}

/** Inserts receipts (each with one line and one payment); returns them in the order given. */
export async function insertReceipts(rows: ReceiptInsert[]) {
  const db = testDb();
  const stored = await db.insert(receipts).values(rows).returning();
  await db.insert(receiptLines).values(
    stored.map((r) => ({
      receiptId: r.id,
      lineNumber: 1,
      lineType: "SALE",
      description: `line of ${r.progressiveNumber}`,
      netTotalCents: r.totalNoVatCents,
      quantity: 1,
      unitPriceCents: r.totalCents,
      vatAmountCents: r.vatAmountCents,
      vatPercent: 22,
    })),
  );
  await db.insert(receiptPayments).values(
    stored.map((r) => ({
      receiptId: r.id,
      currency: "EUR",
      grossTotalCents: r.totalCents,
      paymentNumber: 1,
      status: "PAID",
    })),
  );
  return stored;
}
