-- Outbound DLP (issue 38). Each built-in data type's settings per tenant (a type without a row has
-- the defaults of contracts/dlp.ts), the tenant's custom rules (keywords or one RE2 expression),
-- and outbound mail held for an admin (a DLP hold): kept unsigned, released or declined from the
-- console, the sender told.
CREATE TABLE "dlp_data_types" (
	"tenant_id" uuid NOT NULL,
	"type" text NOT NULL,
	"enabled" boolean NOT NULL,
	"action" text NOT NULL,
	"threshold" integer NOT NULL,
	"file_types" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dlp_data_types_tenant_id_type_pk" PRIMARY KEY("tenant_id","type"),
	CONSTRAINT "dlp_data_types_action_check" CHECK ("action" in ('deliver', 'notify', 'hold', 'refuse'))
);
--> statement-breakpoint
ALTER TABLE "dlp_data_types" ADD CONSTRAINT "dlp_data_types_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE TABLE "dlp_custom_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"keywords" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"pattern" text DEFAULT '' NOT NULL,
	"enabled" boolean NOT NULL,
	"action" text NOT NULL,
	"threshold" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dlp_custom_rules_kind_check" CHECK ("kind" in ('keywords', 'regex')),
	CONSTRAINT "dlp_custom_rules_action_check" CHECK ("action" in ('deliver', 'notify', 'hold', 'refuse'))
);
--> statement-breakpoint
ALTER TABLE "dlp_custom_rules" ADD CONSTRAINT "dlp_custom_rules_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "dlp_custom_rules_tenant_idx" ON "dlp_custom_rules" USING btree ("tenant_id");
--> statement-breakpoint
CREATE TABLE "outbound_held" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"envelope_from" text NOT NULL,
	"from_domain" text NOT NULL,
	"recipients" jsonb NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"client_address" text DEFAULT '' NOT NULL,
	"raw" bytea NOT NULL,
	"reason" text NOT NULL,
	"hits" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'held' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	CONSTRAINT "outbound_held_status_check" CHECK ("status" in ('held', 'released', 'declined'))
);
--> statement-breakpoint
ALTER TABLE "outbound_held" ADD CONSTRAINT "outbound_held_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "outbound_held_tenant_status_created_idx" ON "outbound_held" USING btree ("tenant_id","status","created_at");
--> statement-breakpoint
-- Each node caches a tenant's compiled DLP rules: a change from any path tells every node.
CREATE TRIGGER dlp_data_types_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON dlp_data_types FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
CREATE TRIGGER dlp_custom_rules_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON dlp_custom_rules FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
-- DLP is a security tool of this edition: tenants made before it get it on, unless an operator
-- set its state already.
INSERT INTO "security_tools" ("tenant_id", "name", "state")
SELECT "id", 'dlp', 'enabled' FROM "tenants"
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Entries filed under DLP before this edition had DLP blocked inbound mail (as every engine's
-- block entries do) and excused nothing. The `dlp` scope is now outbound mail's: those block
-- entries keep blocking inbound mail under `all`; the allow entries, which did nothing, become
-- outbound DLP allow entries.
UPDATE "sender_lists" SET "scope" = 'all' WHERE "scope" = 'dlp' AND "list" = 'block';
