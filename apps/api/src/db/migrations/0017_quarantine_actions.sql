-- Quarantine actions (issue 11): an admin's 'is spam' / 'not spam' feedback recorded on the
-- message, and an index for the purge job that deletes held mail past the tenant's retention.
ALTER TABLE "quarantine_messages" ADD COLUMN "feedback" text;
--> statement-breakpoint
ALTER TABLE "quarantine_messages" ADD COLUMN "feedback_by" text;
--> statement-breakpoint
ALTER TABLE "quarantine_messages" ADD COLUMN "feedback_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "quarantine_messages" ADD CONSTRAINT "quarantine_messages_feedback_check" CHECK ("quarantine_messages"."feedback" in ('spam', 'not_spam'));
--> statement-breakpoint
CREATE INDEX "quarantine_messages_expires_idx" ON "quarantine_messages" USING btree ("expires_at");
