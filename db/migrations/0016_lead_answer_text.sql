ALTER TABLE "leads" ADD COLUMN "api_head" text;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "api_middle" text;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "api_tail" text;--> statement-breakpoint
-- Issue 22: a /leads page had PostgreSQL build each lead's JSON on every read (row_to_json of ~30 columns,
-- seven moments through to_char): about half of the page query's execution (0.58 → 0.29 ms for 26 leads
-- at 100,000 leads, EXPLAIN ANALYZE medians), on a core the app shares with PostgreSQL in the bench. The
-- lead's own fields are now written once, when the lead is written, as three texts around the two values
-- a read still adds: `etag` (a generated column, computed after this trigger runs) and `contact` (another
-- table's row, which changes without the lead). Read as
--   api_head || to_json(etag)::text || api_middle || <contact's JSON, or 'null'> || api_tail
-- (server/services/leads/lead-view.ts LEAD_SELECT). Fields, names and order are the spec's Lead; `value`
-- is money from minor units (null without a currency); moments are ISO 8601 UTC with milliseconds (the form
-- of db/iso-text.ts `isoText`, which a migration cannot import); the three sub-objects are what the
-- trigger `lead_answer_fields` wrote, which runs first (triggers of one event fire in name order).
-- `lead_answer_text` must stay the only writer of the three columns.
CREATE OR REPLACE FUNCTION lead_answer_text() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  head text;
  middle text;
  tail text;
BEGIN
  SELECT row_to_json(r)::text INTO head FROM (SELECT NEW.id AS id, NEW.external_id AS external_id,
    NEW.external_url AS external_url, NEW.version AS version) r;
  SELECT row_to_json(r)::text INTO middle FROM (SELECT NEW.status AS status, NEW.archived AS archived,
    NEW.archived_reason AS archived_reason, NEW.owner AS owner, NEW.title AS title, NEW.source AS source,
    NEW.assigned_to AS assigned_to, NEW.product_id AS product_id, NEW.course_slug AS course_slug,
    NEW.conversation_id AS conversation_id, NEW.intent AS intent, NEW.ai_summary AS ai_summary,
    NEW.next_action AS next_action, NEW.lost_reason AS lost_reason,
    CASE WHEN NEW.value_minor IS NOT NULL AND NEW.value_currency <> '' THEN (SELECT row_to_json(v) FROM (SELECT
      (NEW.value_minor::numeric * 0.01)::text AS amount, NEW.value_currency AS currency) v) END AS value) r;
  SELECT row_to_json(r)::text INTO tail FROM (SELECT NEW.attribution_api AS attribution,
    NEW.score_api AS score, NEW.flags_api AS flags,
    to_char(NEW.next_action_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS next_action_at,
    to_char(NEW.qualified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS qualified_at,
    to_char(NEW.won_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS won_at,
    to_char(NEW.lost_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS lost_at,
    to_char(NEW.last_activity_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_activity_at,
    to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
    to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at) r;
  NEW.api_head := left(head, -1) || ',"etag":';
  NEW.api_middle := ',' || substr(middle, 2, length(middle) - 2) || ',"contact":';
  NEW.api_tail := ',' || substr(tail, 2);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER lead_answer_text BEFORE INSERT OR UPDATE ON leads FOR EACH ROW EXECUTE FUNCTION lead_answer_text();
--> statement-breakpoint
UPDATE leads SET api_head = NULL;
