ALTER TABLE "sales_channels" DROP CONSTRAINT "sales_channels_apiChannelKey_unique";--> statement-breakpoint
DROP INDEX "sales_channels_winery_id_index";--> statement-breakpoint
CREATE INDEX "contacts_winery_id_idx" ON "contacts" USING btree ("winery_id","id");--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "response_status";--> statement-breakpoint
ALTER TABLE "sales_channels" ADD CONSTRAINT "sales_channels_winery_api_channel_key" UNIQUE("winery_id","api_channel_key");