-- Outbound (issue 38). DKIM signing: Moat's own keys per tenant domain, the private key sealed with the
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
--> statement-breakpoint
-- Outbound submission (issue 38): the credentials a tenant's mail server (or a client) uses for
-- SMTP AUTH on SUBMISSION_PORT. The password is shown once and stored as an argon2id hash.
CREATE TABLE "smtp_credentials" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"label" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "smtp_credentials" ADD CONSTRAINT "smtp_credentials_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "smtp_credentials_username_idx" ON "smtp_credentials" USING btree ("username");
--> statement-breakpoint
CREATE INDEX "smtp_credentials_tenant_idx" ON "smtp_credentials" USING btree ("tenant_id");
