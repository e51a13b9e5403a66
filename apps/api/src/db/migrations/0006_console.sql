CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE TABLE "licence_contact_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid,
	"email" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "service_incidents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"nav_item" text,
	"severity" text NOT NULL,
	"title" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "service_incidents_severity_check" CHECK ("service_incidents"."severity" in ('info', 'warning', 'error'))
);
--> statement-breakpoint
CREATE TABLE "trial_extension_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"requested_by" uuid,
	"requester_email" text NOT NULL,
	"requester_first_name" text NOT NULL,
	"requester_last_name" text NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"decided_at" timestamp with time zone,
	"extended_days" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trial_extension_requests_status_check" CHECK ("trial_extension_requests"."status" in ('requested', 'approved', 'declined'))
);
--> statement-breakpoint
ALTER TABLE "licence_contact_requests" ADD CONSTRAINT "licence_contact_requests_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "licence_contact_requests" ADD CONSTRAINT "licence_contact_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trial_extension_requests" ADD CONSTRAINT "trial_extension_requests_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trial_extension_requests" ADD CONSTRAINT "trial_extension_requests_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "licence_contact_requests_tenant_idx" ON "licence_contact_requests" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "service_incidents_open_idx" ON "service_incidents" USING btree ("resolved_at");--> statement-breakpoint
CREATE INDEX "trial_extension_requests_tenant_idx" ON "trial_extension_requests" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "trial_extension_requests_open_idx" ON "trial_extension_requests" USING btree ("tenant_id") WHERE "trial_extension_requests"."status" = 'requested';--> statement-breakpoint
CREATE INDEX "quarantine_messages_search_trgm_idx" ON "quarantine_messages" USING gin (("subject" || ' ' || "sender_name" || ' ' || "sender" || ' ' || "recipient") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "security_events_search_trgm_idx" ON "security_events" USING gin (("engine" || ' ' || "verdict" || ' ' || "description") gin_trgm_ops);