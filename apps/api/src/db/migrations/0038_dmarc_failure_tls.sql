-- DMARC failure reports (RFC 6591) and SMTP TLS reports (RFC 8460), issue 37. A failure report is
-- kept redacted: its fields (the addresses masked) and the sample's headers that matter, never the
-- sample's body; once per reporter and hash of what it says. A TLS report once per reporter and
-- report id, each of its policies with its sessions and failure details.
CREATE TABLE "dmarc_failure_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"reported_domain" text NOT NULL,
	"reporter" text NOT NULL,
	"report_hash" text NOT NULL,
	"arrival_at" timestamp with time zone,
	"source_ip" text DEFAULT '' NOT NULL,
	"auth_failure" text DEFAULT '' NOT NULL,
	"original_mail_from" text DEFAULT '' NOT NULL,
	"original_rcpt_to" text DEFAULT '' NOT NULL,
	"delivery_result" text DEFAULT '' NOT NULL,
	"dkim_domain" text DEFAULT '' NOT NULL,
	"dkim_selector" text DEFAULT '' NOT NULL,
	"spf_dns" text DEFAULT '' NOT NULL,
	"identity_alignment" text DEFAULT '' NOT NULL,
	"authentication_results" text DEFAULT '' NOT NULL,
	"sample_headers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"source" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dmarc_failure_reports_source_check" CHECK ("dmarc_failure_reports"."source" in ('upload', 'mail'))
);
--> statement-breakpoint
ALTER TABLE "dmarc_failure_reports" ADD CONSTRAINT "dmarc_failure_reports_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "dmarc_failure_reports_once_idx" ON "dmarc_failure_reports" USING btree ("tenant_id","reporter","report_hash");--> statement-breakpoint
CREATE INDEX "dmarc_failure_reports_tenant_received_idx" ON "dmarc_failure_reports" USING btree ("tenant_id","received_at");--> statement-breakpoint
CREATE TABLE "dmarc_tls_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"org_name" text NOT NULL,
	"contact" text DEFAULT '' NOT NULL,
	"report_id" text NOT NULL,
	"content_hash" text NOT NULL,
	"begin_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"successful" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"policies" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"source" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dmarc_tls_reports_source_check" CHECK ("dmarc_tls_reports"."source" in ('upload', 'mail'))
);
--> statement-breakpoint
ALTER TABLE "dmarc_tls_reports" ADD CONSTRAINT "dmarc_tls_reports_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "dmarc_tls_reports_once_idx" ON "dmarc_tls_reports" USING btree ("tenant_id","org_name","report_id","content_hash");--> statement-breakpoint
CREATE INDEX "dmarc_tls_reports_tenant_begin_idx" ON "dmarc_tls_reports" USING btree ("tenant_id","begin_at");
