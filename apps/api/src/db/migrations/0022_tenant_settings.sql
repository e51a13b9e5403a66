-- Settings (issue 12): per-tenant session limits, the sender of Moat's mail, the admins' alert
-- recipients. Defaults keep today's behaviour (30 minutes idle, 12 hours at most, MAIL_FROM).
ALTER TABLE "tenants" ADD COLUMN "session_idle_minutes" integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "session_absolute_hours" integer DEFAULT 12 NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "mail_from_address" text;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "mail_from_name" text;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "alert_recipients" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_session_idle_check" CHECK ("tenants"."session_idle_minutes" between 5 and 480);--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_session_absolute_check" CHECK ("tenants"."session_absolute_hours" between 1 and 24);--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "default_application_mode" text DEFAULT 'mixed' NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_default_application_mode_check" CHECK ("tenants"."default_application_mode" in ('mixed', 'dark'));--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "from_address" text;
--> statement-breakpoint
-- System Tasks: each run of a background task (who ran it, when, how it ended).
CREATE TABLE "system_task_runs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "system_task_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"node" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"outcome" text,
	"detail" text,
	CONSTRAINT "system_task_runs_outcome_check" CHECK ("system_task_runs"."outcome" is null or "system_task_runs"."outcome" in ('ok', 'failed'))
);
--> statement-breakpoint
CREATE INDEX "system_task_runs_name_started_idx" ON "system_task_runs" USING btree ("name","started_at");
