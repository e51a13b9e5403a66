-- Protected people (VIPs, issue 35): the names an attacker would pose as, per tenant, with the
-- addresses they really write from. One name once per tenant, whatever its case.
CREATE TABLE "vips" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"emails" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "vips" ADD CONSTRAINT "vips_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "vips_tenant_name_idx" ON "vips" USING btree ("tenant_id",lower("name"));--> statement-breakpoint
-- The gateway caches each tenant's VIPs per node: writes are announced (0011) and forgotten.
CREATE TRIGGER vips_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON vips FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();--> statement-breakpoint
-- What the tenant's mail flow knows of a sender (the anti-phishing engine's "first-time sender"):
-- earlier rows of this From domain, and of this From address, counted per message up to a cap.
-- The domain is what follows the address's last '@', lower-case (the repository's expression).
CREATE INDEX "mail_log_tenant_sender_idx" ON "mail_log" USING btree ("tenant_id",lower(regexp_replace("sender", '^.*@', '')),"sender");
