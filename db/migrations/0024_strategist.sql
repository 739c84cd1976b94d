CREATE TABLE "strategist_turns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"livemode" boolean DEFAULT true NOT NULL,
	"session_id" uuid NOT NULL,
	"operation_id" uuid NOT NULL,
	"console_key" text,
	"content" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"reply" text,
	"usage" jsonb,
	"error" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "strategist_actions" ADD COLUMN "turn_id" uuid;--> statement-breakpoint
ALTER TABLE "strategist_actions" ADD COLUMN "proposal" jsonb;--> statement-breakpoint
ALTER TABLE "strategist_turns" ADD CONSTRAINT "strategist_turns_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "strategist_turns" ADD CONSTRAINT "strategist_turns_session_id_strategist_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."strategist_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "strategist_turns" ADD CONSTRAINT "strategist_turns_operation_id_operations_id_fk" FOREIGN KEY ("operation_id") REFERENCES "public"."operations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "strategist_turns_session_idx" ON "strategist_turns" USING btree ("session_id","created_at","id");--> statement-breakpoint
CREATE INDEX "strategist_turns_operation_idx" ON "strategist_turns" USING btree ("operation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "strategist_turns_one_open_idx" ON "strategist_turns" USING btree ("session_id") WHERE "strategist_turns"."status" in ('queued', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "strategist_turns_console_key_idx" ON "strategist_turns" USING btree ("session_id","console_key");--> statement-breakpoint
ALTER TABLE "strategist_actions" ADD CONSTRAINT "strategist_actions_turn_id_strategist_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."strategist_turns"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Strategist turns now run on the operation engine (issue 73). The demo seeded a `strategist.turn`
-- operation left `running` with no turn and no hold; the engine would claim it and count it against the
-- paid limits. Such rows are settled here as failed, once.
UPDATE "operations" SET "status" = 'failed', "completed_at" = now(), "locked_until" = NULL,
  "error" = '{"code":"not_found","message":"This operation has no strategist turn."}'::jsonb
WHERE "type" = 'strategist.turn' AND "status" IN ('queued', 'running') AND NOT "hold_open";
