import type { Receipt } from "../../schemas/receipts";

/**
 * A receipt as Postgres' `to_json` renders it: snake_case keys, timestamps as text with an offset,
 * int8 and numeric as JSON numbers (every amount is within the safe-integer range by construction).
 */
type Json = Record<string, unknown>;

const iso = (value: unknown) => new Date(value as string).toISOString();
const str = (value: unknown) => (value ?? null) as string | null;
const num = (value: unknown) => (value ?? null) as number | null;

function toLine(l: Json): Receipt["receiptLines"][number] {
  return {
    additionalText: str(l.additional_text),
    createdAt: iso(l.created_at),
    description: str(l.description),
    discountAmountCents: l.discount_amount_cents as number,
    discountPercent: num(l.discount_percent),
    entityId: str(l.entity_id),
    entityType: str(l.entity_type),
    fiscalNatureId: str(l.fiscal_nature_id),
    id: l.id as string,
    inlineDiscountAmountCents: num(l.inline_discount_amount_cents),
    inlineDiscountName: str(l.inline_discount_name),
    lineNumber: l.line_number as number,
    lineType: l.line_type as string,
    netTotalCents: l.net_total_cents as number,
    quantity: Number(l.quantity),
    receiptId: l.receipt_id as string,
    saleRowId: num(l.sale_row_id),
    stornoReceiptId: str(l.storno_receipt_id),
    unit: str(l.unit),
    unitPriceCents: l.unit_price_cents as number,
    updatedAt: iso(l.updated_at),
    vatAmountCents: l.vat_amount_cents as number,
    vatPercent: num(l.vat_percent),
  };
}

function toPayment(p: Json): Receipt["receiptPayments"][number] {
  return {
    createdAt: iso(p.created_at),
    currency: p.currency as string,
    externalId: str(p.external_id),
    grossTotalCents: p.gross_total_cents as number,
    id: p.id as string,
    method: str(p.method),
    paymentId: str(p.payment_id),
    paymentNumber: p.payment_number as number,
    provider: str(p.provider),
    receiptId: p.receipt_id as string,
    status: p.status as string,
    updatedAt: iso(p.updated_at),
  };
}

/** One element of the page: `{ r, lines, payments }` as the page statement aggregates it. */
export function toReceipt(doc: { r: Json; lines: Json[]; payments: Json[] }): Receipt {
  const r = doc.r;
  return {
    id: r.id as string,
    externalEntityId: str(r.external_entity_id),
    integrationId: str(r.integration_id),
    pointOfSaleSuiteId: str(r.point_of_sale_suite_id),
    referencedReceiptId: str(r.referenced_receipt_id),
    wineryId: r.winery_id as string,
    adeDocumentNumber: str(r.ade_document_number),
    authorityCommunicationState: r.authority_communication_state as string,
    cancellationReason: str(r.cancellation_reason),
    externalReceiptId: str(r.external_receipt_id),
    extraData: str(r.extra_data),
    fiscalOperation: r.fiscal_operation as string,
    internalDocumentNumber: str(r.internal_document_number),
    pdfLink: str(r.pdf_link),
    publicLink: str(r.public_link),
    qrCodeData: str(r.qr_code_data),
    receiptData: str(r.receipt_data),
    receiptType: r.receipt_type as string,
    referencedInternalDocumentNumber: str(r.referenced_internal_document_number),
    saleDocumentState: r.sale_document_state as string,
    status: r.status as string,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    refDate: iso(r.ref_date),
    discountTotalCents: r.discount_total_cents as number,
    totalCents: r.total_cents as number,
    totalNoVatCents: r.total_no_vat_cents as number,
    vatAmountCents: r.vat_amount_cents as number,
    progressiveNumber: r.progressive_number as number,
    receiptLines: doc.lines.map(toLine),
    receiptPayments: doc.payments.map(toPayment),
  };
}
