-- Every user's own allow and block list of senders (issue 12, SPEC §6): addresses and domains the
-- gateway holds or lets through for mail to that person only. One entry per value per person:
-- adding a value again moves it to the other list.
CREATE TABLE "personal_sender_lists" (
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"list" text NOT NULL,
	"value" text NOT NULL,
	"kind" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	CONSTRAINT "personal_sender_lists_user_id_value_pk" PRIMARY KEY("user_id","value"),
	CONSTRAINT "personal_sender_lists_id_unique" UNIQUE("id"),
	CONSTRAINT "personal_sender_lists_list_check" CHECK ("personal_sender_lists"."list" in ('allow', 'block')),
	CONSTRAINT "personal_sender_lists_kind_check" CHECK ("personal_sender_lists"."kind" in ('sender', 'domain'))
);
--> statement-breakpoint
ALTER TABLE "personal_sender_lists" ADD CONSTRAINT "personal_sender_lists_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personal_sender_lists" ADD CONSTRAINT "personal_sender_lists_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "personal_sender_lists_tenant_idx" ON "personal_sender_lists" USING btree ("tenant_id");--> statement-breakpoint
-- The gateway caches each recipient's entries per node: writes are announced (0011) and forgotten.
CREATE TRIGGER personal_sender_lists_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON personal_sender_lists FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
