CREATE TABLE "crm_status_maps" (
	"tenant_id" uuid NOT NULL,
	"livemode" boolean DEFAULT true NOT NULL,
	"map" jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "crm_status_maps_tenant_id_livemode_pk" PRIMARY KEY("tenant_id","livemode")
);
--> statement-breakpoint
CREATE TABLE "lead_changes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"livemode" boolean DEFAULT true NOT NULL,
	"lead_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"kind" text NOT NULL,
	"fields" text[] NOT NULL,
	"from_status" text,
	"to_status" text,
	"actor" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lead_scores" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"livemode" boolean DEFAULT true NOT NULL,
	"lead_id" uuid NOT NULL,
	"integration_id" uuid,
	"staff_user_id" text,
	"console_key" text,
	"operation_id" uuid,
	"score" integer NOT NULL,
	"grade" text NOT NULL,
	"reason" text NOT NULL,
	"flags" jsonb NOT NULL,
	"features" jsonb NOT NULL,
	"source" text NOT NULL,
	"model" text NOT NULL,
	"cost_minor" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "crm_status_maps" ADD CONSTRAINT "crm_status_maps_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_changes" ADD CONSTRAINT "lead_changes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_changes" ADD CONSTRAINT "lead_changes_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_scores" ADD CONSTRAINT "lead_scores_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lead_scores" ADD CONSTRAINT "lead_scores_lead_id_leads_id_fk" FOREIGN KEY ("lead_id") REFERENCES "public"."leads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lead_changes_lead_idx" ON "lead_changes" USING btree ("tenant_id","livemode","lead_id","version");--> statement-breakpoint
CREATE INDEX "lead_scores_lead_idx" ON "lead_scores" USING btree ("tenant_id","livemode","lead_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "lead_scores_console_key_idx" ON "lead_scores" USING btree ("tenant_id","livemode","lead_id","staff_user_id","console_key") WHERE console_key is not null;--> statement-breakpoint
ALTER TABLE "operations" ALTER COLUMN "integration_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "operations" ADD COLUMN "staff_user_id" text;--> statement-breakpoint
CREATE INDEX "operations_staff_day_idx" ON "operations" USING btree ("tenant_id","livemode","completed_at") WHERE staff_user_id is not null;--> statement-breakpoint
ALTER TABLE "operations" ADD CONSTRAINT "operations_one_starter" CHECK (("operations"."integration_id" is null) <> ("operations"."staff_user_id" is null));