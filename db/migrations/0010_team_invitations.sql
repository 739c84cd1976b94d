CREATE TABLE "staff_invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" text,
	"rights" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"inviter_id" text
);
--> statement-breakpoint
ALTER TABLE "staff_sessions" ADD COLUMN "active_organization_id" text;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "id" text DEFAULT gen_random_uuid()::text NOT NULL;--> statement-breakpoint
ALTER TABLE "staff_invitations" ADD CONSTRAINT "staff_invitations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "staff_invitations" ADD CONSTRAINT "staff_invitations_inviter_id_staff_users_id_fk" FOREIGN KEY ("inviter_id") REFERENCES "public"."staff_users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "staff_invitations_tenant_idx" ON "staff_invitations" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "staff_invitations_email_idx" ON "staff_invitations" USING btree ("email");--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_id_unique" UNIQUE("id");--> statement-breakpoint
-- Owners managed everything before the manage_team right existed; they keep managing their team.
UPDATE "memberships" SET "rights" = array_append("rights", 'manage_team') WHERE "role" = 'owner' AND NOT ('manage_team' = ANY("rights"));
