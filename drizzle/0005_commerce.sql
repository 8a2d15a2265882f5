CREATE TABLE "commerce_session_items" (
	"winery_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"position" integer NOT NULL,
	"attributes" jsonb,
	"booking_comp_id" text,
	"component" text,
	"editable" boolean,
	"experience_id" uuid,
	"item_type" text,
	"line_index" integer,
	"locked" boolean,
	"name" text,
	"product_id" text,
	"qty" integer,
	"reservation_id" uuid,
	"unit_price_cents" bigint,
	"vat_percent" integer,
	CONSTRAINT "commerce_session_items_winery_id_session_id_id_pk" PRIMARY KEY("winery_id","session_id","id")
);
--> statement-breakpoint
CREATE TABLE "commerce_sessions" (
	"winery_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"cart_mode" text,
	"channel" text,
	"custom_name" text,
	"status" text,
	"contacts" jsonb,
	"discounts" jsonb,
	"metadata" jsonb,
	"guests" integer,
	"point_of_sale_id" uuid,
	"room_id" uuid,
	"table_id" uuid,
	"source_experience_id" uuid,
	"source_reservation_id" uuid,
	"version" integer DEFAULT 1 NOT NULL,
	"write_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "commerce_sessions_winery_id_id_pk" PRIMARY KEY("winery_id","id")
);
--> statement-breakpoint
CREATE TABLE "coupon_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"coupon_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"entity_type" text,
	"entity_id" text,
	"rules" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "coupon_uses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"coupon_id" uuid NOT NULL,
	"email" text,
	"email_key" text GENERATED ALWAYS AS (lower(trim("coupon_uses"."email"))) STORED,
	"order_id" bigint,
	"purchase_id" text,
	"used_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "coupons" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"code" text NOT NULL,
	"code_key" text GENERATED ALWAYS AS (lower(trim("coupons"."code"))) STORED NOT NULL,
	"active" boolean NOT NULL,
	"type" text,
	"discount_type" text NOT NULL,
	"discount_percent" integer,
	"discount_cents" bigint,
	"start_at" timestamp (3) with time zone,
	"end_at" timestamp (3) with time zone,
	"minimum_order_cents" bigint,
	"use_max" integer,
	"use_max_by_email" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "coupons_winery_code_key" UNIQUE("winery_id","code_key"),
	CONSTRAINT "coupons_discount" CHECK (("coupons"."discount_type" = 'percent' and "coupons"."discount_percent" between 0 and 100)
        or ("coupons"."discount_type" = 'fixed' and "coupons"."discount_cents" >= 0))
);
--> statement-breakpoint
DROP INDEX "receipts_winery_created_at_idx";--> statement-breakpoint
ALTER TABLE "commerce_session_items" ADD CONSTRAINT "commerce_session_items_session_fk" FOREIGN KEY ("winery_id","session_id") REFERENCES "public"."commerce_sessions"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commerce_sessions" ADD CONSTRAINT "commerce_sessions_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupon_rules" ADD CONSTRAINT "coupon_rules_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupon_rules" ADD CONSTRAINT "coupon_rules_coupon_id_coupons_id_fk" FOREIGN KEY ("coupon_id") REFERENCES "public"."coupons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupon_uses" ADD CONSTRAINT "coupon_uses_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupon_uses" ADD CONSTRAINT "coupon_uses_coupon_id_coupons_id_fk" FOREIGN KEY ("coupon_id") REFERENCES "public"."coupons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupon_uses" ADD CONSTRAINT "coupon_uses_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupons" ADD CONSTRAINT "coupons_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "coupon_rules_coupon_idx" ON "coupon_rules" USING btree ("coupon_id","position");--> statement-breakpoint
CREATE INDEX "coupon_uses_coupon_email_idx" ON "coupon_uses" USING btree ("coupon_id","email_key");--> statement-breakpoint
CREATE INDEX "receipts_winery_ref_date_idx" ON "receipts" USING btree ("winery_id","ref_date","id");--> statement-breakpoint
CREATE INDEX "receipts_winery_total_cents_idx" ON "receipts" USING btree ("winery_id","total_cents","id");--> statement-breakpoint
CREATE INDEX "receipts_winery_channel_created_at_idx" ON "receipts" USING btree ("winery_id","winery_channel_id","created_at","id");--> statement-breakpoint
CREATE INDEX "receipts_winery_created_at_idx" ON "receipts" USING btree ("winery_id","created_at","id");