CREATE TABLE "phishing_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"reporter" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"block_sender" boolean DEFAULT false NOT NULL,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "phishing_reports_kind_check" CHECK ("phishing_reports"."kind" in ('reported_phishing', 'reported_safe')),
	CONSTRAINT "phishing_reports_status_check" CHECK ("phishing_reports"."status" in ('open', 'confirmed', 'dismissed'))
);
--> statement-breakpoint
ALTER TABLE "phishing_reports" ADD CONSTRAINT "phishing_reports_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phishing_reports" ADD CONSTRAINT "phishing_reports_message_id_quarantine_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."quarantine_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "phishing_reports_tenant_status_idx" ON "phishing_reports" USING btree ("tenant_id","status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "phishing_reports_open_idx" ON "phishing_reports" USING btree ("message_id","reporter") WHERE "phishing_reports"."status" = 'open';--> statement-breakpoint
ALTER TABLE "message_actions" DROP CONSTRAINT "message_actions_action_check";--> statement-breakpoint
ALTER TABLE "message_actions" ADD CONSTRAINT "message_actions_action_check" CHECK ("message_actions"."action" in ('report_safe', 'report_phishing'));--> statement-breakpoint
CREATE TABLE "alert_settings" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"alert_restore_requests" boolean DEFAULT true NOT NULL,
	"alert_reports" boolean DEFAULT true NOT NULL,
	"alert_malware_holds" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_settings" ADD CONSTRAINT "alert_settings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "alert_windows" (
	"tenant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	"pending" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "alert_windows_tenant_id_kind_pk" PRIMARY KEY("tenant_id","kind")
);
--> statement-breakpoint
ALTER TABLE "alert_windows" ADD CONSTRAINT "alert_windows_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
