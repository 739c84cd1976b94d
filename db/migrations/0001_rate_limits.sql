CREATE TABLE "rate_counters" (
	"bucket" text NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "rate_counters_bucket_window_start_pk" PRIMARY KEY("bucket","window_start")
);
--> statement-breakpoint
CREATE TABLE "rate_limit_overrides" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"key_id" text,
	"read_per_min" integer,
	"write_per_min" integer,
	"paid_per_min" integer,
	"paid_concurrency" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rate_limit_overrides_tenant_id_unique" UNIQUE("tenant_id"),
	CONSTRAINT "rate_limit_overrides_key_id_unique" UNIQUE("key_id"),
	CONSTRAINT "rate_limit_overrides_one_target" CHECK (("rate_limit_overrides"."tenant_id" is null) <> ("rate_limit_overrides"."key_id" is null))
);
--> statement-breakpoint
ALTER TABLE "rate_limit_overrides" ADD CONSTRAINT "rate_limit_overrides_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;