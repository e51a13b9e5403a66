-- What came to the DMARC report addresses (and the uploads): each report file taken in, counted
-- once, or refused with the reason, so the console can say why a reporter's report is missing.
-- One row per file of a message (its part), written once however often the message is processed.
CREATE TABLE "dmarc_intake" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"source" text NOT NULL,
	"sender" text DEFAULT '' NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"file_name" text DEFAULT '' NOT NULL,
	"kind" text NOT NULL,
	"outcome" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"report_id" uuid,
	"inbound_id" uuid,
	"part" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "dmarc_intake_source_check" CHECK ("dmarc_intake"."source" in ('upload', 'mail')),
	CONSTRAINT "dmarc_intake_outcome_check" CHECK ("dmarc_intake"."outcome" in ('added', 'duplicate', 'refused'))
);
--> statement-breakpoint
ALTER TABLE "dmarc_intake" ADD CONSTRAINT "dmarc_intake_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dmarc_intake" ADD CONSTRAINT "dmarc_intake_report_id_dmarc_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."dmarc_reports"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dmarc_intake_tenant_received_idx" ON "dmarc_intake" USING btree ("tenant_id","received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "dmarc_intake_once_idx" ON "dmarc_intake" USING btree ("tenant_id","inbound_id","part") WHERE "dmarc_intake"."inbound_id" is not null;
--> statement-breakpoint
-- The reports' rows summed per domain, UTC day (of the report's period) and source: what the
-- Overview reads, so a year of a million rows a month stays fast. Written with each report.
CREATE TABLE "dmarc_daily" (
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"day" date NOT NULL,
	"source_ip" text NOT NULL,
	"messages" bigint DEFAULT 0 NOT NULL,
	"passed" bigint DEFAULT 0 NOT NULL,
	"reports" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "dmarc_daily_tenant_id_domain_day_source_ip_pk" PRIMARY KEY("tenant_id","domain","day","source_ip")
);
--> statement-breakpoint
ALTER TABLE "dmarc_daily" ADD CONSTRAINT "dmarc_daily_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Reports taken in before this table: summed once.
INSERT INTO "dmarc_daily" ("tenant_id", "domain", "day", "source_ip", "messages", "passed", "reports")
SELECT r."tenant_id", r."domain", (r."begin_at" at time zone 'UTC')::date, r."source_ip", sum(r."count"),
	coalesce(sum(r."count") filter (where r."dkim" = 'pass' or r."spf" = 'pass'), 0), count(distinct r."report_id")
FROM "dmarc_records" r GROUP BY 1, 2, 3, 4;
