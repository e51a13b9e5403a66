-- The Policy screen (issue 11): the tenant's own warning-banner text, and exceptions to the action
-- per verdict for a recipient, a domain or a named group of addresses. The gateway caches both per
-- node (tenants already announce their writes; policy_overrides does from here on).
ALTER TABLE "tenants" ADD COLUMN "banner_text" text;
--> statement-breakpoint
CREATE TABLE "policy_overrides" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"match" text NOT NULL,
	"value" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"verdict" text NOT NULL,
	"action" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "policy_overrides_match_check" CHECK ("policy_overrides"."match" in ('recipient', 'domain', 'group')),
	CONSTRAINT "policy_overrides_verdict_check" CHECK ("policy_overrides"."verdict" in ('phishing', 'malware', 'spam', 'suspicious')),
	CONSTRAINT "policy_overrides_action_check" CHECK ("policy_overrides"."action" in ('deliver', 'deliver_banner', 'strip', 'quarantine', 'quarantine_silent'))
);
--> statement-breakpoint
ALTER TABLE "policy_overrides" ADD CONSTRAINT "policy_overrides_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "policy_overrides_tenant_idx" ON "policy_overrides" USING btree ("tenant_id","position");
--> statement-breakpoint
CREATE TRIGGER policy_overrides_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON policy_overrides FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
