-- Retraction (issue 36 §2): delivered mail later found bad is pulled back out of the recipients'
-- mailboxes over IMAP. Per tenant one mailbox connection: the server, a master (admin) user that
-- logs in as any mailbox, its password sealed with the server key (as SSO client secrets are).
CREATE TABLE "mailbox_connections" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"host" text NOT NULL,
	"port" integer NOT NULL,
	"tls_mode" text NOT NULL,
	"verify_tls" boolean DEFAULT true NOT NULL,
	"master_user" text NOT NULL,
	"separator" text DEFAULT '*' NOT NULL,
	"secret" text,
	"action" text DEFAULT 'move' NOT NULL,
	"folder" text DEFAULT 'Moat Quarantine' NOT NULL,
	"last_test_at" timestamp with time zone,
	"last_test_ok" boolean,
	"last_test_message" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mailbox_connections_tls_mode_check" CHECK ("mailbox_connections"."tls_mode" in ('tls', 'starttls', 'none')),
	CONSTRAINT "mailbox_connections_action_check" CHECK ("mailbox_connections"."action" in ('move', 'delete'))
);
--> statement-breakpoint
ALTER TABLE "mailbox_connections" ADD CONSTRAINT "mailbox_connections_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- One retraction: why it was started, by whom, and its progress. A job claimed with a lease (as
-- inbound mail is): any node takes over one whose lease ran out. A trigger's retraction (a block
-- entry, a confirmed report) is stored with its `search` at once, and its copies are found by the
-- job (`resolved` false until then), so the call that triggered it answers at once.
CREATE TABLE "retractions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"trigger" text NOT NULL,
	"trigger_ref" text,
	"verdict" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"requested_by" text NOT NULL,
	"search" jsonb,
	"resolved" boolean DEFAULT true NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "retractions_trigger_check" CHECK ("retractions"."trigger" in ('admin', 'report', 'block_url', 'block_sha256', 'block_sender', 'bulk')),
	CONSTRAINT "retractions_verdict_check" CHECK ("retractions"."verdict" in ('phishing', 'malware', 'spam')),
	CONSTRAINT "retractions_status_check" CHECK ("retractions"."status" in ('queued', 'running', 'done', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "retractions" ADD CONSTRAINT "retractions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "retractions_tenant_created_idx" ON "retractions" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "retractions_pending_idx" ON "retractions" USING btree ("status","created_at");--> statement-breakpoint
-- Each delivered copy (a message and recipient) at most once: a copy retracted (or being
-- retracted) is never retracted again, whatever triggers it; a copy not found or not reached may be
-- tried again by a later retraction. `found` lists the folders and how many copies each held.
CREATE TABLE "retraction_copies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"retraction_id" uuid NOT NULL,
	"mail_log_id" uuid NOT NULL,
	"inbound_id" uuid NOT NULL,
	"recipient" text NOT NULL,
	"message_id_header" text,
	"subject" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"action" text,
	"found" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text,
	"quarantine_message_id" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "retraction_copies_status_check" CHECK ("retraction_copies"."status" in ('pending', 'retracted', 'not_found', 'failed', 'skipped')),
	CONSTRAINT "retraction_copies_action_check" CHECK ("retraction_copies"."action" is null or "retraction_copies"."action" in ('move', 'delete'))
);
--> statement-breakpoint
ALTER TABLE "retraction_copies" ADD CONSTRAINT "retraction_copies_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "retraction_copies" ADD CONSTRAINT "retraction_copies_retraction_id_retractions_id_fk" FOREIGN KEY ("retraction_id") REFERENCES "public"."retractions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "retraction_copies_once_idx" ON "retraction_copies" USING btree ("tenant_id","inbound_id","recipient");--> statement-breakpoint
CREATE INDEX "retraction_copies_retraction_idx" ON "retraction_copies" USING btree ("retraction_id","status");--> statement-breakpoint
-- What a delivered message holds that a search or a new block entry asks about: its links
-- (normalised as the exceptions are), their hosts and its attachments' SHA-256, read once per
-- message from its delivered bytes (the outbox) when first searched.
CREATE TABLE "delivered_contents" (
	"inbound_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"urls" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"hosts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"sha256s" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "delivered_contents" ADD CONSTRAINT "delivered_contents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delivered_contents_urls_idx" ON "delivered_contents" USING gin ("urls" jsonb_path_ops);--> statement-breakpoint
CREATE INDEX "delivered_contents_hosts_idx" ON "delivered_contents" USING gin ("hosts" jsonb_path_ops);--> statement-breakpoint
CREATE INDEX "delivered_contents_sha256s_idx" ON "delivered_contents" USING gin ("sha256s" jsonb_path_ops);--> statement-breakpoint
-- A held message that was retracted from the recipient's mailbox (null: held at the door).
ALTER TABLE "quarantine_messages" ADD COLUMN "retracted_at" timestamp with time zone;--> statement-breakpoint
-- Delivered copies of one message, found by its Message-ID (a confirmed report, an admin's mark).
CREATE INDEX "mail_log_tenant_message_id_idx" ON "mail_log" USING btree ("tenant_id","message_id_header");
