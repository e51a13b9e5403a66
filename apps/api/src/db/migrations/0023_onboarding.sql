-- Onboarding (issue 12): a tenant is onboarded once its first admin finished the wizard; a tenant
-- may name its own next hop (its mail server), which Moat delivers its mail to.
ALTER TABLE "tenants" ADD COLUMN "onboarded_at" timestamp with time zone;--> statement-breakpoint
UPDATE "tenants" SET "onboarded_at" = now();--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "next_hop_url" text;
