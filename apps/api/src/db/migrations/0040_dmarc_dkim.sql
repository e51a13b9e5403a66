-- DKIM Management (issue 37): each DKIM key Moat has seen published at one of the tenant's
-- selectors (its fingerprint, type and size), and when it was first and last seen, so the rotation
-- plan knows a key's age beyond the reports kept. One row per key; written when keys are checked.
CREATE TABLE "dmarc_dkim_keys" (
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"selector" text NOT NULL,
	"key_hash" text NOT NULL,
	"key_type" text NOT NULL,
	"bits" integer,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dmarc_dkim_keys_tenant_id_domain_selector_key_hash_pk" PRIMARY KEY("tenant_id","domain","selector","key_hash")
);
--> statement-breakpoint
ALTER TABLE "dmarc_dkim_keys" ADD CONSTRAINT "dmarc_dkim_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
