-- An aggregate report is the same report only with the same content (issue 37, review): a forged
-- report sent first under a real reporter's id no longer makes the real one a duplicate. Reports
-- taken in before keep an empty hash and still match any content of their id (no double count).
ALTER TABLE "dmarc_reports" ADD COLUMN "content_hash" text DEFAULT '' NOT NULL;--> statement-breakpoint
DROP INDEX "dmarc_reports_once_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "dmarc_reports_once_idx" ON "dmarc_reports" USING btree ("tenant_id","org_name","report_id","domain","content_hash");
