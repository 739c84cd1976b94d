DROP INDEX "wallet_ledger_tenant_idx";--> statement-breakpoint
DROP INDEX "products_tenant_code_uq";--> statement-breakpoint
DROP INDEX "products_cards_order_idx";--> statement-breakpoint
DROP INDEX "idempotency_scope_uq";--> statement-breakpoint
DROP INDEX "contacts_tenant_idx";--> statement-breakpoint
DROP INDEX "conversations_tenant_updated_idx";--> statement-breakpoint
DROP INDEX "messages_tenant_idx";--> statement-breakpoint
DROP INDEX "leads_tenant_updated_idx";--> statement-breakpoint
DROP INDEX "articles_tenant_updated_idx";--> statement-breakpoint
DROP INDEX "strategist_actions_tenant_idx";--> statement-breakpoint
DROP INDEX "strategist_reports_tenant_idx";--> statement-breakpoint
DROP INDEX "strategist_topics_tenant_idx";--> statement-breakpoint
DROP INDEX "disclosures_tenant_idx";--> statement-breakpoint
DROP INDEX "events_tenant_idx";--> statement-breakpoint
DROP INDEX "webhook_subscriptions_tenant_idx";--> statement-breakpoint
DROP INDEX "payments_tenant_idx";--> statement-breakpoint
DROP INDEX "request_log_tenant_created_idx";--> statement-breakpoint
DROP INDEX "request_log_tenant_integration_idx";--> statement-breakpoint
ALTER TABLE "integration_daily_spend" DROP CONSTRAINT "integration_daily_spend_integration_id_day_pk";--> statement-breakpoint
ALTER TABLE "dashboard_blocks" DROP CONSTRAINT "dashboard_blocks_tenant_id_block_pk";--> statement-breakpoint
ALTER TABLE "wallets" DROP CONSTRAINT "wallets_pkey";--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "sandbox_seeded_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "integration_daily_spend" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "wallet_ledger" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "wallets" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_records" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "message_attachments" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "articles" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "strategist_actions" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "strategist_reports" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "strategist_sessions" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "strategist_topics" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_blocks" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "disclosures" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "livemode" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "integration_daily_spend" ADD CONSTRAINT "integration_daily_spend_integration_id_livemode_day_pk" PRIMARY KEY("integration_id","livemode","day");--> statement-breakpoint
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_tenant_id_livemode_pk" PRIMARY KEY("tenant_id","livemode");--> statement-breakpoint
ALTER TABLE "dashboard_blocks" ADD CONSTRAINT "dashboard_blocks_tenant_id_livemode_block_pk" PRIMARY KEY("tenant_id","livemode","block");--> statement-breakpoint
CREATE INDEX "wallet_ledger_tenant_idx" ON "wallet_ledger" USING btree ("tenant_id","livemode","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "products_tenant_code_uq" ON "products" USING btree ("tenant_id","livemode","code") WHERE code is not null;--> statement-breakpoint
CREATE INDEX "products_cards_order_idx" ON "products" USING btree ("tenant_id","livemode","sort","created_at","id") WHERE code is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_scope_uq" ON "idempotency_records" USING btree ("tenant_id","livemode","key_mode","scope","idempotency_key");--> statement-breakpoint
CREATE INDEX "contacts_tenant_idx" ON "contacts" USING btree ("tenant_id","livemode");--> statement-breakpoint
CREATE INDEX "conversations_tenant_updated_idx" ON "conversations" USING btree ("tenant_id","livemode","updated_at","id");--> statement-breakpoint
CREATE INDEX "messages_tenant_idx" ON "messages" USING btree ("tenant_id","livemode","created_at");--> statement-breakpoint
CREATE INDEX "leads_tenant_updated_idx" ON "leads" USING btree ("tenant_id","livemode","archived","updated_at","id");--> statement-breakpoint
CREATE INDEX "articles_tenant_updated_idx" ON "articles" USING btree ("tenant_id","livemode","updated_at" DESC NULLS LAST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "strategist_actions_tenant_idx" ON "strategist_actions" USING btree ("tenant_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "strategist_reports_tenant_idx" ON "strategist_reports" USING btree ("tenant_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "strategist_topics_tenant_idx" ON "strategist_topics" USING btree ("tenant_id","livemode","trend_score" DESC NULLS LAST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "disclosures_tenant_idx" ON "disclosures" USING btree ("tenant_id","livemode","created_at");--> statement-breakpoint
CREATE INDEX "events_tenant_idx" ON "events" USING btree ("tenant_id","livemode","created_at");--> statement-breakpoint
CREATE INDEX "webhook_subscriptions_tenant_idx" ON "webhook_subscriptions" USING btree ("tenant_id","livemode");--> statement-breakpoint
CREATE INDEX "payments_tenant_idx" ON "payments" USING btree ("tenant_id","livemode","created_at","id");--> statement-breakpoint
CREATE INDEX "request_log_tenant_created_idx" ON "request_log" USING btree ("tenant_id","livemode","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "request_log_tenant_integration_idx" ON "request_log" USING btree ("tenant_id","livemode","integration_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);
