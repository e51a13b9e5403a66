-- DKIM signing (issue 38): Moat's own keys per tenant domain, the private key sealed with the
-- server key (purpose dkim-signing). `active` keys sign (one per algorithm and domain), a
-- `pending` key is a rotation's next key (published, not yet signing), a `retired` one signed
-- before the rotation and stays published for mail in flight. Signing is on per domain.
CREATE TABLE "dkim_signing_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"selector" text NOT NULL,
	"algorithm" text NOT NULL,
	"bits" integer NOT NULL,
	"private_key" text NOT NULL,
	"public_key" text NOT NULL,
	"state" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	"retired_at" timestamp with time zone,
	CONSTRAINT "dkim_signing_keys_algorithm_check" CHECK ("algorithm" in ('rsa-sha256', 'ed25519-sha256')),
	CONSTRAINT "dkim_signing_keys_state_check" CHECK ("state" in ('pending', 'active', 'retired'))
);
--> statement-breakpoint
ALTER TABLE "dkim_signing_keys" ADD CONSTRAINT "dkim_signing_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "dkim_signing_keys" ADD CONSTRAINT "dkim_signing_keys_domain_tenant_domains_domain_fk" FOREIGN KEY ("domain") REFERENCES "public"."tenant_domains"("domain") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "dkim_signing_keys_domain_selector_idx" ON "dkim_signing_keys" USING btree ("domain","selector");
--> statement-breakpoint
CREATE UNIQUE INDEX "dkim_signing_keys_one_active_idx" ON "dkim_signing_keys" USING btree ("domain","algorithm") WHERE "state" = 'active';
--> statement-breakpoint
CREATE UNIQUE INDEX "dkim_signing_keys_one_pending_idx" ON "dkim_signing_keys" USING btree ("domain","algorithm") WHERE "state" = 'pending';
--> statement-breakpoint
ALTER TABLE "tenant_domains" ADD COLUMN "dkim_signing" boolean DEFAULT false NOT NULL;
