CREATE TABLE "gateway_policies" (
	"tenant_id" uuid NOT NULL,
	"verdict" text NOT NULL,
	"action" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gateway_policies_tenant_id_verdict_pk" PRIMARY KEY("tenant_id","verdict"),
	CONSTRAINT "gateway_policies_action_check" CHECK ("gateway_policies"."action" in ('deliver', 'deliver_banner', 'strip', 'quarantine', 'quarantine_silent'))
);
--> statement-breakpoint
CREATE TABLE "inbound_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"client_ip" text NOT NULL,
	"helo" text DEFAULT '' NOT NULL,
	"mail_from" text NOT NULL,
	"rcpt_to" jsonb NOT NULL,
	"raw" "bytea" NOT NULL,
	"size" integer NOT NULL,
	"status" text DEFAULT 'received' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"processed_at" timestamp with time zone,
	CONSTRAINT "inbound_messages_status_check" CHECK ("inbound_messages"."status" in ('received', 'processed', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "mail_log" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"inbound_id" uuid NOT NULL,
	"recipient" text NOT NULL,
	"sender" text NOT NULL,
	"sender_name" text DEFAULT '' NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"message_id_header" text,
	"received_at" timestamp with time zone NOT NULL,
	"verdict" text NOT NULL,
	"action" text NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"spf" text DEFAULT 'none' NOT NULL,
	"dkim" text DEFAULT 'none' NOT NULL,
	"dmarc" text DEFAULT 'none' NOT NULL,
	"size" integer NOT NULL,
	"attachments" integer DEFAULT 0 NOT NULL,
	"quarantine_message_id" uuid
);
--> statement-breakpoint
CREATE TABLE "sender_lists" (
	"tenant_id" uuid NOT NULL,
	"list" text NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sender_lists_tenant_id_list_value_pk" PRIMARY KEY("tenant_id","list","value"),
	CONSTRAINT "sender_lists_list_check" CHECK ("sender_lists"."list" in ('allow', 'block'))
);
--> statement-breakpoint
ALTER TABLE "outbox" DROP CONSTRAINT "outbox_status_check";--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "envelope_from" text;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "gateway_policies" ADD CONSTRAINT "gateway_policies_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_log" ADD CONSTRAINT "mail_log_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sender_lists" ADD CONSTRAINT "sender_lists_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "inbound_messages_pending_idx" ON "inbound_messages" USING btree ("status","received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "mail_log_once_idx" ON "mail_log" USING btree ("inbound_id","recipient");--> statement-breakpoint
CREATE INDEX "mail_log_tenant_received_idx" ON "mail_log" USING btree ("tenant_id","received_at");--> statement-breakpoint
CREATE INDEX "mail_log_search_trgm_idx" ON "mail_log" USING gin (("subject" || ' ' || "sender_name" || ' ' || "sender" || ' ' || "recipient") gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "outbox_idempotency_idx" ON "outbox" USING btree ("idempotency_key");--> statement-breakpoint
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_status_check" CHECK ("outbox"."status" in ('kept', 'queued', 'sending', 'sent', 'failed', 'bounced'));