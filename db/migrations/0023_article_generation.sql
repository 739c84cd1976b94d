CREATE TABLE "editorial_profiles" (
	"tenant_id" uuid NOT NULL,
	"livemode" boolean DEFAULT true NOT NULL,
	"niche" text,
	"audience" text,
	"tone" text,
	"presentation" text,
	"topic_sources" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"source_urls" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"avoid" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"example_text" text,
	"locale" text,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "editorial_profiles_tenant_id_livemode_pk" PRIMARY KEY("tenant_id","livemode")
);
--> statement-breakpoint
CREATE TABLE "generation_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"livemode" boolean DEFAULT true NOT NULL,
	"operation_id" uuid NOT NULL,
	"integration_id" uuid,
	"staff_user_id" text,
	"console_key" text,
	"topic_id" uuid,
	"topic_previous_status" text,
	"keyword" text,
	"title" text,
	"locale" text,
	"target_words" integer NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"article_id" uuid,
	"error" jsonb,
	"usage" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "editorial_profiles" ADD CONSTRAINT "editorial_profiles_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD CONSTRAINT "generation_jobs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD CONSTRAINT "generation_jobs_operation_id_operations_id_fk" FOREIGN KEY ("operation_id") REFERENCES "public"."operations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD CONSTRAINT "generation_jobs_topic_id_strategist_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."strategist_topics"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD CONSTRAINT "generation_jobs_article_id_articles_id_fk" FOREIGN KEY ("article_id") REFERENCES "public"."articles"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generation_jobs_tenant_idx" ON "generation_jobs" USING btree ("tenant_id","livemode","created_at");--> statement-breakpoint
CREATE INDEX "generation_jobs_operation_idx" ON "generation_jobs" USING btree ("operation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "generation_jobs_console_key_idx" ON "generation_jobs" USING btree ("tenant_id","staff_user_id","console_key");--> statement-breakpoint
-- Article generations now run on the operation engine (issue 72). The demo seeded an `article.generation`
-- operation left `running` with no job and no hold; the engine would claim it and count it against the paid
-- limits. Such rows are settled here as failed, once.
UPDATE "operations" SET "status" = 'failed', "completed_at" = now(), "locked_until" = NULL,
  "error" = '{"code":"not_found","message":"This operation has no generation job."}'::jsonb
WHERE "type" = 'article.generation' AND "status" IN ('queued', 'running') AND NOT "hold_open";
