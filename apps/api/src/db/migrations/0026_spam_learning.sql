-- The embedded anti-spam engine (issue 13): each tenant's spam score thresholds, and what each
-- tenant taught its classifier (the messages, once each, and the token counts they add up to).
CREATE TABLE "spam_thresholds" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"suspicious" double precision NOT NULL,
	"spam" double precision NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spam_thresholds_order_check" CHECK ("spam_thresholds"."suspicious" <= "spam_thresholds"."spam")
);
--> statement-breakpoint
ALTER TABLE "spam_thresholds" ADD CONSTRAINT "spam_thresholds_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The gateway caches each tenant's thresholds per node: writes are announced (0011) and forgotten.
CREATE TRIGGER spam_thresholds_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON spam_thresholds FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();--> statement-breakpoint
CREATE TABLE "spam_learned_messages" (
	"tenant_id" uuid NOT NULL,
	"message_key" text NOT NULL,
	"label" text NOT NULL,
	"source" text NOT NULL,
	"learned_by" uuid,
	"learned_at" timestamp with time zone DEFAULT now() NOT NULL,
	"tokens" integer[] NOT NULL,
	CONSTRAINT "spam_learned_messages_tenant_id_message_key_pk" PRIMARY KEY("tenant_id","message_key"),
	CONSTRAINT "spam_learned_messages_label_check" CHECK ("spam_learned_messages"."label" in ('spam', 'ham'))
);
--> statement-breakpoint
ALTER TABLE "spam_learned_messages" ADD CONSTRAINT "spam_learned_messages_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The gateway caches how many messages each tenant taught (learning is rare; scanning is not).
CREATE TRIGGER spam_learned_messages_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON spam_learned_messages FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();--> statement-breakpoint
CREATE TABLE "spam_learned_tokens" (
	"tenant_id" uuid NOT NULL,
	"token" integer NOT NULL,
	"spam" integer DEFAULT 0 NOT NULL,
	"ham" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "spam_learned_tokens_tenant_id_token_pk" PRIMARY KEY("tenant_id","token")
);
--> statement-breakpoint
ALTER TABLE "spam_learned_tokens" ADD CONSTRAINT "spam_learned_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
