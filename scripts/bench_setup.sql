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

-- The TPC-H part (scripts/bench_tpch_schema.sql, scripts/bench_tpch_queries.sql)

-- Runs prep (untimed, if any), then q, under settings; returns the milliseconds q took.
-- q may be any statement: a SELECT's rows are fetched and discarded.
CREATE FUNCTION bench.time_statement(q text, settings text, prep text DEFAULT NULL)
RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	s record;
	t0 timestamptz;
	ms float8;
BEGIN
	SELECT * INTO s FROM bench.apply_settings(settings);
	IF prep IS NOT NULL THEN
		EXECUTE prep;
	END IF;
	t0 := clock_timestamp();
	EXECUTE q;
	ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
	PERFORM bench.restore_settings(s.names, s.saved);
	RETURN ms;
END
$$;

-- q under each of settings[1..n]: one untimed warm-up of each (unless the caller has just
-- run each), then reps rounds, each running every side once, the first side of round i
-- being side 1 + (i - 1) % n (ABC, BCA, CAB, ...).  Medians of each side, and the median of
-- the per-round ratios side k / side 1.
CREATE FUNCTION bench.time_sides(name text, q text, reps int, settings text[],
	prep text DEFAULT NULL, warm_up boolean DEFAULT true, OUT ms float8[], OUT ratio float8[])
LANGUAGE plpgsql AS $$
DECLARE
	n int := array_length(settings, 1);
	t float8[];
	k int;
BEGIN
	FOR k IN 1 .. n LOOP
		EXIT WHEN NOT warm_up;
		PERFORM bench.time_statement(q, settings[k], prep);
	END LOOP;
	FOR i IN 1 .. reps LOOP
		t := array_fill(0::float8, ARRAY[n]);
		FOR j IN 0 .. n - 1 LOOP
			k := 1 + (i - 1 + j) % n;
			t[k] := bench.time_statement(q, settings[k], prep);
		END LOOP;
		FOR k IN 1 .. n LOOP
			INSERT INTO bench.runs VALUES (name, i, k::text, t[k]), (name || ' ratio', i, k::text, t[k] / t[1]);
		END LOOP;
	END LOOP;
	ms := ARRAY(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY r.ms)
	            FROM bench.runs r WHERE r.comparison = name GROUP BY side ORDER BY side::int);
	ratio := ARRAY(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY r.ms)
	               FROM bench.runs r WHERE r.comparison = name || ' ratio' GROUP BY side ORDER BY side::int);
END
$$;

-- The join filters q's plan places under settings (the lines "Bloom Join Filter: bfN (...)"
-- of its build nodes: one per filter), and the md5 of its plan (EXPLAIN, COSTS OFF)
CREATE FUNCTION bench.plan_filters(q text, settings text, OUT filters int, OUT plan_md5 text,
	OUT shape_md5 text)
LANGUAGE plpgsql AS $$
DECLARE
	lines text[];
BEGIN
	lines := ARRAY(SELECT bench.explain(q, 'COSTS OFF', settings));
	filters := (SELECT count(*) FROM unnest(lines) AS l WHERE l ~ '^\s*Bloom Join Filter: ');
	plan_md5 := md5(array_to_string(lines, E'\n'));
	-- the plan PostgreSQL chose: its node lines without the extension's nodes, a join scan read
	-- as the sequential scan it replaces
	shape_md5 := md5(array_to_string(ARRAY(
		SELECT regexp_replace(regexp_replace(l, '^\s*(->  )?', ''),
		                      'Custom Scan \(bloomfilter join scan\)', 'Seq Scan')
		FROM unnest(lines) WITH ORDINALITY AS u(l, i)
		WHERE (i = 1 OR l ~ '^\s*->  ') AND l !~ 'Custom Scan \(bloomfilter join (build|probe)\)'
		ORDER BY i), E'\n'));
END
$$;

-- q's rows under settings: how many, and the md5 of their text forms in text order
CREATE FUNCTION bench.rows_digest(q text, settings text, OUT n bigint, OUT digest text)
LANGUAGE plpgsql AS $$
DECLARE
	s record;
