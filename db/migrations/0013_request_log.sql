CREATE TABLE "request_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "request_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"created_at" timestamp (3) with time zone NOT NULL,
	"tenant_id" uuid,
	"integration_id" uuid,
	"api_key_id" uuid,
	"key_id" text,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"status" smallint NOT NULL,
	"problem_code" text,
	"latency_ms" real NOT NULL,
	"request_id" text NOT NULL,
	"caller_address" text
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "last_used_address" text;--> statement-breakpoint
CREATE INDEX "request_log_tenant_created_idx" ON "request_log" USING btree ("tenant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "request_log_tenant_integration_idx" ON "request_log" USING btree ("tenant_id","integration_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "request_log_tenant_request_idx" ON "request_log" USING btree ("tenant_id","request_id");--> statement-breakpoint
CREATE INDEX "request_log_created_brin" ON "request_log" USING brin ("created_at");