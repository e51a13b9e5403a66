-- Exceptions (issue 11, SPEC §2.4 Security Settings → Exceptions): the sender allow/block lists
-- grow into entries of five kinds, each with its page (scope), a comment, who added it and an
-- optional expiry. Every new column has a default: writers that know only (tenant, list, value)
-- keep working, and the table keeps its change notices (0011) for the gateway's cache.
ALTER TABLE "sender_lists" ADD COLUMN "id" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "sender_lists" ADD COLUMN "kind" text DEFAULT 'sender' NOT NULL;--> statement-breakpoint
ALTER TABLE "sender_lists" ADD COLUMN "scope" text DEFAULT 'all' NOT NULL;--> statement-breakpoint
ALTER TABLE "sender_lists" ADD COLUMN "comment" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "sender_lists" ADD COLUMN "created_by" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "sender_lists" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sender_lists" ADD CONSTRAINT "sender_lists_id_unique" UNIQUE("id");--> statement-breakpoint
UPDATE "sender_lists" SET "kind" = 'domain' WHERE position('@' in "value") = 0;--> statement-breakpoint
ALTER TABLE "sender_lists" ADD CONSTRAINT "sender_lists_kind_check" CHECK ("sender_lists"."kind" in ('sender', 'domain', 'ip_range', 'url', 'sha256'));--> statement-breakpoint
ALTER TABLE "sender_lists" ADD CONSTRAINT "sender_lists_scope_check" CHECK ("sender_lists"."scope" in ('all', 'anti_phishing', 'anti_malware', 'anomaly', 'click_time', 'anti_spam', 'url_reputation', 'dlp'));--> statement-breakpoint
-- A plain insert of a domain (no kind given, so 'sender') is filed as a domain.
CREATE FUNCTION sender_lists_default_kind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.kind = 'sender' AND position('@' in NEW.value) = 0 THEN
    NEW.kind := 'domain';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER sender_lists_kind BEFORE INSERT ON sender_lists FOR EACH ROW EXECUTE FUNCTION sender_lists_default_kind();
