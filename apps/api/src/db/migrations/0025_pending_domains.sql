-- Onboarding (issue 12): a domain an admin adds from the console waits here until its owner
-- proves control of it (a TXT record with the token); only then does the gateway take its mail.
CREATE TABLE "pending_domains" (
	"tenant_id" uuid NOT NULL REFERENCES "tenants"("id") ON DELETE CASCADE,
	"domain" text NOT NULL,
	"token" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pending_domains_pkey" PRIMARY KEY ("tenant_id", "domain")
);
