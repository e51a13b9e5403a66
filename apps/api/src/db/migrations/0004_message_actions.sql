CREATE TABLE "message_actions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"public_id" text NOT NULL,
	"message_id" uuid NOT NULL,
	"action" text NOT NULL,
	"performed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_actions_action_check" CHECK ("message_actions"."action" in ('report_safe'))
);
--> statement-breakpoint
ALTER TABLE "message_actions" ADD CONSTRAINT "message_actions_message_id_quarantine_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."quarantine_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "message_actions_public_idx" ON "message_actions" USING btree ("public_id");