ALTER TABLE "api_keys" ADD COLUMN "issued_by_staff_user_id" text;--> statement-breakpoint
CREATE INDEX "api_keys_issuer_idx" ON "api_keys" USING btree ("tenant_id","issued_by_staff_user_id");--> statement-breakpoint
-- Issue 76 item 1: a key issued in the console stops when its issuer's membership ends. The keys are
-- revoked in the same transaction as the removal, whoever removes it (the team procedure through the
-- sign-in library's organization plugin, an operator, a cascade from the tenant or the user, a psql
-- session): a trigger, as for the key cache (0012), because no caller can forget it. A membership turned
-- inactive is not removed (it may come back): its issuer's keys answer 401 while it is, at authentication.
-- Keys issued by operators (issued_by_staff_user_id null) are untouched.
CREATE OR REPLACE FUNCTION revoke_keys_of_removed_issuer() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE api_keys SET revoked_at = now()
  WHERE tenant_id = OLD.tenant_id AND issued_by_staff_user_id = OLD.staff_user_id AND revoked_at IS NULL;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER memberships_revoke_issuer_keys AFTER DELETE ON memberships
  FOR EACH ROW EXECUTE FUNCTION revoke_keys_of_removed_issuer();
