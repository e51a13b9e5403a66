CREATE TABLE "quarantine_attachments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"message_id" uuid NOT NULL,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"state" text NOT NULL,
	CONSTRAINT "quarantine_attachments_state_check" CHECK ("quarantine_attachments"."state" in ('delivered', 'removed', 'cleaned'))
);
--> statement-breakpoint
CREATE TABLE "quarantine_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"public_id" text NOT NULL,
	"saas_type" text NOT NULL,
	"recipient" text NOT NULL,
	"sender" text NOT NULL,
	"sender_name" text DEFAULT '' NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"message_id_header" text,
	"received_at" timestamp with time zone NOT NULL,
	"verdict" text NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"state" text NOT NULL,
	"raw" "bytea" NOT NULL,
	"raw_sha256" text NOT NULL,
	"size" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quarantine_messages_verdict_check" CHECK ("quarantine_messages"."verdict" in ('phishing', 'malware', 'spam', 'suspicious')),
	CONSTRAINT "quarantine_messages_state_check" CHECK ("quarantine_messages"."state" in ('quarantined', 'attachments_removed', 'restored', 'deleted'))
);
--> statement-breakpoint
CREATE TABLE "releases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"message_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"outbox_id" uuid,
	"released_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "restore_policies" (
	"tenant_id" uuid NOT NULL,
	"verdict" text NOT NULL,
	"mode" text NOT NULL,
	"identification_required" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "restore_policies_tenant_id_verdict_pk" PRIMARY KEY("tenant_id","verdict"),
	CONSTRAINT "restore_policies_mode_check" CHECK ("restore_policies"."mode" in ('automatic', 'request', 'admin_approve', 'phish_request_restore', 'none'))
);
--> statement-breakpoint
CREATE TABLE "restore_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"requested_by" text NOT NULL,
	"commentary" text DEFAULT '' NOT NULL,
	"mode" text NOT NULL,
	"status" text NOT NULL,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"decline_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "restore_requests_kind_check" CHECK ("restore_requests"."kind" in ('email', 'original')),
	CONSTRAINT "restore_requests_status_check" CHECK ("restore_requests"."status" in ('requested', 'approved', 'declined', 'restored'))
);
--> statement-breakpoint
CREATE TABLE "security_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"message_id" uuid,
	"engine" text NOT NULL,
	"verdict" text NOT NULL,
	"description" text NOT NULL,
	"severity" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "raw" "bytea";--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "retention_days" integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE "quarantine_attachments" ADD CONSTRAINT "quarantine_attachments_message_id_quarantine_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."quarantine_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quarantine_messages" ADD CONSTRAINT "quarantine_messages_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "releases" ADD CONSTRAINT "releases_message_id_quarantine_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."quarantine_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "restore_policies" ADD CONSTRAINT "restore_policies_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "restore_requests" ADD CONSTRAINT "restore_requests_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "restore_requests" ADD CONSTRAINT "restore_requests_message_id_quarantine_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."quarantine_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "security_events" ADD CONSTRAINT "security_events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "security_events" ADD CONSTRAINT "security_events_message_id_quarantine_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."quarantine_messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "quarantine_attachments_message_idx" ON "quarantine_attachments" USING btree ("message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "quarantine_messages_public_idx" ON "quarantine_messages" USING btree ("public_id");--> statement-breakpoint
CREATE INDEX "quarantine_messages_tenant_received_idx" ON "quarantine_messages" USING btree ("tenant_id","received_at");--> statement-breakpoint
CREATE INDEX "quarantine_messages_recipient_idx" ON "quarantine_messages" USING btree ("tenant_id","recipient");--> statement-breakpoint
CREATE UNIQUE INDEX "releases_once_idx" ON "releases" USING btree ("message_id","kind");--> statement-breakpoint
CREATE INDEX "restore_requests_tenant_status_idx" ON "restore_requests" USING btree ("tenant_id","status","created_at");--> statement-breakpoint
CREATE INDEX "restore_requests_message_idx" ON "restore_requests" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "security_events_tenant_created_idx" ON "security_events" USING btree ("tenant_id","created_at");