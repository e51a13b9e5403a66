-- Events screen (issue 11): what happened (type), to whose mail (recipient, sender, subject kept on
-- the event, so the list filters and sorts without a join and outlives a deleted message), and the
-- evidence (details: the engines' findings and the policy decision).
ALTER TABLE "security_events" ADD COLUMN "type" text DEFAULT 'detection' NOT NULL;--> statement-breakpoint
ALTER TABLE "security_events" ADD COLUMN "recipient" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "security_events" ADD COLUMN "sender" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "security_events" ADD COLUMN "subject" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "security_events" ADD COLUMN "details" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "security_events" ADD CONSTRAINT "security_events_type_check" CHECK ("security_events"."type" in ('detection', 'hold', 'strip', 'banner', 'release', 'report', 'failure', 'feedback', 'block'));--> statement-breakpoint
CREATE INDEX "security_events_tenant_type_created_idx" ON "security_events" USING btree ("tenant_id","type","created_at");--> statement-breakpoint
-- One release event per message and kind (email, original): a second click on Release adds none.
CREATE UNIQUE INDEX "security_events_release_once_idx" ON "security_events" USING btree ("message_id",("details"->>'kind')) WHERE "security_events"."type" = 'release';--> statement-breakpoint
-- Existing rows: the type read from who wrote them, the addresses from their held message (a
-- banner event has none: its recipient is in its description).
UPDATE "security_events" AS e SET
  "type" = CASE
    WHEN e."engine" = 'recipient' THEN 'report'
    WHEN e."description" LIKE 'Delivered to % with a warning banner%' THEN 'banner'
    WHEN e."engine" = 'gateway' AND m."failed_inbound_id" IS NOT NULL THEN 'failure'
    WHEN m."state" = 'attachments_removed' THEN 'strip'
    WHEN e."message_id" IS NOT NULL THEN 'hold'
    ELSE 'detection'
  END,
  "recipient" = coalesce(m."recipient", substring(e."description" from '^Delivered to (\S+) with a warning banner'), ''),
  "sender" = coalesce(m."sender", ''),
  "subject" = coalesce(m."subject", '')
FROM "security_events" AS s LEFT JOIN "quarantine_messages" AS m ON m."id" = s."message_id"
WHERE s."id" = e."id";
