-- What a tenant starts with (SaaS Applications and Security Engines of the console): SMTP mail
-- protected by the gateway's three engines. Tenants made before this get the same where they
-- have no state of their own for them; a state set by an operator is kept.
INSERT INTO "saas_apps" ("tenant_id", "name", "state")
SELECT "id", 'smtp_emails', 'enabled' FROM "tenants"
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "security_tools" ("tenant_id", "name", "state")
SELECT t."id", tool."name", 'enabled'
FROM "tenants" t CROSS JOIN (VALUES ('anti_malware'), ('ap_avanan'), ('anti_spam')) AS tool("name")
ON CONFLICT DO NOTHING;--> statement-breakpoint
-- The gateway skips an engine its tenant turned off, and caches which: writes are announced (0011).
CREATE TRIGGER security_tools_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON security_tools FOR EACH STATEMENT EXECUTE FUNCTION moat_notify_change();
