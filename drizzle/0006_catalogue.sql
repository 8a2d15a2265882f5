CREATE TABLE "attribute_values" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "attribute_values_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"winery_id" uuid NOT NULL,
	"attribute_id" bigint NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attribute_values_attribute_value" UNIQUE("attribute_id","value"),
	CONSTRAINT "attribute_values_attribute_id" UNIQUE("attribute_id","id")
);
--> statement-breakpoint
CREATE TABLE "attributes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "attributes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"winery_id" uuid NOT NULL,
	"code" text NOT NULL,
	"names" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"applicable_to_types" text[] DEFAULT '{}' NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL,
	"is_visible" boolean DEFAULT true NOT NULL,
	"value_type" text DEFAULT 'TEXT' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attributes_winery_code" UNIQUE("winery_id","code"),
	CONSTRAINT "attributes_winery_id" UNIQUE("winery_id","id")
);
--> statement-breakpoint
CREATE TABLE "product_attribute_assignments" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "product_attribute_assignments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"winery_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"attribute_id" bigint NOT NULL,
	"attribute_value_id" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "customer_classes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"class_id" integer NOT NULL,
	"class_name" text NOT NULL,
	"class_type" text NOT NULL,
	"case_discount_rate" double precision DEFAULT 0 NOT NULL,
	"discount_rate" double precision DEFAULT 0 NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"is_paid" boolean DEFAULT false NOT NULL,
	"price" double precision DEFAULT 0 NOT NULL,
	"price_type" text NOT NULL,
	"validity_date" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "customer_classes_winery_class_id" UNIQUE("winery_id","class_id"),
	CONSTRAINT "customer_classes_rates" CHECK ("customer_classes"."discount_rate" between 0 and 100 and "customer_classes"."case_discount_rate" between 0 and 100),
	CONSTRAINT "customer_classes_price_type" CHECK ("customer_classes"."price_type" in ('MONTHLY', 'YEARLY', 'UNA_TANTUM'))
);
--> statement-breakpoint
CREATE TABLE "categories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"parent_category_id" uuid,
	"name_en" text,
	"name_it" text,
	"name_translation_id" text,
	"name_translations" jsonb,
	"description_translation_id" text,
	"description_translations" jsonb,
	"priority" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "categories_winery_id" UNIQUE("winery_id","id")
);
--> statement-breakpoint
CREATE TABLE "product_categories" (
	"winery_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"category_id" uuid NOT NULL,
	CONSTRAINT "product_categories_product_id_category_id_pk" PRIMARY KEY("product_id","category_id")
);
--> statement-breakpoint
CREATE TABLE "product_channels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"winery_channel_id" uuid NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"max_units_per_order" integer,
	"price_cents" bigint NOT NULL,
	CONSTRAINT "product_channels_product_channel" UNIQUE("product_id","winery_channel_id")
);
--> statement-breakpoint
CREATE TABLE "product_files" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "product_files_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"winery_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL,
	"flags" text,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_metadata" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "product_metadata_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"winery_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"metadata_name" text NOT NULL,
	"metadata_value" text,
	"active" boolean DEFAULT true NOT NULL,
	"validity_from" date,
	"validity_to" date,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"product_id" uuid,
	"variant_master_id" uuid,
	"fiscal_nature_id" uuid,
	"point_of_sale_suite_id" uuid,
	"active" boolean DEFAULT true NOT NULL,
	"status" text,
	"display_status" text,
	"type_id" text,
	"sku" text,
	"barcode" text,
	"name_en" text,
	"name_it" text,
	"description_en" text,
	"description_it" text,
	"name_translation_id" text,
	"description_translation_id" text,
	"short_description_translation_id" text,
	"meta_title_translation_id" text,
	"meta_description_translation_id" text,
	"pos_name_translation_id" text,
	"name_translations" jsonb,
	"description_translations" jsonb,
	"pos_name_translations" jsonb,
	"price_cents" bigint,
	"variant_min_price_cents" bigint,
	"price_currency" text,
	"default_vat_rate" double precision,
	"display_order" integer DEFAULT 0 NOT NULL,
	"inventory_quantity" integer,
	"ordering_all" integer,
	"ordering_category" integer,
	"units_per_case" integer,
	"variant_count" integer,
	"has_variants" boolean DEFAULT false NOT NULL,
	"inventory_tracking_active" boolean DEFAULT false NOT NULL,
	"is_bundle" boolean DEFAULT false NOT NULL,
	"is_gift_card" boolean DEFAULT false NOT NULL,
	"show_pos" boolean DEFAULT true NOT NULL,
	"show_website" boolean DEFAULT true NOT NULL,
	"published_at" timestamp (3) with time zone,
	"validity_from" date,
	"validity_to" date,
	"weight" double precision,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "products_winery_id" UNIQUE("winery_id","id")
);
--> statement-breakpoint
ALTER TABLE "attribute_values" ADD CONSTRAINT "attribute_values_attribute_fk" FOREIGN KEY ("winery_id","attribute_id") REFERENCES "public"."attributes"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attributes" ADD CONSTRAINT "attributes_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_attribute_assignments" ADD CONSTRAINT "product_attribute_assignments_attribute_fk" FOREIGN KEY ("winery_id","attribute_id") REFERENCES "public"."attributes"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_attribute_assignments" ADD CONSTRAINT "product_attribute_assignments_value_fk" FOREIGN KEY ("attribute_id","attribute_value_id") REFERENCES "public"."attribute_values"("attribute_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_attribute_assignments" ADD CONSTRAINT "product_attribute_assignments_product_fk" FOREIGN KEY ("winery_id","product_id") REFERENCES "public"."products"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_classes" ADD CONSTRAINT "customer_classes_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "categories" ADD CONSTRAINT "categories_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "categories" ADD CONSTRAINT "categories_parent_fk" FOREIGN KEY ("winery_id","parent_category_id") REFERENCES "public"."categories"("winery_id","id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_categories" ADD CONSTRAINT "product_categories_product_fk" FOREIGN KEY ("winery_id","product_id") REFERENCES "public"."products"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_categories" ADD CONSTRAINT "product_categories_category_fk" FOREIGN KEY ("winery_id","category_id") REFERENCES "public"."categories"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_channels" ADD CONSTRAINT "product_channels_winery_channel_id_sales_channels_id_fk" FOREIGN KEY ("winery_channel_id") REFERENCES "public"."sales_channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_channels" ADD CONSTRAINT "product_channels_product_fk" FOREIGN KEY ("winery_id","product_id") REFERENCES "public"."products"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_files" ADD CONSTRAINT "product_files_product_fk" FOREIGN KEY ("winery_id","product_id") REFERENCES "public"."products"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_metadata" ADD CONSTRAINT "product_metadata_product_fk" FOREIGN KEY ("winery_id","product_id") REFERENCES "public"."products"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "product_attribute_assignments_product_idx" ON "product_attribute_assignments" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "product_categories_category_idx" ON "product_categories" USING btree ("category_id");--> statement-breakpoint
CREATE INDEX "product_files_product_idx" ON "product_files" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "product_metadata_product_idx" ON "product_metadata" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "products_winery_display_order_idx" ON "products" USING btree ("winery_id","display_order","id");