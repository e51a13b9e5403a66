-- DMARC aggregate reports (issue 37): each report a receiver sent about one of the tenant's
-- domains, kept once (its reporter and report id), with the XML as it came (gzip) for the console's
-- "raw report", and each of its rows (a source and what the receiver saw of it).
CREATE TABLE "dmarc_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"org_name" text NOT NULL,
	"org_email" text DEFAULT '' NOT NULL,
	"report_id" text NOT NULL,
	"begin_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"policy" jsonb NOT NULL,
	"messages" bigint DEFAULT 0 NOT NULL,
	"rows" integer DEFAULT 0 NOT NULL,
	"source" text NOT NULL,
	"raw_gzip" bytea NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dmarc_reports_source_check" CHECK ("dmarc_reports"."source" in ('upload', 'mail'))
);
--> statement-breakpoint
ALTER TABLE "dmarc_reports" ADD CONSTRAINT "dmarc_reports_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "dmarc_reports_once_idx" ON "dmarc_reports" USING btree ("tenant_id","org_name","report_id","domain");--> statement-breakpoint
CREATE INDEX "dmarc_reports_tenant_begin_idx" ON "dmarc_reports" USING btree ("tenant_id","begin_at");--> statement-breakpoint
CREATE TABLE "dmarc_records" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"report_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"begin_at" timestamp with time zone NOT NULL,
	"source_ip" text NOT NULL,
	"count" bigint NOT NULL,
	"disposition" text NOT NULL,
	"dkim" text NOT NULL,
	"spf" text NOT NULL,
	"header_from" text DEFAULT '' NOT NULL,
	"envelope_from" text DEFAULT '' NOT NULL,
	"envelope_to" text DEFAULT '' NOT NULL,
	"dkim_results" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"spf_results" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dmarc_records" ADD CONSTRAINT "dmarc_records_report_id_dmarc_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."dmarc_reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dmarc_records_tenant_begin_idx" ON "dmarc_records" USING btree ("tenant_id","begin_at");--> statement-breakpoint
CREATE INDEX "dmarc_records_report_idx" ON "dmarc_records" USING btree ("report_id");
