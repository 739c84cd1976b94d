ALTER TABLE "tenants" ADD COLUMN "previews" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "ai_enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "wallet_ledger" ADD COLUMN "hold_minor" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "wallet_ledger" ADD COLUMN "operation_id" uuid;--> statement-breakpoint
ALTER TABLE "wallets" ADD COLUMN "held_minor" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "wallets" ADD COLUMN "daily_spend_limit_minor" bigint;--> statement-breakpoint
ALTER TABLE "wallets" ADD COLUMN "max_operation_cost_minor" bigint DEFAULT 10000 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "ai_reply_status" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "ai_reply_reason" text;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "conversation_id" uuid;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "message_id" uuid;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "channel_id" uuid;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "hold_minor" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "hold_open" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "charged_minor" bigint;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "locked_until" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "deadline_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "conversations_channel_customer_idx" ON "conversations" USING btree ("channel_id","external_customer_id");--> statement-breakpoint
CREATE INDEX "operations_message_idx" ON "operations" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "operations_channel_day_idx" ON "operations" USING btree ("channel_id","created_at");--> statement-breakpoint
CREATE INDEX "operations_open_idx" ON "operations" USING btree ("tenant_id","status") WHERE status in ('queued', 'running');