CREATE TABLE "webhook_delivery_attempts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"livemode" boolean DEFAULT true NOT NULL,
	"delivery_id" uuid NOT NULL,
	"attempted_at" timestamp (3) with time zone NOT NULL,
	"duration_ms" integer,
	"response_status" integer,
	"response_headers" jsonb,
	"response_body" text,
	"error" text
);
--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "paused_reason" text;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "failing_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "replayed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_delivery_attempts_delivery_idx" ON "webhook_delivery_attempts" USING btree ("delivery_id","attempted_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_in_flight_idx" ON "webhook_deliveries" USING btree ("subscription_id","locked_until") WHERE locked_until is not null;