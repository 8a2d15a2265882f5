CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "api_keys_prefix_unique" UNIQUE("prefix")
);
--> statement-breakpoint
CREATE TABLE "contact_addresses" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "contact_addresses_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"contact_id" bigint NOT NULL,
	"address" text,
	"city" text,
	"country_iso" text,
	"province" text,
	"zipcode" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contact_emails" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "contact_emails_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"contact_id" bigint NOT NULL,
	"email" text NOT NULL,
	"type" text DEFAULT 'OTHER' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contact_phones" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "contact_phones_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"contact_id" bigint NOT NULL,
	"phone" text NOT NULL,
	"type" text DEFAULT 'OTHER' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "contacts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"winery_id" uuid NOT NULL,
	"email" text NOT NULL,
	"email_key" text GENERATED ALWAYS AS (lower(trim("contacts"."email"))) STORED NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text NOT NULL,
	"phone_number" text,
	"country_iso" text,
	"language_iso" text,
	"date_of_birth" date,
	"city" text,
	"province" text,
	"zipcode" text,
	"country" text,
	"accepted_marketing" boolean DEFAULT false NOT NULL,
	"accepted_privacy_terms" boolean DEFAULT false NOT NULL,
	"accepted_profiling" boolean DEFAULT false NOT NULL,
	"manual_marketing" boolean DEFAULT false NOT NULL,
	"unsubscribed" boolean DEFAULT false NOT NULL,
	"other_data" jsonb,
	"value_cents" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sales_channels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"channel_id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "sales_channels_channel_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"api_channel_key" text NOT NULL,
	"ecommerce_url" text,
	"data" jsonb,
	"point_of_sale_suite_id" uuid,
	"deleted_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sales_channels_apiChannelKey_unique" UNIQUE("api_channel_key")
);
--> statement-breakpoint
CREATE TABLE "wine_regions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"region_id" uuid
);
--> statement-breakpoint
CREATE TABLE "wineries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"business_name" text,
	"description" text,
	"cf" text,
	"pi" text,
	"sdi" text,
	"phone" text,
	"company_email" text,
	"notification_email" text,
	"notification_emails" text[] DEFAULT '{}' NOT NULL,
	"nearby_cities" text,
	"opening_hours" text,
	"street" text,
	"city" text,
	"province" text,
	"region" text,
	"state" text,
	"zipcode" text,
	"lat" double precision,
	"lng" double precision,
	"wine_region_id" uuid,
	"accept_provider_a_payments" boolean DEFAULT false NOT NULL,
	"accept_provider_b_payments" boolean DEFAULT false NOT NULL,
	"accept_provider_c_payments" boolean DEFAULT false NOT NULL,
	"accept_pay_at_winery_payments" boolean DEFAULT false NOT NULL,
	"active_billing_details" boolean DEFAULT false NOT NULL,
	"pro_enabled" boolean DEFAULT false NOT NULL,
	"show_website" boolean DEFAULT true NOT NULL,
	"show_widget" boolean DEFAULT true NOT NULL,
	"show_widget_filter" boolean DEFAULT false NOT NULL,
	"description_translations" jsonb,
	"meta_description_translations" jsonb,
	"meta_title_translations" jsonb,
	"opening_hours_translations" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "winery_closing_periods" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"first" date NOT NULL,
	"last" date NOT NULL
);
--> statement-breakpoint
CREATE TABLE "winery_files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"title" text,
	"type_file" text,
	"content_data" jsonb
);
--> statement-breakpoint
CREATE TABLE "winery_parameters" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"parameter_key" text NOT NULL,
	"parameter_value" text,
	"deleted" boolean DEFAULT false NOT NULL,
	"creation_date" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"update_date" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "winery_photos" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"cover" boolean DEFAULT false NOT NULL,
	"main" boolean DEFAULT false NOT NULL,
	"image_data" jsonb,
	"image_type" text,
	"public_id" text,
	"title" text
);
--> statement-breakpoint
CREATE TABLE "winery_services" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"winery_id" uuid NOT NULL,
	"name" text NOT NULL,
	"name_translations" jsonb,
	"tag_type_translations" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_addresses" ADD CONSTRAINT "contact_addresses_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_emails" ADD CONSTRAINT "contact_emails_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_phones" ADD CONSTRAINT "contact_phones_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales_channels" ADD CONSTRAINT "sales_channels_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wineries" ADD CONSTRAINT "wineries_wine_region_id_wine_regions_id_fk" FOREIGN KEY ("wine_region_id") REFERENCES "public"."wine_regions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "winery_closing_periods" ADD CONSTRAINT "winery_closing_periods_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "winery_files" ADD CONSTRAINT "winery_files_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "winery_parameters" ADD CONSTRAINT "winery_parameters_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "winery_photos" ADD CONSTRAINT "winery_photos_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "winery_services" ADD CONSTRAINT "winery_services_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_winery_id_index" ON "api_keys" USING btree ("winery_id");--> statement-breakpoint
CREATE INDEX "contact_addresses_contact_id_index" ON "contact_addresses" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "contact_emails_contact_id_index" ON "contact_emails" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "contact_phones_contact_id_index" ON "contact_phones" USING btree ("contact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_winery_email_key" ON "contacts" USING btree ("winery_id","email_key");--> statement-breakpoint
CREATE INDEX "contacts_winery_updated_at_idx" ON "contacts" USING btree ("winery_id","updated_at");--> statement-breakpoint
CREATE INDEX "contacts_winery_created_at_idx" ON "contacts" USING btree ("winery_id","created_at");--> statement-breakpoint
CREATE INDEX "sales_channels_winery_id_index" ON "sales_channels" USING btree ("winery_id");--> statement-breakpoint
CREATE INDEX "winery_closing_periods_winery_id_index" ON "winery_closing_periods" USING btree ("winery_id");--> statement-breakpoint
CREATE INDEX "winery_files_winery_id_index" ON "winery_files" USING btree ("winery_id");--> statement-breakpoint
CREATE INDEX "winery_parameters_winery_id_index" ON "winery_parameters" USING btree ("winery_id");--> statement-breakpoint
CREATE INDEX "winery_photos_winery_id_index" ON "winery_photos" USING btree ("winery_id");--> statement-breakpoint
CREATE INDEX "winery_services_winery_id_index" ON "winery_services" USING btree ("winery_id");