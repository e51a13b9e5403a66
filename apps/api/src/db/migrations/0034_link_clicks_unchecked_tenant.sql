-- Click records (issue 36) are written at the pace of clicks, many rows in one statement. The
-- foreign key's check ran once per row and was half the cost of a click's record in the embedded
-- database (25 of 45 µs). The statement keeps only clicks of tenants that exist (one join per
-- statement, click-time.repo.ts), and a tenant's deletion still takes its clicks with it.
ALTER TABLE "link_clicks" DROP CONSTRAINT "link_clicks_tenant_id_tenants_id_fk";--> statement-breakpoint
CREATE FUNCTION moat_delete_tenant_clicks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM link_clicks WHERE tenant_id = OLD.id;
  RETURN OLD;
END $$;--> statement-breakpoint
CREATE TRIGGER tenants_delete_clicks AFTER DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION moat_delete_tenant_clicks();
