ALTER TABLE "orders" ADD COLUMN "buyer_email_key" text GENERATED ALWAYS AS (lower(trim("orders"."buyer_email"))) STORED;--> statement-breakpoint
CREATE INDEX "orders_winery_buyer_email_key_idx" ON "orders" USING btree ("winery_id","buyer_email_key");--> statement-breakpoint
ALTER TABLE "contacts" DROP COLUMN "value_cents";