-- scripts/bench_setup.sql
--
-- Helpers of "make bench" (scripts/bench_server.sh), in schema bench.  Every time is taken
-- inside the server with clock_timestamp() around a PL/pgSQL EXECUTE of the statement: the
-- statement is planned and run as a client's would be (parallel plans included), its result
-- is one boolean or integer, and nothing travels to the client.  The overhead (a few
-- microseconds) is the same for both sides of a comparison.

CREATE SCHEMA bench;

-- every timed run, for the record
CREATE TABLE bench.runs (
	comparison text,
	rep int,
	side text,
	ms float8
);

-- Puts settings ('name=value,name=value', may be empty) in force until the end of the
-- transaction; returns the names and the values they had, for bench.restore_settings.
CREATE FUNCTION bench.apply_settings(settings text, OUT names text[], OUT saved text[])
LANGUAGE plpgsql AS $$
DECLARE
	kv text;
BEGIN
	names := '{}';
	saved := '{}';
	IF coalesce(settings, '') <> '' THEN
		FOREACH kv IN ARRAY string_to_array(settings, ',') LOOP
			names := names || trim(split_part(kv, '=', 1));
			saved := saved || current_setting(trim(split_part(kv, '=', 1)));
			PERFORM set_config(trim(split_part(kv, '=', 1)), trim(split_part(kv, '=', 2)), true);
		END LOOP;
	END IF;
END
$$;

-- Sets names[i] back to saved[i] (what bench.apply_settings returned).
CREATE FUNCTION bench.restore_settings(names text[], saved text[])
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. coalesce(array_length(names, 1), 0) LOOP
		PERFORM set_config(names[i], saved[i], true);
	END LOOP;
END
$$;

-- Runs q once with settings (as bench.apply_settings takes them) in force for it alone;
-- returns the milliseconds it took.
CREATE FUNCTION bench.time_once(q text, settings text)
RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	s record;
	t0 timestamptz;
	ms float8;
	result text;
BEGIN
	SELECT * INTO s FROM bench.apply_settings(settings);
	t0 := clock_timestamp();
	EXECUTE q INTO result;
	ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
	PERFORM bench.restore_settings(s.names, s.saved);
	RETURN ms;
END
$$;

-- EXPLAIN ANALYZE of q under settings: the warm-up run of a comparison.  Returns the
-- parallel workers launched (summed over Gather nodes).  A q that is itself an EXPLAIN
-- (a comparison of planning times) is run as it is, and launches none.
CREATE FUNCTION bench.workers_launched(q text, settings text)
RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	s record;
	plan text;
	launched int;
BEGIN
	SELECT * INTO s FROM bench.apply_settings(settings);
	IF q ~* '^\s*explain\M' THEN
		EXECUTE q INTO plan;
		PERFORM bench.restore_settings(s.names, s.saved);
		RETURN 0;
	END IF;
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, FORMAT JSON) ' || q INTO plan;
	PERFORM bench.restore_settings(s.names, s.saved);
	SELECT coalesce(sum(w::text::int), 0) INTO launched
	FROM jsonb_path_query(plan::jsonb,
		'strict $.** ? (exists (@."Workers Launched"))."Workers Launched"') AS w;
	RETURN launched;
END
$$;

-- A against B: one untimed warm-up of each, then reps pairs, alternating which side goes
-- first (AB, BA, AB, ...).  Medians of A and of B, and the median of the per-pair ratios.
CREATE FUNCTION bench.compare(name text, qa text, qb text, reps int,
	settings_a text DEFAULT '', settings_b text DEFAULT '',
	OUT a_ms float8, OUT b_ms float8, OUT ratio float8,
	OUT a_workers int, OUT b_workers int)
LANGUAGE plpgsql AS $$
DECLARE
	ta float8;
	tb float8;
	ratios float8[] := '{}';
	i int;
BEGIN
	a_workers := bench.workers_launched(qa, settings_a);
	b_workers := bench.workers_launched(qb, settings_b);
	FOR i IN 1 .. reps LOOP
		IF i % 2 = 1 THEN
			ta := bench.time_once(qa, settings_a);
			tb := bench.time_once(qb, settings_b);
		ELSE
			tb := bench.time_once(qb, settings_b);
			ta := bench.time_once(qa, settings_a);
		END IF;
		INSERT INTO bench.runs VALUES (name, i, 'A', ta), (name, i, 'B', tb);
		ratios := ratios || ta / tb;
	END LOOP;
	SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) INTO a_ms
	FROM bench.runs r WHERE r.comparison = name AND side = 'A';
	SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) INTO b_ms
	FROM bench.runs r WHERE r.comparison = name AND side = 'B';
	SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) INTO ratio FROM unnest(ratios) AS v;
END
$$;

-- Median milliseconds of reps runs of q (after one untimed run)
CREATE FUNCTION bench.median_ms(q text, reps int, settings text DEFAULT '')
RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	times float8[] := '{}';
	i int;
BEGIN
	PERFORM bench.time_once(q, settings);
	FOR i IN 1 .. reps LOOP
		times := times || bench.time_once(q, settings);
	END LOOP;
	RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(times) AS v);
END
$$;

-- The row estimate of the scan of urls in q's plan
CREATE FUNCTION bench.estimated_rows(q text)
RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	plan text;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	RETURN jsonb_path_query_first(plan::jsonb,
		'strict $.** ? (@."Relation Name" == "urls")."Plan Rows"')::text::float8;
