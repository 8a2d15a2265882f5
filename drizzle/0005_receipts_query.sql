DROP INDEX "receipts_winery_created_at_idx";--> statement-breakpoint
CREATE INDEX "receipts_winery_ref_date_idx" ON "receipts" USING btree ("winery_id","ref_date","id");--> statement-breakpoint
CREATE INDEX "receipts_winery_total_cents_idx" ON "receipts" USING btree ("winery_id","total_cents","id");--> statement-breakpoint
CREATE INDEX "receipts_winery_channel_created_at_idx" ON "receipts" USING btree ("winery_id","winery_channel_id","created_at","id");--> statement-breakpoint
CREATE INDEX "receipts_winery_created_at_idx" ON "receipts" USING btree ("winery_id","created_at","id");