BEGIN
	SELECT * INTO s FROM bench.apply_settings(settings);
	EXECUTE format('SELECT count(*), md5(coalesce(string_agg(r::text, E''\n'' ORDER BY r::text), '''')) FROM (%s) AS r', q)
		INTO n, digest;
	PERFORM bench.restore_settings(s.names, s.saved);
END
$$;

-- TPC-H query number qn under base settings (work_mem, parallel workers) with the join
-- filters off, on and always: medians, ratios to off, filters placed, whether on's plan is
-- off's, whether PostgreSQL chose another plan at on (the extension's nodes aside: the
-- planner's choice of a filter), and whether the rows are the same as off's.  always is run only when its plan
-- differs from on's (otherwise on's rows and figures stand for it: always_run false).  The
-- runs that give the rows are the timings' warm-up.
CREATE FUNCTION bench.tpch_query(qn int, base text, reps int,
	OUT off_ms float8, OUT on_ms float8, OUT always_ms float8,
	OUT on_ratio float8, OUT always_ratio float8,
	OUT filters_on int, OUT filters_always int, OUT on_is_off boolean, OUT always_run boolean,
	OUT nrows bigint, OUT same_on boolean, OUT same_always boolean, OUT on_replanned boolean)
LANGUAGE plpgsql AS $$
DECLARE
	q text := (SELECT t.q FROM bench.tpch_queries t WHERE t.n = qn);
	s_off text := base || ',bloomfilter.join_filter=off';
	s_on text := base || ',bloomfilter.join_filter=on';
	s_always text := base || ',bloomfilter.join_filter=always';
	p_off record;
	p_on record;
	p_always record;
	d_off record;
	d record;
	t record;
	name text := format('tpch Q%s [%s]', qn, base);
BEGIN
	SELECT * INTO p_off FROM bench.plan_filters(q, s_off);
	SELECT * INTO p_on FROM bench.plan_filters(q, s_on);
	SELECT * INTO p_always FROM bench.plan_filters(q, s_always);
	filters_on := p_on.filters;
	filters_always := p_always.filters;
	on_is_off := p_on.plan_md5 = p_off.plan_md5;
	on_replanned := p_on.shape_md5 <> p_off.shape_md5;
	always_run := p_on.plan_md5 <> p_always.plan_md5;

	SELECT * INTO d_off FROM bench.rows_digest(q, s_off);
	nrows := d_off.n;
	SELECT * INTO d FROM bench.rows_digest(q, s_on);
	same_on := d.n = d_off.n AND d.digest = d_off.digest;
	same_always := same_on;
	IF always_run THEN
		SELECT * INTO d FROM bench.rows_digest(q, s_always);
		same_always := d.n = d_off.n AND d.digest = d_off.digest;
	END IF;

	IF always_run THEN
		SELECT * INTO t FROM bench.time_sides(name, q, reps, ARRAY[s_off, s_on, s_always], NULL, false);
		always_ms := t.ms[3];
		always_ratio := t.ratio[3];
	ELSE
		SELECT * INTO t FROM bench.time_sides(name, q, reps, ARRAY[s_off, s_on], NULL, false);
		always_ms := t.ms[2];
		always_ratio := t.ratio[2];
	END IF;
	off_ms := t.ms[1];
	on_ms := t.ms[2];
	on_ratio := t.ratio[2];
END
$$;

-- EXPLAIN ANALYZE of q under settings, and the figures of the join filter tested at the scan
-- of table rel (the first filter listed there): the rows it tested and passed (summed over
-- the processes that ran the scan), the processes that ran the scan and its build node, the
-- keys the build added (its rows) and the keys and kB the filter was planned for, the
-- parallel workers launched, whether q has a Parallel Hash, whether the filter was paused at
-- the scan, and its Filter State.  NULLs when no filter is tested at a scan of rel.
CREATE FUNCTION bench.join_filter_test(q text, settings text, rel text,
	OUT tested float8, OUT passed float8, OUT scan_processes int, OUT build_processes int,
	OUT build_rows float8, OUT planned_keys bigint, OUT filter_kb bigint, OUT workers int,
	OUT parallel_hash boolean, OUT paused boolean, OUT state text)
LANGUAGE plpgsql AS $$
DECLARE
	s record;
	plan jsonb;
	scan jsonb;
	build jsonb;
BEGIN
	SELECT * INTO s FROM bench.apply_settings(settings);
	EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, TIMING OFF, COSTS OFF, FORMAT JSON) ' || q INTO plan;
	PERFORM bench.restore_settings(s.names, s.saved);
	scan := jsonb_path_query_first(plan,
		'strict $.** ? (@."Relation Name" == $r && exists (@."Bloom Join Filters"))',
		jsonb_build_object('r', rel));
	IF scan IS NULL THEN
		RETURN;
	END IF;
	build := jsonb_path_query_first(plan, 'strict $.** ? (@."Bloom Join Filter" starts with $f)',
		jsonb_build_object('f', split_part(scan->>'Bloom Join Filters', ' ', 1) || ' '));
	passed := (scan->>'Actual Rows')::float8 * (scan->>'Actual Loops')::float8;
	tested := passed + (scan->>'Rows Removed by Bloom Join Filter')::float8 * (scan->>'Actual Loops')::float8;
	scan_processes := (scan->>'Actual Loops')::int;
	build_processes := (build->>'Actual Loops')::int;
	build_rows := (build->>'Actual Rows')::float8 * build_processes;
	planned_keys := (build->>'Planned Keys')::bigint;
	filter_kb := (build->>'Filter Size')::bigint;
	state := build->>'Filter State';
	paused := scan ? 'Bloom Join Filter Paused';
	workers := (SELECT coalesce(sum(w::text::int), 0) FROM jsonb_path_query(plan,
		'strict $.** ? (exists (@."Workers Launched"))."Workers Launched"') AS w);
	parallel_hash := jsonb_path_exists(plan,
		'strict $.** ? (@."Node Type" == "Hash" && @."Parallel Aware" == true)');
END
$$;

-- EXPLAIN ANALYZE of q under settings: each node that tests join filters (a join scan, or a
-- probe node above another node), with the table it reads (the probe node's child's, and
-- that node's kind), its filters, and the rows it passed and removed (over all its processes
-- and loops)
CREATE FUNCTION bench.join_filter_sites(q text, settings text,
	OUT site text, OUT filters text, OUT passed float8, OUT removed float8, OUT paused boolean)
RETURNS SETOF record
LANGUAGE plpgsql AS $$
DECLARE
	s record;
	plan jsonb;
	node jsonb;
BEGIN
	SELECT * INTO s FROM bench.apply_settings(settings);
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, FORMAT JSON) ' || q INTO plan;
	PERFORM bench.restore_settings(s.names, s.saved);
	FOR node IN SELECT jsonb_path_query(plan, 'strict $.** ? (exists (@."Bloom Join Filters"))') LOOP
		IF node ? 'Relation Name' THEN
			site := node->>'Relation Name' || CASE WHEN node->>'Alias' <> node->>'Relation Name'
				THEN ' ' || (node->>'Alias') ELSE '' END;
		ELSE
			site := coalesce(node->'Plans'->0->>'Relation Name' || CASE WHEN node->'Plans'->0->>'Alias' <> node->'Plans'->0->>'Relation Name'
				THEN ' ' || (node->'Plans'->0->>'Alias') ELSE '' END || ', ', '')
				|| 'probe node above ' || (node->'Plans'->0->>'Node Type');
		END IF;
		filters := node->>'Bloom Join Filters';
		passed := (node->>'Actual Rows')::float8 * (node->>'Actual Loops')::float8;
		removed := (node->>'Rows Removed by Bloom Join Filter')::float8 * (node->>'Actual Loops')::float8;
		paused := node ? 'Bloom Join Filter Paused';
		RETURN NEXT;
	END LOOP;
END
$$;
