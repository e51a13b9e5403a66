-- Click-time protection (issue 36): every click on a link Moat rewrote, and each tenant's choices.
-- A click names its message by the gateway's inbound id (no foreign key: the click outlives the
-- message's records) and its recipient; `scanner` marks a link scanner's visit, never a person's.
CREATE TABLE "link_clicks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"inbound_id" uuid,
	"recipient" text NOT NULL,
	"url" text NOT NULL,
	"host" text NOT NULL,
	"link_index" integer DEFAULT 0 NOT NULL,
	"verdict" text NOT NULL,
	"outcome" text NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"scanner" boolean DEFAULT false NOT NULL,
	"user_agent" text DEFAULT '' NOT NULL,
	"client_ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "link_clicks_verdict_check" CHECK ("link_clicks"."verdict" in ('clean', 'suspicious', 'malicious')),
	CONSTRAINT "link_clicks_outcome_check" CHECK ("link_clicks"."outcome" in ('redirected', 'warned', 'continued', 'blocked'))
);
--> statement-breakpoint
ALTER TABLE "link_clicks" ADD CONSTRAINT "link_clicks_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "link_clicks_tenant_created_idx" ON "link_clicks" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "link_clicks_tenant_inbound_idx" ON "link_clicks" USING btree ("tenant_id","inbound_id");--> statement-breakpoint
CREATE INDEX "link_clicks_tenant_host_idx" ON "link_clicks" USING btree ("tenant_id","host");--> statement-breakpoint
-- Per tenant: whether links are rewritten in mail with a verdict (on unless a row says otherwise),
-- in clean mail too (off unless chosen), and whether a warning page lets the reader go on.
CREATE TABLE "click_time_settings" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"rewrite_flagged" boolean DEFAULT true NOT NULL,
	"rewrite_clean" boolean DEFAULT false NOT NULL,
	"allow_continue" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "click_time_settings" ADD CONSTRAINT "click_time_settings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The gateway caches each tenant's choices per node: writes are announced (0011) and forgotten.
CREATE TRIGGER click_time_settings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON click_time_settings FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
-- A person's click that was blocked or let through past a warning is a security event.
ALTER TABLE "security_events" DROP CONSTRAINT "security_events_type_check";--> statement-breakpoint
ALTER TABLE "security_events" ADD CONSTRAINT "security_events_type_check" CHECK ("security_events"."type" in ('detection', 'hold', 'strip', 'banner', 'release', 'report', 'failure', 'feedback', 'block', 'click'));