END
$$;

-- URL number i, as in the table urls
CREATE FUNCTION bench.url(i bigint)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN format('https://example%s.com/page/%s', i % 5000, md5(i::text));

-- Expected items that make a blocked 1 % filter about 'bytes' long
CREATE FUNCTION bench.items_for_bytes(bytes bigint)
RETURNS bigint
LANGUAGE sql
RETURN floor(bytes * 8 / (bloomfilter_optimal_bits(1000000, 0.01, 'blocked') / 1e6))::bigint;

-- Single adds in a PL/pgSQL loop (f := f || x) into an empty filter sized for n_items,
-- stopping after max_seconds; then the same items through bloomfilter_add_all and through
-- the aggregate (medians of reps runs).  The items are made before any clock starts.
CREATE FUNCTION bench.loop_add(n_items bigint, nadds int, max_seconds float8, reps int,
	OUT bytes bigint, OUT adds int, OUT seconds float8, OUT us_per_add float8,
	OUT loop_us float8, OUT add_all_us float8, OUT agg_us float8,
	OUT same_filter boolean)
LANGUAGE plpgsql AS $$
DECLARE
	items text[];
	x text;
	y text;
	empty bloomfilter;
	f bloomfilter;
	g bloomfilter;
	h bloomfilter;
	t0 timestamptz;
	times_all float8[] := '{}';
	times_agg float8[] := '{}';
	i int;
BEGIN
	items := ARRAY(SELECT bench.url(j) FROM generate_series(1, nadds) AS j);
	empty := bloomfilter_create(n_items, 0.01);
	bytes := octet_length(empty::bytea);

	-- the loop and its bookkeeping alone
	adds := 0;
	t0 := clock_timestamp();
	FOREACH x IN ARRAY items LOOP
		y := x;
		adds := adds + 1;
		IF adds % 16 = 0 AND clock_timestamp() - t0 > max_seconds * interval '1 second' THEN
			EXIT;
		END IF;
	END LOOP;
	loop_us := 1e6 * extract(epoch FROM clock_timestamp() - t0) / adds;

	f := empty;
	adds := 0;
	t0 := clock_timestamp();
	FOREACH x IN ARRAY items LOOP
		f := f || x;
		adds := adds + 1;
		IF adds % 16 = 0 AND clock_timestamp() - t0 > max_seconds * interval '1 second' THEN
			EXIT;
		END IF;
	END LOOP;
	seconds := extract(epoch FROM clock_timestamp() - t0);
	us_per_add := 1e6 * seconds / adds;

	FOR i IN 1 .. reps LOOP
		t0 := clock_timestamp();
		g := bloomfilter_add_all(empty, items);
		times_all := times_all || 1e6 * extract(epoch FROM clock_timestamp() - t0) / nadds;

		t0 := clock_timestamp();
		SELECT bloomfilter_agg(u, n_items, 0.01) INTO h FROM unnest(items) AS u;
		times_agg := times_agg || 1e6 * extract(epoch FROM clock_timestamp() - t0) / nadds;
	END LOOP;
	add_all_us := (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(times_all) AS v);
	agg_us := (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(times_agg) AS v);
	-- only a loop that added every item can be compared
	IF adds = nadds THEN
		same_filter := f = g AND g = h;
	END IF;
END
$$;

-- A non-negative pseudo-random number, the same for the same i and seed on every run and
-- platform (the tables of the join comparisons)
CREATE FUNCTION bench.rnd(i bigint, seed bigint)
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN hashint8extended(i, seed) & 9223372036854775807;

-- The rows of table t, counted
CREATE FUNCTION bench.count_rows(t regclass)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s', t) INTO n;
	RETURN n;
END
$$;

-- The lines of EXPLAIN (options) q under settings
CREATE FUNCTION bench.explain(q text, options text, settings text DEFAULT '')
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	s record;
	line text;
BEGIN
	SELECT * INTO s FROM bench.apply_settings(settings);
	FOR line IN EXECUTE format('EXPLAIN (%s) %s', options, q) LOOP
		RETURN NEXT line;
	END LOOP;
	PERFORM bench.restore_settings(s.names, s.saved);
END
$$;

-- Do qa under settings_a and qb under settings_b return the same rows (as multisets)?
-- Also their row counts and, for the report, the first row of each in text order.
CREATE FUNCTION bench.same_rows(qa text, qb text, settings_a text, settings_b text,
	OUT same boolean, OUT a_rows bigint, OUT b_rows bigint,
	OUT a_first text, OUT b_first text)
LANGUAGE plpgsql AS $$
DECLARE
	s record;
	a_md5 text;
	b_md5 text;
	digest constant text := 'SELECT count(*), md5(string_agg(r::text, E''\n'' ORDER BY r::text)),
		min(r::text) FROM (%s) AS r';
BEGIN
	SELECT * INTO s FROM bench.apply_settings(settings_a);
	EXECUTE format(digest, qa) INTO a_rows, a_md5, a_first;
	PERFORM bench.restore_settings(s.names, s.saved);
	SELECT * INTO s FROM bench.apply_settings(settings_b);
	EXECUTE format(digest, qb) INTO b_rows, b_md5, b_first;
	PERFORM bench.restore_settings(s.names, s.saved);
	same := a_rows = b_rows AND a_md5 IS NOT DISTINCT FROM b_md5;
END
$$;
