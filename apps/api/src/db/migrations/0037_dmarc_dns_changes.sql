-- DNS Change-Log (issue 37): each domain's SPF, DMARC, DKIM (the selectors the reports named), MX,
-- MTA-STS and TLS-RPT records as last polled, each change with its value before and after, when
-- each domain was last polled, and the DMARC alerts raised (once each), which the admins may turn off.
CREATE TABLE "dmarc_dns_records" (
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"value" text,
	"first_seen_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"changed_at" timestamp with time zone,
	"failure" text,
	"failed_at" timestamp with time zone,
	CONSTRAINT "dmarc_dns_records_tenant_id_domain_kind_name_pk" PRIMARY KEY("tenant_id","domain","kind","name"),
	CONSTRAINT "dmarc_dns_records_kind_check" CHECK ("dmarc_dns_records"."kind" in ('spf', 'dmarc', 'dkim', 'mx', 'mta_sts', 'tls_rpt'))
);
--> statement-breakpoint
ALTER TABLE "dmarc_dns_records" ADD CONSTRAINT "dmarc_dns_records_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "dmarc_dns_changes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"before" text,
	"after" text,
	"first" boolean DEFAULT false NOT NULL,
	"observed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "dmarc_dns_changes_kind_check" CHECK ("dmarc_dns_changes"."kind" in ('spf', 'dmarc', 'dkim', 'mx', 'mta_sts', 'tls_rpt'))
);
--> statement-breakpoint
ALTER TABLE "dmarc_dns_changes" ADD CONSTRAINT "dmarc_dns_changes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dmarc_dns_changes_tenant_observed_idx" ON "dmarc_dns_changes" USING btree ("tenant_id","observed_at");--> statement-breakpoint
CREATE TABLE "dmarc_dns_polls" (
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"polled_at" timestamp with time zone NOT NULL,
	"selectors_until" timestamp with time zone,
	CONSTRAINT "dmarc_dns_polls_tenant_id_domain_pk" PRIMARY KEY("tenant_id","domain")
);
--> statement-breakpoint
ALTER TABLE "dmarc_dns_polls" ADD CONSTRAINT "dmarc_dns_polls_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dmarc_dns_polls_polled_idx" ON "dmarc_dns_polls" USING btree ("polled_at");--> statement-breakpoint
CREATE TABLE "dmarc_alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"domain" text NOT NULL,
	"key" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"raised_at" timestamp with time zone NOT NULL,
	"emailed" boolean DEFAULT false NOT NULL,
	CONSTRAINT "dmarc_alerts_kind_check" CHECK ("dmarc_alerts"."kind" in ('dmarc_record_changed', 'dmarc_new_failing_source', 'dmarc_pass_rate_drop'))
);
--> statement-breakpoint
ALTER TABLE "dmarc_alerts" ADD CONSTRAINT "dmarc_alerts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "dmarc_alerts_once_idx" ON "dmarc_alerts" USING btree ("tenant_id","kind","key");--> statement-breakpoint
CREATE INDEX "dmarc_alerts_tenant_raised_idx" ON "dmarc_alerts" USING btree ("tenant_id","raised_at");--> statement-breakpoint
ALTER TABLE "alert_settings" ADD COLUMN "alert_dmarc" boolean DEFAULT true NOT NULL;
