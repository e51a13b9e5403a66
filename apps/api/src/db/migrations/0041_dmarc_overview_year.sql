-- The Overview over 365 days (issue 37: 200 ms on a year of a million rows a month). Its failing
-- sources' candidates came from each month's worst, thirteen months for a year: senders failing a
-- little every month keep that bound above the top ten, and thousands of sources were summed. The
-- same sums per source and UTC quarter give a year's candidates from five quarters' worst, a far
-- tighter bound. Written with each report; the reports taken in before, summed once here.
CREATE TABLE "dmarc_source_quarters" (
	"tenant_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"quarter" date NOT NULL,
	"source_ip" text NOT NULL,
	"messages" bigint DEFAULT 0 NOT NULL,
	"passed" bigint DEFAULT 0 NOT NULL,
	"reports" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "dmarc_source_quarters_tenant_id_domain_quarter_source_ip_pk" PRIMARY KEY("tenant_id","domain","quarter","source_ip")
);
--> statement-breakpoint
ALTER TABLE "dmarc_source_quarters" ADD CONSTRAINT "dmarc_source_quarters_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "dmarc_source_quarters" ("tenant_id", "domain", "quarter", "source_ip", "messages", "passed", "reports")
SELECT "tenant_id", "domain", date_trunc('quarter', "month")::date, "source_ip", sum("messages"), sum("passed"), sum("reports")
FROM "dmarc_source_months" GROUP BY 1, 2, 3, 4;--> statement-breakpoint
CREATE INDEX "dmarc_source_quarters_failing_idx" ON "dmarc_source_quarters" USING btree ("tenant_id","domain","quarter",("messages" - "passed") DESC,"source_ip","messages","passed") WHERE "dmarc_source_quarters"."messages" > "dmarc_source_quarters"."passed";--> statement-breakpoint
-- The planner's statistics of the sums just written (0039's included): without them it reads a
-- quarter's every source through the key instead of its worst through the index above.
ANALYZE "dmarc_source_quarters";--> statement-breakpoint
ANALYZE "dmarc_source_months";--> statement-breakpoint
ANALYZE "dmarc_domain_days";
