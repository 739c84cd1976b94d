-- Rate limiting for a batch of requests in one round trip (issue 22 item 2: the PostgreSQL store batches
-- the takes of concurrent requests, server/services/limits/pg-limit-store.ts). Same accounting as
-- rate_limit_take (0002), applied to each request in order: a request counts in all of its buckets or in
-- none, and sees the counts left by the requests before it in the batch. Entry k is bucket p_buckets[k]
-- with limit p_limits[k] of request p_requests[k]; a request's entries are adjacent. The batch's distinct
-- bucket rows are locked in bucket order (as in 0002, so concurrent callers cannot deadlock) and each
-- is written once.
CREATE OR REPLACE FUNCTION rate_limit_take_many(p_requests integer[], p_buckets text[], p_limits integer[], p_window bigint, p_weight double precision)
RETURNS TABLE(o_request integer, o_bucket text, o_current integer, o_previous integer, o_allowed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  n integer := coalesce(array_length(p_buckets, 1), 0);
  names text[];
  cur integer[];
  prev integer[];
  before integer[];
  idx integer[];
  out_cur integer[];
  out_ok boolean[];
  i integer := 1;
  j integer;
  e integer;
  ok boolean;
BEGIN
  IF n = 0 THEN RETURN; END IF;
  SELECT array_agg(d.b ORDER BY d.b) INTO names FROM (SELECT DISTINCT unnest(p_buckets) AS b) d;
  INSERT INTO rate_counters (bucket, window_start, count)
    SELECT b, p_window, 0 FROM unnest(names) AS b ORDER BY b
    ON CONFLICT DO NOTHING;
  PERFORM 1 FROM rate_counters
    WHERE bucket = ANY(names) AND window_start = p_window
    ORDER BY bucket FOR UPDATE;
  SELECT array_agg(coalesce(c.count, 0) ORDER BY u.ord), array_agg(coalesce(pw.count, 0) ORDER BY u.ord)
    INTO cur, prev
    FROM unnest(names) WITH ORDINALITY AS u(b, ord)
    LEFT JOIN rate_counters c ON c.bucket = u.b AND c.window_start = p_window
    LEFT JOIN rate_counters pw ON pw.bucket = u.b AND pw.window_start = p_window - 60;
  before := cur;
  SELECT array_agg(array_position(names, u.b) ORDER BY u.ord) INTO idx
    FROM unnest(p_buckets) WITH ORDINALITY AS u(b, ord);
  out_cur := array_fill(0, ARRAY[n]);
  out_ok := array_fill(false, ARRAY[n]);
  WHILE i <= n LOOP
    j := i;
    WHILE j < n AND p_requests[j + 1] = p_requests[i] LOOP j := j + 1; END LOOP;
    ok := true;
    FOR e IN i .. j LOOP
      IF prev[idx[e]] * p_weight + cur[idx[e]] + 1 > p_limits[e] THEN ok := false; END IF;
    END LOOP;
    FOR e IN i .. j LOOP
      IF ok THEN cur[idx[e]] := cur[idx[e]] + 1; END IF;
      out_cur[e] := cur[idx[e]];
      out_ok[e] := ok;
    END LOOP;
    i := j + 1;
  END LOOP;
  UPDATE rate_counters rc SET count = u.c
    FROM unnest(names, cur, before) AS u(b, c, s)
    WHERE rc.bucket = u.b AND rc.window_start = p_window AND u.c <> u.s;
  IF random() < 0.002 THEN
    DELETE FROM rate_counters WHERE window_start < p_window - 120;
  END IF;
  RETURN QUERY SELECT p_requests[g.x], p_buckets[g.x], out_cur[g.x], prev[idx[g.x]], out_ok[g.x]
    FROM generate_subscripts(p_buckets, 1) AS g(x);
END;
$$;
