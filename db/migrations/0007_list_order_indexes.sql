DROP INDEX "articles_tenant_updated_idx";--> statement-breakpoint
DROP INDEX "strategist_topics_tenant_idx";--> statement-breakpoint
CREATE INDEX "strategist_actions_tenant_idx" ON "strategist_actions" USING btree ("tenant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "articles_tenant_updated_idx" ON "articles" USING btree ("tenant_id","updated_at" DESC NULLS LAST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "strategist_topics_tenant_idx" ON "strategist_topics" USING btree ("tenant_id","trend_score" DESC NULLS LAST,"id" DESC NULLS FIRST);