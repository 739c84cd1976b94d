-- Invalidation of the in-process key cache (server/services/access/key-cache.ts, DESIGN "Hot path"): every
-- change of a row the key query reads sends `NOTIFY key_cache, '<tenant id>'` from inside the changing
-- transaction, so listeners hear of it exactly when it commits and never of a change rolled back. Triggers
-- rather than calls in each writer: the console, the operator CLI, jobs, a psql session and code written
-- later cannot forget it. Columns the key query does not read and that change often (a key's last use,
-- a wallet's open holds) are passed as arguments and ignored, so those updates send nothing. A row whose
-- tenant cannot be found sends '*' (listeners drop everything), as does TRUNCATE.
CREATE OR REPLACE FUNCTION key_cache_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  r jsonb;
  t text;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('key_cache', '*');
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - TG_ARGV) = (to_jsonb(OLD) - TG_ARGV) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN r := to_jsonb(OLD); ELSE r := to_jsonb(NEW); END IF;
  t := CASE WHEN TG_TABLE_NAME = 'tenants' THEN r->>'id' ELSE r->>'tenant_id' END;
  IF t IS NULL AND r->>'integration_id' IS NOT NULL THEN
    SELECT i.tenant_id::text INTO t FROM integrations i WHERE i.id = (r->>'integration_id')::uuid;
  END IF;
  IF t IS NULL AND r->>'key_id' IS NOT NULL THEN
    SELECT k.tenant_id::text INTO t FROM api_keys k WHERE k.key_id = r->>'key_id';
  END IF;
  PERFORM pg_notify('key_cache', coalesce(t, '*'));
  -- A row moved to another tenant (not done today) leaves a stale entry with its old tenant too.
  IF TG_OP = 'UPDATE' AND TG_TABLE_NAME <> 'tenants' AND to_jsonb(OLD)->>'tenant_id' IS DISTINCT FROM t THEN
    PERFORM pg_notify('key_cache', coalesce(to_jsonb(OLD)->>'tenant_id', '*'));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER api_keys_key_cache AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION key_cache_notify('last_used_at', 'last_used_address', 'expiry_warned_30_at', 'expiry_warned_7_at');
--> statement-breakpoint
CREATE TRIGGER integrations_key_cache AFTER INSERT OR UPDATE OR DELETE ON integrations
  FOR EACH ROW EXECUTE FUNCTION key_cache_notify('updated_at');
--> statement-breakpoint
CREATE TRIGGER tenants_key_cache AFTER INSERT OR UPDATE OR DELETE ON tenants
  FOR EACH ROW EXECUTE FUNCTION key_cache_notify('updated_at');
--> statement-breakpoint
CREATE TRIGGER memberships_key_cache AFTER INSERT OR UPDATE OR DELETE ON memberships
  FOR EACH ROW EXECUTE FUNCTION key_cache_notify();
--> statement-breakpoint
CREATE TRIGGER wallets_key_cache AFTER INSERT OR UPDATE OR DELETE ON wallets
  FOR EACH ROW EXECUTE FUNCTION key_cache_notify('held_minor', 'updated_at');
--> statement-breakpoint
CREATE TRIGGER rate_limit_overrides_key_cache AFTER INSERT OR UPDATE OR DELETE ON rate_limit_overrides
  FOR EACH ROW EXECUTE FUNCTION key_cache_notify('updated_at');
--> statement-breakpoint
CREATE TRIGGER channels_key_cache AFTER INSERT OR UPDATE OR DELETE ON channels
  FOR EACH ROW EXECUTE FUNCTION key_cache_notify();
--> statement-breakpoint
CREATE TRIGGER integration_daily_spend_key_cache AFTER INSERT OR UPDATE OR DELETE ON integration_daily_spend
  FOR EACH ROW EXECUTE FUNCTION key_cache_notify();
--> statement-breakpoint
CREATE TRIGGER api_keys_key_cache_truncate AFTER TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION key_cache_notify();
--> statement-breakpoint
CREATE TRIGGER integrations_key_cache_truncate AFTER TRUNCATE ON integrations FOR EACH STATEMENT EXECUTE FUNCTION key_cache_notify();
--> statement-breakpoint
CREATE TRIGGER tenants_key_cache_truncate AFTER TRUNCATE ON tenants FOR EACH STATEMENT EXECUTE FUNCTION key_cache_notify();
--> statement-breakpoint
CREATE TRIGGER memberships_key_cache_truncate AFTER TRUNCATE ON memberships FOR EACH STATEMENT EXECUTE FUNCTION key_cache_notify();
--> statement-breakpoint
CREATE TRIGGER wallets_key_cache_truncate AFTER TRUNCATE ON wallets FOR EACH STATEMENT EXECUTE FUNCTION key_cache_notify();
--> statement-breakpoint
CREATE TRIGGER rate_limit_overrides_key_cache_truncate AFTER TRUNCATE ON rate_limit_overrides FOR EACH STATEMENT EXECUTE FUNCTION key_cache_notify();
--> statement-breakpoint
CREATE TRIGGER channels_key_cache_truncate AFTER TRUNCATE ON channels FOR EACH STATEMENT EXECUTE FUNCTION key_cache_notify();
--> statement-breakpoint
CREATE TRIGGER integration_daily_spend_key_cache_truncate AFTER TRUNCATE ON integration_daily_spend FOR EACH STATEMENT EXECUTE FUNCTION key_cache_notify();
