ALTER TABLE "products" ADD COLUMN "api_json" text;--> statement-breakpoint
-- Issue 22: a cards page had PostgreSQL build each card's JSON on every read (row_to_json of a lateral row of
-- 16 columns, two moments through to_char). On the embedded database, where PostgreSQL runs in the app's own
-- thread, that was about 150 µs of a 10-card page's query against about 400 µs for the same query selecting
-- ids (PGlite, one query at a time). The card's JSON record is now written once, when the row is written, and
-- a read selects it (server/services/cards/card-view.ts CARD_JSON). Its fields, names and order are those the
-- read used to build: the spec's Card in its order, then `price_minor` (text, exact beyond 2^53) and
-- `currency`, which the app's cardText cuts off; moments are ISO 8601 UTC with milliseconds (the form of
-- db/iso-text.ts `isoText`, which a migration cannot import). `card_answer_text` must stay the only writer
-- of `api_json`.
CREATE OR REPLACE FUNCTION card_answer_text() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  SELECT row_to_json(r)::text INTO NEW.api_json FROM (SELECT NEW.id AS id, NEW.code AS code, NEW.name AS name,
    NEW.description AS description, NEW.image_url AS image_url, NEW.price_text AS price_text,
    NEW.badge AS badge, NEW.page_url AS page_url, NEW.buttons AS buttons, NEW.ai_enabled AS ai_enabled,
    NEW.sort AS sort, NEW.active AS active,
    to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
    to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at,
    NEW.price_minor::text AS price_minor, NEW.currency AS currency) r;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER card_answer_text BEFORE INSERT OR UPDATE ON products FOR EACH ROW EXECUTE FUNCTION card_answer_text();
--> statement-breakpoint
UPDATE products SET api_json = NULL;
