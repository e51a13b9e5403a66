-- The portal sign-ins of SPEC §3 "Auth tokens" (issue 15): a token is bound to its brand (its
-- kind) and, for the firewall vendor, to the serial number it was issued for.
ALTER TABLE "user_tokens" DROP CONSTRAINT "user_tokens_kind_check";--> statement-breakpoint
ALTER TABLE "user_tokens" ADD COLUMN "bound_to" text;--> statement-breakpoint
ALTER TABLE "user_tokens" ADD CONSTRAINT "user_tokens_kind_check" CHECK ("user_tokens"."kind" in ('password_reset', 'login_link', 'login_checkpoint', 'login_firewall'));
