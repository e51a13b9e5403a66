-- Smart Banners and Settings → User Interaction (issue 33): the banner each verdict gets and which
-- senders get none, how recipients of held mail are told and who decides their requests, what the
-- report buttons do. One jsonb value each on the tenant (read through its cached, announced row);
-- values missing from it are their defaults. The Policy screen's one banner text becomes the text
-- of each verdict's banner.
ALTER TABLE "tenants" ADD COLUMN "banner_settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "quarantine_settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "report_settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
UPDATE "tenants" SET "banner_settings" = jsonb_build_object('verdicts', jsonb_build_object(
  'phishing', jsonb_build_object('text', "banner_text"),
  'spam', jsonb_build_object('text', "banner_text"),
  'suspicious', jsonb_build_object('text', "banner_text")))
WHERE "banner_text" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" DROP COLUMN "banner_text";--> statement-breakpoint
-- The Add-ons Store: a tenant's requests to the provider for an add-on this edition does not ship.
CREATE TABLE "add_on_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"add_on" text NOT NULL,
	"user_id" uuid,
	"email" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "add_on_requests_add_on_check" CHECK ("add_on_requests"."add_on" in ('dmarc', 'iraas', 'sspm', 'archiving', 'phishing_training'))
);
--> statement-breakpoint
ALTER TABLE "add_on_requests" ADD CONSTRAINT "add_on_requests_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "add_on_requests" ADD CONSTRAINT "add_on_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "add_on_requests_tenant_idx" ON "add_on_requests" USING btree ("tenant_id","add_on","created_at");
