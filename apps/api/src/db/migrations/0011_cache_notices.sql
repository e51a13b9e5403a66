-- Change notices for the nodes' caches (lib/cache.ts): every write to a table a node caches
-- from tells every node, through PostgreSQL's NOTIFY on the channel moat_changes, whichever
-- path made it (the API, the CLI, another node, an operator's psql). The notice is sent at
-- commit, once per table per transaction; its payload is the table's name.
CREATE FUNCTION moat_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('moat_changes', TG_TABLE_NAME);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Sessions change at every use (last_seen_at); only what ends or changes a session's rights is
-- announced, with the token's hash, so a node forgets that one session.
CREATE FUNCTION moat_notify_session_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('moat_changes', 'sessions:' || OLD.token_hash);
  ELSIF OLD.revoked_at IS DISTINCT FROM NEW.revoked_at
     OR OLD.mfa_verified IS DISTINCT FROM NEW.mfa_verified
     OR OLD.login_reason_required IS DISTINCT FROM NEW.login_reason_required
     OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
     OR OLD.user_id IS DISTINCT FROM NEW.user_id THEN
    PERFORM pg_notify('moat_changes', 'sessions:' || OLD.token_hash);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER tenants_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tenants FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
CREATE TRIGGER tenant_domains_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tenant_domains FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
CREATE TRIGGER feature_flags_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON feature_flags FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
CREATE TRIGGER restore_policies_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON restore_policies FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
CREATE TRIGGER gateway_policies_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON gateway_policies FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
CREATE TRIGGER sender_lists_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sender_lists FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
CREATE TRIGGER saas_apps_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON saas_apps FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
CREATE TRIGGER users_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
--> statement-breakpoint
CREATE TRIGGER sessions_changed AFTER UPDATE OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION moat_notify_session_change();
--> statement-breakpoint
-- Rate counters are short-lived: they need no write-ahead log (no disk flush per counted request);
-- a crash forgets the current minute's counts, which then start again.
ALTER TABLE rate_counters SET UNLOGGED;
