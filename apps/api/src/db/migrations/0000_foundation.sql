CREATE TABLE "audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" uuid,
	"actor_user_id" uuid,
	"actor_email" text,
	"actor_type" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text,
	"target_id" text,
	"ip" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_log_actor_type_check" CHECK ("audit_log"."actor_type" in ('user', 'system', 'cli', 'anonymous'))
);
--> statement-breakpoint
CREATE TABLE "feature_flags" (
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feature_flags_tenant_id_name_pk" PRIMARY KEY("tenant_id","name")
);
--> statement-breakpoint
CREATE TABLE "licence_seats" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"saas" text,
	"security_tool" text,
	"seats" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "licence_seats_entry_unique" UNIQUE NULLS NOT DISTINCT("tenant_id","saas","security_tool"),
	CONSTRAINT "licence_seats_seats_check" CHECK ("licence_seats"."seats" >= 0),
	CONSTRAINT "licence_seats_target_check" CHECK ("licence_seats"."saas" is not null or "licence_seats"."security_tool" is not null)
);
--> statement-breakpoint
CREATE TABLE "saas_apps" (
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"state" text DEFAULT 'enabled' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "saas_apps_tenant_id_name_pk" PRIMARY KEY("tenant_id","name"),
	CONSTRAINT "saas_apps_state_check" CHECK ("saas_apps"."state" in ('enabled', 'disabled', 'pending'))
);
--> statement-breakpoint
CREATE TABLE "security_tools" (
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"state" text DEFAULT 'enabled' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "security_tools_tenant_id_name_pk" PRIMARY KEY("tenant_id","name"),
	CONSTRAINT "security_tools_state_check" CHECK ("security_tools"."state" in ('enabled', 'disabled', 'pending'))
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"token_hash" text NOT NULL,
	"user_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"mfa_verified" boolean DEFAULT false NOT NULL,
	"ip" text,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "tenant_domains" (
	"domain" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_domains_lowercase_check" CHECK ("tenant_domains"."domain" = lower("tenant_domains"."domain"))
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"brand" text DEFAULT 'moat' NOT NULL,
	"brand_name" text,
	"deployment_mode" text DEFAULT 'poc' NOT NULL,
	"portal_license_state" text,
	"is_msp" boolean DEFAULT false NOT NULL,
	"is_managed_service" boolean DEFAULT false NOT NULL,
	"is_avanan_msp" boolean DEFAULT false NOT NULL,
	"is_cp_msp" boolean DEFAULT false NOT NULL,
	"msp_brand_id" text,
	"parent_tenant_id" uuid,
	"association_date" timestamp with time zone,
	"demo_expiration_date" timestamp with time zone,
	"paid_start_date" timestamp with time zone,
	"paid_expiration_date" timestamp with time zone,
	"trial_start_date" timestamp with time zone DEFAULT now() NOT NULL,
	"trial_expiration_days" integer DEFAULT 30 NOT NULL,
	"waiting_for_approval" boolean DEFAULT false NOT NULL,
	"unified_quarantine_manually_disabled" boolean DEFAULT false NOT NULL,
	"amplitude_key" text,
	"customer_configs" jsonb DEFAULT '{"training":{"is_active":false,"msp_allowed":true},"dmarc":{"is_active":false,"msp_allowed":true},"archiving":{"is_active":false,"msp_allowed":true},"sspm":{"is_active":false,"msp_allowed":true}}'::jsonb NOT NULL,
	"support_access_enabled" boolean DEFAULT false NOT NULL,
	"mfa_required" boolean DEFAULT false NOT NULL,
	"password_max_age_days" integer,
	"logo" "bytea",
	"logo_mime" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenants_brand_check" CHECK ("tenants"."brand" in ('moat', 'checkpoint', 'sonicwall')),
	CONSTRAINT "tenants_deployment_mode_check" CHECK ("tenants"."deployment_mode" in ('poc', 'paid', 'demo')),
	CONSTRAINT "tenants_trial_days_check" CHECK ("tenants"."trial_expiration_days" >= 0),
	CONSTRAINT "tenants_logo_check" CHECK (("tenants"."logo" is null) = ("tenants"."logo_mime" is null) and coalesce(octet_length("tenants"."logo"), 0) <= 1048576)
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"email" text NOT NULL,
	"first_name" text DEFAULT '' NOT NULL,
	"last_name" text DEFAULT '' NOT NULL,
	"role" text DEFAULT 'user' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"hidden" boolean DEFAULT false NOT NULL,
	"password_hash" text,
	"password_changed_at" timestamp with time zone,
	"invite_token_hash" text,
	"invite_expires_at" timestamp with time zone,
	"mfa_secret" text,
	"mfa_enabled" boolean DEFAULT false NOT NULL,
	"mfa_required" boolean DEFAULT false NOT NULL,
	"on_boarding_required" boolean DEFAULT false NOT NULL,
	"automation_customer" boolean DEFAULT false NOT NULL,
	"view_private_data" boolean DEFAULT false NOT NULL,
	"view_policy" boolean DEFAULT false NOT NULL,
	"view_edit_policy" boolean DEFAULT false NOT NULL,
	"locked" boolean DEFAULT false NOT NULL,
	"preferences" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_email_lowercase_check" CHECK ("users"."email" = lower("users"."email")),
	CONSTRAINT "users_role_check" CHECK ("users"."role" in ('admin', 'user')),
	CONSTRAINT "users_status_check" CHECK ("users"."status" in ('active', 'invited', 'disabled'))
);
--> statement-breakpoint
ALTER TABLE "feature_flags" ADD CONSTRAINT "feature_flags_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "licence_seats" ADD CONSTRAINT "licence_seats_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saas_apps" ADD CONSTRAINT "saas_apps_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "security_tools" ADD CONSTRAINT "security_tools_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_domains" ADD CONSTRAINT "tenant_domains_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_tenant_created_idx" ON "audit_log" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_token_hash_idx" ON "sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "tenant_domains_tenant_idx" ON "tenant_domains" USING btree ("tenant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_idx" ON "users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "users_tenant_idx" ON "users" USING btree ("tenant_id");