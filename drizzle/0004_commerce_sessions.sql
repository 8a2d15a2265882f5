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
ALTER TABLE "commerce_session_items" ADD CONSTRAINT "commerce_session_items_session_fk" FOREIGN KEY ("winery_id","session_id") REFERENCES "public"."commerce_sessions"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commerce_sessions" ADD CONSTRAINT "commerce_sessions_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;