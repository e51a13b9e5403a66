-- The public pages read a held message by its link on every call (modules/public-actions): each
-- node caches it by its public id and forgets it when what those calls read of it changes, on every
-- node, whichever path changed it (a restore, an admin's delete, the gateway's retry, psql). New
-- messages need no notice: a link not found is never cached.
CREATE FUNCTION moat_notify_message_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('moat_changes', 'quarantine_messages:' || OLD.public_id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER quarantine_messages_changed AFTER UPDATE ON quarantine_messages FOR EACH ROW
  WHEN (OLD.state IS DISTINCT FROM NEW.state
     OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
     OR OLD.public_id IS DISTINCT FROM NEW.public_id
     OR OLD.saas_type IS DISTINCT FROM NEW.saas_type
     OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id
     OR OLD.recipient IS DISTINCT FROM NEW.recipient
     OR OLD.subject IS DISTINCT FROM NEW.subject
     OR OLD.verdict IS DISTINCT FROM NEW.verdict)
  EXECUTE FUNCTION moat_notify_message_change();
--> statement-breakpoint
CREATE TRIGGER quarantine_messages_deleted AFTER DELETE ON quarantine_messages FOR EACH ROW EXECUTE FUNCTION moat_notify_message_change();
--> statement-breakpoint
CREATE TRIGGER quarantine_messages_truncated AFTER TRUNCATE ON quarantine_messages FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
