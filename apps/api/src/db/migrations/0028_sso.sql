-- Single sign-on (issue 15): each tenant's identity providers, the sign-in requests in flight
-- (SAML AuthnRequest ids for InResponseTo, OIDC states), the assertions already used (replay),
-- and the short hand-over from the provider's answer to the browser's session.
CREATE TABLE "sso_configs" (
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"settings" jsonb NOT NULL,
	"secret" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sso_configs_pk" PRIMARY KEY("tenant_id","provider"),
	CONSTRAINT "sso_configs_provider_check" CHECK ("sso_configs"."provider" in ('saml', 'microsoft', 'google'))
);
--> statement-breakpoint
ALTER TABLE "sso_configs" ADD CONSTRAINT "sso_configs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The public sign-in page asks on every load which providers are on: cached per node, forgotten on writes (0011).
CREATE TRIGGER sso_configs_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sso_configs FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();--> statement-breakpoint
CREATE TABLE "sso_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"value" text NOT NULL,
	"browser" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sso_requests" ADD CONSTRAINT "sso_requests_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sso_requests_expires_idx" ON "sso_requests" USING btree ("expires_at");--> statement-breakpoint
CREATE TABLE "sso_used_assertions" (
	"key" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sso_used_assertions_expires_idx" ON "sso_used_assertions" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "user_tokens" DROP CONSTRAINT "user_tokens_kind_check";--> statement-breakpoint
ALTER TABLE "user_tokens" ADD CONSTRAINT "user_tokens_kind_check" CHECK ("user_tokens"."kind" in ('password_reset', 'login_link', 'login_checkpoint', 'login_firewall', 'sso_handoff'));
--> statement-breakpoint
-- Settings → Sign-in: a tenant that signs in with SSO can turn passwords off (its admins keep theirs).
ALTER TABLE "tenants" ADD COLUMN "passwords_allowed" boolean DEFAULT true NOT NULL;
