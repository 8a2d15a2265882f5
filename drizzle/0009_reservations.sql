CREATE TABLE "reservation_contacts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reservation_contacts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"winery_id" uuid NOT NULL,
	"reservation_id" uuid NOT NULL,
	"contact_id" bigint NOT NULL,
	"contact_type" text NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "reservation_contacts_type" CHECK ("reservation_contacts"."contact_type" in ('MASTER', 'SECONDARY'))
);
--> statement-breakpoint
CREATE TABLE "reservation_payments" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reservation_payments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"winery_id" uuid NOT NULL,
	"reservation_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"in_house" boolean NOT NULL,
	"amount_cents" bigint NOT NULL,
	"refunded_cents" bigint DEFAULT 0 NOT NULL,
	"captured_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reservation_payments_refund_bounds" CHECK ("reservation_payments"."refunded_cents" >= 0 and "reservation_payments"."refunded_cents" <= "reservation_payments"."amount_cents")
);
--> statement-breakpoint
CREATE TABLE "reservation_price_items" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reservation_price_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"winery_id" uuid NOT NULL,
	"reservation_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"position" integer,
	"item_id" bigint,
	"experience_id" uuid,
	"price_cents" bigint,
	"price_currency" text,
	"quantity" integer,
	"title_translations" jsonb,
	"islabel1" boolean,
	"sort_order" integer NOT NULL,
	"item_created_at" timestamp(3),
	"item_updated_at" timestamp(3),
	CONSTRAINT "reservation_price_items_kind" CHECK ("reservation_price_items"."kind" in ('EXTRA', 'LABEL'))
);
--> statement-breakpoint
CREATE TABLE "reservation_refunds" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reservation_refunds_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"winery_id" uuid NOT NULL,
	"reservation_id" uuid NOT NULL,
	"payment_id" bigint NOT NULL,
	"amount_cents" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reservation_refunds_positive" CHECK ("reservation_refunds"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE TABLE "reservations" (
	"id" uuid NOT NULL,
	"winery_id" uuid NOT NULL,
	"experience_id" uuid NOT NULL,
	"slot_id" uuid,
	"date" date NOT NULL,
	"time" time(0) NOT NULL,
	"state" text,
	"gift_id" uuid,
	"guest_count01" integer,
	"guest_count_total" integer,
	"discount_total_cents" bigint,
	"due_total_cents" bigint,
	"gross_total_cents" bigint,
	"net_total_cents" bigint,
	"manual_discount_total_cents" bigint,
	"paid_total_cents" bigint,
	"paid" boolean,
	"language_iso" text,
	"message" text,
	"origin" text,
	"payment_currency" text,
	"additional_question_answers" jsonb,
	"experience_title_translations" jsonb,
	"optional_data" jsonb,
	"other_data" jsonb,
	"created_at" timestamp(3) DEFAULT (now() at time zone 'utc') NOT NULL,
	"updated_at" timestamp(3) DEFAULT (now() at time zone 'utc') NOT NULL,
	CONSTRAINT "reservations_winery_id_id_pk" PRIMARY KEY("winery_id","id"),
	CONSTRAINT "reservations_guests_non_negative" CHECK (coalesce("reservations"."guest_count_total", 0) >= 0 and coalesce("reservations"."guest_count01", 0) >= 0)
);
--> statement-breakpoint
ALTER TABLE "reservation_contacts" ADD CONSTRAINT "reservation_contacts_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservation_contacts" ADD CONSTRAINT "reservation_contacts_reservation_fk" FOREIGN KEY ("winery_id","reservation_id") REFERENCES "public"."reservations"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservation_payments" ADD CONSTRAINT "reservation_payments_reservation_fk" FOREIGN KEY ("winery_id","reservation_id") REFERENCES "public"."reservations"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservation_price_items" ADD CONSTRAINT "reservation_price_items_reservation_fk" FOREIGN KEY ("winery_id","reservation_id") REFERENCES "public"."reservations"("winery_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservation_refunds" ADD CONSTRAINT "reservation_refunds_payment_id_reservation_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."reservation_payments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_winery_id_wineries_id_fk" FOREIGN KEY ("winery_id") REFERENCES "public"."wineries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_slot_id_slots_id_fk" FOREIGN KEY ("slot_id") REFERENCES "public"."slots"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_experience_fk" FOREIGN KEY ("winery_id","experience_id") REFERENCES "public"."experiences"("winery_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reservation_contacts_reservation_idx" ON "reservation_contacts" USING btree ("winery_id","reservation_id");--> statement-breakpoint
CREATE INDEX "reservation_contacts_contact_idx" ON "reservation_contacts" USING btree ("winery_id","contact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "reservation_payments_in_house_key" ON "reservation_payments" USING btree ("winery_id","reservation_id") WHERE "reservation_payments"."in_house";--> statement-breakpoint
CREATE INDEX "reservation_price_items_reservation_idx" ON "reservation_price_items" USING btree ("winery_id","reservation_id");--> statement-breakpoint
CREATE INDEX "reservation_refunds_reservation_idx" ON "reservation_refunds" USING btree ("winery_id","reservation_id");--> statement-breakpoint
CREATE INDEX "reservations_winery_date_time_idx" ON "reservations" USING btree ("winery_id","date","time","id");--> statement-breakpoint
CREATE INDEX "reservations_slot_idx" ON "reservations" USING btree ("slot_id");