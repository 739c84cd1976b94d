-- Sliding-window rate limiting in one round trip (DESIGN "Decisions": two fixed 60 s windows, the
-- previous one weighted by the part of it still inside the sliding minute). All buckets of a request
-- (its key and its tenant) are checked and counted together: either every counter takes the request or
-- none does. Rows are locked in bucket order, so concurrent callers cannot deadlock.
CREATE OR REPLACE FUNCTION rate_limit_take(p_buckets text[], p_limits integer[], p_window bigint, p_weight double precision)
RETURNS TABLE(o_bucket text, o_current integer, o_previous integer, o_allowed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  n integer := array_length(p_buckets, 1);
  cur integer[] := '{}';
  prev integer[] := '{}';
  c integer;
  p integer;
  ok boolean := true;
BEGIN
  INSERT INTO rate_counters (bucket, window_start, count)
    SELECT b, p_window, 0 FROM unnest(p_buckets) AS b ORDER BY b
    ON CONFLICT DO NOTHING;
  PERFORM 1 FROM rate_counters
    WHERE bucket = ANY(p_buckets) AND window_start = p_window
    ORDER BY bucket FOR UPDATE;
  FOR i IN 1 .. n LOOP
    SELECT count INTO c FROM rate_counters WHERE bucket = p_buckets[i] AND window_start = p_window;
    SELECT coalesce(max(count), 0) INTO p FROM rate_counters WHERE bucket = p_buckets[i] AND window_start = p_window - 60;
    cur := cur || c;
    prev := prev || p;
    IF p * p_weight + c + 1 > p_limits[i] THEN ok := false; END IF;
  END LOOP;
  IF ok THEN
    UPDATE rate_counters SET count = count + 1 WHERE bucket = ANY(p_buckets) AND window_start = p_window;
    FOR i IN 1 .. n LOOP cur[i] := cur[i] + 1; END LOOP;
  END IF;
  IF random() < 0.002 THEN
    DELETE FROM rate_counters WHERE window_start < p_window - 120;
  END IF;
  RETURN QUERY SELECT p_buckets[i], cur[i], prev[i], ok FROM generate_subscripts(p_buckets, 1) AS i;
END;
$$;
