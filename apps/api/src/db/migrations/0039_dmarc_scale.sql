-- DMARC at scale (issue 37: a million report rows a month, a year of them, the Overview and the
-- Explorer answering in 200 ms). The reports summed per domain and UTC day of their period: the
-- Overview's trend and report counts and the Explorer's totals read these few rows instead of
-- the rows themselves. Written with each report; the reports taken in before, summed once here.
CREATE TABLE "dmarc_domain_days" (
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"day" date NOT NULL,
	"rows" bigint DEFAULT 0 NOT NULL,
	"passed_rows" bigint DEFAULT 0 NOT NULL,
	"messages" bigint DEFAULT 0 NOT NULL,
	"passed" bigint DEFAULT 0 NOT NULL,
	"reports" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "dmarc_domain_days_tenant_id_domain_day_pk" PRIMARY KEY("tenant_id","domain","day")
);
--> statement-breakpoint
ALTER TABLE "dmarc_domain_days" ADD CONSTRAINT "dmarc_domain_days_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "dmarc_domain_days" ("tenant_id", "domain", "day", "rows", "passed_rows", "messages", "passed", "reports")
SELECT p."tenant_id", p."domain", p."day", coalesce(r."rows", 0), coalesce(r."passed_rows", 0),
	coalesce(r."messages", 0), coalesce(r."passed", 0), p."reports"
FROM (
	SELECT "tenant_id", "domain", ("begin_at" at time zone 'UTC')::date AS "day", count(*) AS "reports"
	FROM "dmarc_reports" GROUP BY 1, 2, 3
) p LEFT JOIN (
	SELECT "tenant_id", "domain", ("begin_at" at time zone 'UTC')::date AS "day", count(*) AS "rows",
		count(*) FILTER (WHERE "dkim" = 'pass' OR "spf" = 'pass') AS "passed_rows", sum("count") AS "messages",
		coalesce(sum("count") FILTER (WHERE "dkim" = 'pass' OR "spf" = 'pass'), 0) AS "passed"
	FROM "dmarc_records" GROUP BY 1, 2, 3
) r USING ("tenant_id", "domain", "day");--> statement-breakpoint
-- The Explorer's sorts, each ending in the row id (its pages' tie-break), walked from either end;
-- the address in byte order ("C"), so that a prefix filter reads a range of it, and with what the
-- totals of an address filter sum (read from the index alone).
DROP INDEX "dmarc_records_tenant_begin_idx";--> statement-breakpoint
CREATE INDEX "dmarc_records_tenant_begin_idx" ON "dmarc_records" USING btree ("tenant_id","begin_at","id");--> statement-breakpoint
CREATE INDEX "dmarc_records_tenant_count_idx" ON "dmarc_records" USING btree ("tenant_id","count","id");--> statement-breakpoint
-- The rows that failed DMARC by count: the largest counts are mostly of mail that passed.
CREATE INDEX "dmarc_records_failing_count_idx" ON "dmarc_records" USING btree ("tenant_id","count","id") WHERE not ("dmarc_records"."dkim" = 'pass' or "dmarc_records"."spf" = 'pass');--> statement-breakpoint
CREATE INDEX "dmarc_records_tenant_source_idx" ON "dmarc_records" USING btree ("tenant_id","source_ip" COLLATE "C","id","begin_at","count","dkim","spf","domain");--> statement-breakpoint
-- The Overview's failing sources: each day's sources failing most, and one source's days (both
-- read from the index alone).
CREATE INDEX "dmarc_daily_failing_idx" ON "dmarc_daily" USING btree ("tenant_id","domain","day",("messages" - "passed") DESC,"source_ip","messages","passed") WHERE "dmarc_daily"."messages" > "dmarc_daily"."passed";--> statement-breakpoint
CREATE INDEX "dmarc_daily_source_idx" ON "dmarc_daily" USING btree ("tenant_id","domain","source_ip","day","messages","passed","reports");--> statement-breakpoint
-- The same sums per UTC month: a year's failing sources are read from twelve months' worst.
CREATE TABLE "dmarc_source_months" (
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"month" date NOT NULL,
	"source_ip" text NOT NULL,
	"messages" bigint DEFAULT 0 NOT NULL,
	"passed" bigint DEFAULT 0 NOT NULL,
	"reports" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "dmarc_source_months_tenant_id_domain_month_source_ip_pk" PRIMARY KEY("tenant_id","domain","month","source_ip")
);
--> statement-breakpoint
ALTER TABLE "dmarc_source_months" ADD CONSTRAINT "dmarc_source_months_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "dmarc_source_months" ("tenant_id", "domain", "month", "source_ip", "messages", "passed", "reports")
SELECT "tenant_id", "domain", date_trunc('month', "day")::date, "source_ip", sum("messages"), sum("passed"), sum("reports")
FROM "dmarc_daily" GROUP BY 1, 2, 3, 4;--> statement-breakpoint
CREATE INDEX "dmarc_source_months_failing_idx" ON "dmarc_source_months" USING btree ("tenant_id","domain","month",("messages" - "passed") DESC,"source_ip","messages","passed") WHERE "dmarc_source_months"."messages" > "dmarc_source_months"."passed";--> statement-breakpoint
CREATE INDEX "dmarc_source_months_source_idx" ON "dmarc_source_months" USING btree ("tenant_id","domain","source_ip","month","messages","passed","reports");--> statement-breakpoint
-- The policy the latest report of a domain saw.
CREATE INDEX "dmarc_reports_tenant_domain_end_idx" ON "dmarc_reports" USING btree ("tenant_id","domain","end_at");
