ALTER TABLE "api_keys" ADD COLUMN "expiry_warned_30_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expiry_warned_7_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING btree ("created_at");