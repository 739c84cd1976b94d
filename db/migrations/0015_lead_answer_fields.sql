ALTER TABLE "leads" ADD COLUMN "attribution_api" json;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "score_api" json;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "flags_api" json;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "etag" text GENERATED ALWAYS AS ('"' || version::text || '-' || left(translate(encode(sha256((id::text || ':' || version::text)::bytea), 'base64'), '+/', '-_'), 22) || '"') STORED NOT NULL;--> statement-breakpoint
-- Issue 22: a /leads page used to read each lead's three jsonb sub-objects field by field in the app, and
-- hash its etag there, on every read (about a tenth of the page's app time). They are now made once, when
-- a lead is written: `etag` above is a generated column, and the trigger below writes `attribution_api`,
-- `score_api` and `flags_api`, the sub-objects as the API answers them (spec "Lead"). The rules are the
-- ones the app applied: a stored value that is JSON null, false, 0 or "" answers null; any other value
-- answers the documented object, each field read by its documented type and null otherwise (strings,
-- booleans, a finite number, an array keeping only its strings, a moment), extra keys dropped, keys in
-- the spec's order. `lead_answer_fields` must stay the only writer of the three columns.
CREATE OR REPLACE FUNCTION lead_answer_present(v jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT v IS NOT NULL AND v NOT IN ('null'::jsonb, 'false'::jsonb, '""'::jsonb)
    AND NOT (jsonb_typeof(v) = 'number' AND (v #>> '{}')::numeric = 0)
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION lead_answer_text(v jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'string' THEN v #>> '{}' END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION lead_answer_boolean(v jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'boolean' THEN (v #>> '{}')::boolean END
$$;
--> statement-breakpoint
-- A JSON number that is a finite double (what the API's number is), else null. The handler's block (a
-- subtransaction) is entered for numbers only.
CREATE OR REPLACE FUNCTION lead_answer_number(v jsonb) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF jsonb_typeof(v) IS DISTINCT FROM 'number' THEN RETURN NULL; END IF;
  BEGIN
    RETURN (v #>> '{}')::double precision;
  EXCEPTION WHEN numeric_value_out_of_range THEN
    -- Beyond a double's range: too large is no finite number; too small is the double 0.
    RETURN CASE WHEN abs((v #>> '{}')::numeric) < 1 THEN 0 END;
  END;
END $$;
--> statement-breakpoint
-- A moment stored as text → ISO 8601 UTC with milliseconds (the API's moments: the form of db/iso-text.ts
-- `isoText`, which a migration cannot import), else null: a text that starts with a digit (ISO 8601 and
-- other numeric forms; not PostgreSQL's words such as 'now' or 'epoch') and that PostgreSQL reads as a
-- finite timestamptz.
CREATE OR REPLACE FUNCTION lead_answer_moment(v jsonb) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  t timestamptz;
BEGIN
  IF jsonb_typeof(v) IS DISTINCT FROM 'string' OR (v #>> '{}') !~ '^\s*[0-9]' THEN RETURN NULL; END IF;
  BEGIN
    t := (v #>> '{}')::timestamptz;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END;
  IF NOT isfinite(t) THEN RETURN NULL; END IF;
  RETURN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION lead_answer_fields() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  a jsonb := NEW.attribution;
  s jsonb := NEW.score;
  f jsonb := NEW.flags;
BEGIN
  NEW.attribution_api := CASE WHEN lead_answer_present(a) THEN (SELECT row_to_json(r) FROM (SELECT
    lead_answer_text(a -> 'utm_source') AS utm_source, lead_answer_text(a -> 'utm_medium') AS utm_medium,
    lead_answer_text(a -> 'utm_campaign') AS utm_campaign, lead_answer_text(a -> 'first_page') AS first_page,
    lead_answer_text(a -> 'referrer') AS referrer) r) END;
  NEW.score_api := CASE WHEN lead_answer_present(s) THEN (SELECT row_to_json(r) FROM (SELECT
    lead_answer_number(s -> 'score') AS score, lead_answer_text(s -> 'grade') AS grade,
    lead_answer_text(s -> 'reason') AS reason,
    CASE WHEN jsonb_typeof(s -> 'flags') = 'array' THEN ARRAY(
      SELECT e #>> '{}' FROM jsonb_array_elements(s -> 'flags') WITH ORDINALITY x(e, n)
      WHERE jsonb_typeof(e) = 'string' ORDER BY n) END AS flags,
    lead_answer_text(s -> 'source') AS source, lead_answer_text(s -> 'model') AS model,
    lead_answer_moment(s -> 'scored_at') AS scored_at) r) END;
  NEW.flags_api := CASE WHEN lead_answer_present(f) THEN (SELECT row_to_json(r) FROM (SELECT
    lead_answer_boolean(f -> 'buy_intent') AS buy_intent, lead_answer_boolean(f -> 'support') AS support,
    lead_answer_boolean(f -> 'supplier') AS supplier) r) END;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER lead_answer_fields BEFORE INSERT OR UPDATE OF attribution, score, flags ON leads
  FOR EACH ROW EXECUTE FUNCTION lead_answer_fields();
--> statement-breakpoint
UPDATE leads SET attribution = attribution WHERE attribution IS NOT NULL OR score IS NOT NULL OR flags IS NOT NULL;
