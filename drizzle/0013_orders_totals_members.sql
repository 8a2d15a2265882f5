-- Every order's totals carry the seven members of the interface's Totals, null where the order did
-- not give one, as E1 and E19 now write them (storedTotals, src/services/orders/order-record.ts).
-- E1 stored the members sent and E19's WooCommerce mapping five of them, so answers showed
-- whichever members an import happened to send. Answers give the column as stored (one statement,
-- no per-row work on reads), so the rows written before take the same shape here: the members
-- stored keep their values, the missing ones are added as null, and an order without totals keeps
-- null. updated_at stays: the order did not change, and an E2 lock taken on it still holds.
UPDATE "orders"
SET "totals" = '{"discountCents": null, "discounts": null, "extraMetadata": null, "shipmentCents": null, "subtotalCents": null, "taxCents": null, "totalCents": null}'::jsonb || "totals"
WHERE jsonb_typeof("totals") = 'object'
  AND NOT "totals" ?& ARRAY['discountCents', 'discounts', 'extraMetadata', 'shipmentCents', 'subtotalCents', 'taxCents', 'totalCents'];
