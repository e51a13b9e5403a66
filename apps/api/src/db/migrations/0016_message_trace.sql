ALTER TABLE "mail_log" ADD COLUMN "details" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "inbound_messages" ADD COLUMN "tls" jsonb;
