ALTER TABLE "staff_invitations" ADD COLUMN "secret_hash" text;--> statement-breakpoint
ALTER TABLE "staff_invitations" ADD CONSTRAINT "staff_invitations_secret_hash_unique" UNIQUE("secret_hash");