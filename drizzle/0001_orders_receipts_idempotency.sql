CREATE TABLE "idempotency_keys" (
	"winery_id" uuid NOT NULL,
	"route" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_scope" UNIQUE("winery_id","route","key")
);
--> statement-breakpoint
CREATE TABLE "order_items" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "order_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"order_id" bigint NOT NULL,
	"winery_id" uuid NOT NULL,
	"line_index" integer NOT NULL,
	"amount_cents" bigint,
	"amount_discount_cents" bigint,
	"attributes_snapshot" jsonb,
	"commercial_discounts" jsonb,
	"discounts" jsonb,
	"external_id" text,
	"extra_metadata" jsonb,
	"name" text,
	"pricing_breakdown" jsonb,
	"quantity" bigint,
	"sku" text,
	"type" text,
	"unit_price_cents" integer,
	"vat_percentage" integer
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "orders_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"uuid" uuid DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"channel_id" uuid,
	"plugin_tag" text,
	"external_id" text NOT NULL,
	"source_external_id" text,
	"source_external_type" text,
	"address" text,
	"address_name" text,
	"city" text,
	"country_iso" text,
	"province" text,
	"region" text,
	"zipcode" text,
	"amount_cents" bigint NOT NULL,
	"amount_discount_cents" bigint,
	"amount_excise_duty_cents" integer,
	"amount_vat_cents" integer,
	"amount_shipment_cents" bigint,
	"amount_vat_percentage" double precision,
	"buyer_email" text,
	"buyer_firstname" text,
	"buyer_lastname" text,
	"buyer_phone" text,
	"order_date" date NOT NULL,
	"extra_metadata" jsonb,
	"user_metadata" jsonb,
	"marketing_manual" boolean,
	"notes" text,
	"payment_method" text,
	"schema_version" text,
	"status" text,
	"quantity" bigint,
	"source_synced_at" timestamp (3) with time zone,
	"totals" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "orders_channel_external_id" UNIQUE("winery_id","channel_id","external_id"),
	CONSTRAINT "orders_plugin_external_id" UNIQUE("winery_id","plugin_tag","external_id")
);
--> statement-breakpoint
CREATE TABLE "receipt_lines" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"receipt_id" uuid NOT NULL,
	"additional_text" text,
	"description" text,
	"discount_amount_cents" bigint DEFAULT 0 NOT NULL,
	"discount_percent" integer,
	"entity_id" text,
	"entity_type" text,
	"fiscal_nature_id" uuid,
	"inline_discount_amount_cents" bigint,
	"inline_discount_name" text,
	"line_number" integer NOT NULL,
	"line_type" text NOT NULL,
	"net_total_cents" bigint NOT NULL,
	"quantity" numeric NOT NULL,
	"sale_row_id" bigint,
	"storno_receipt_id" uuid,
	"unit" text,
	"unit_price_cents" bigint NOT NULL,
	"vat_amount_cents" bigint NOT NULL,
	"vat_percent" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "receipt_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"receipt_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"external_id" text,
	"gross_total_cents" bigint NOT NULL,
	"method" text,
	"payment_id" uuid,
	"payment_number" integer NOT NULL,
	"provider" text,
	"status" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "receipts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"order_id" bigint,
	"external_entity_id" uuid,
	"integration_id" uuid,
	"point_of_sale_suite_id" uuid,
	"referenced_receipt_id" uuid,
	"winery_channel_id" uuid,
	"terminal_id" text,
	"terminal_name" text,
	"customer_name" text,
	"ade_document_number" text,
	"authority_communication_state" text NOT NULL,
	"cancellation_reason" text,
	"external_receipt_id" text,
	"extra_data" text,
	"fiscal_operation" text NOT NULL,
	"internal_document_number" text,
	"pdf_link" text,
	"public_link" text,
	"qr_code_data" text,
	"receipt_data" text,
	"receipt_type" text NOT NULL,
	"referenced_internal_document_number" text,
	"sale_document_state" text NOT NULL,
	"status" text NOT NULL,
	"ref_date" timestamp (3) with time zone NOT NULL,
	"discount_total_cents" bigint DEFAULT 0 NOT NULL,
	"total_cents" bigint NOT NULL,
	"total_no_vat_cents" bigint NOT NULL,
	"vat_amount_cents" bigint NOT NULL,
	"progressive_number" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "receipts_winery_progressive_number" UNIQUE("winery_id","progressive_number")
);
--> statement-breakpoint
CREATE TABLE "winery_counters" (
	"winery_id" uuid NOT NULL,
	"name" text NOT NULL,
	"value" bigint NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "winery_counters_winery_id_name_pk" PRIMARY KEY("winery_id","name")
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_items" ADD CONSTRAINT "order_items_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_items" ADD CONSTRAINT "order_items_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_channel_id_sales_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."sales_channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receipt_lines" ADD CONSTRAINT "receipt_lines_receipt_id_receipts_id_fk" FOREIGN KEY ("receipt_id") REFERENCES "public"."receipts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receipt_payments" ADD CONSTRAINT "receipt_payments_receipt_id_receipts_id_fk" FOREIGN KEY ("receipt_id") REFERENCES "public"."receipts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receipts" ADD CONSTRAINT "receipts_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receipts" ADD CONSTRAINT "receipts_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "winery_counters" ADD CONSTRAINT "winery_counters_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "order_items_order_id_index" ON "order_items" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "orders_winery_date_idx" ON "orders" USING btree ("winery_id","order_date","id");--> statement-breakpoint
CREATE INDEX "receipt_lines_receipt_id_index" ON "receipt_lines" USING btree ("receipt_id");--> statement-breakpoint
CREATE INDEX "receipt_payments_receipt_id_index" ON "receipt_payments" USING btree ("receipt_id");--> statement-breakpoint
CREATE INDEX "receipts_winery_created_at_idx" ON "receipts" USING btree ("winery_id","created_at");--> statement-breakpoint
CREATE INDEX "receipts_order_idx" ON "receipts" USING btree ("order_id");