--
-- setup: runs first (the Makefile's REGRESS puts it there).  The extension, and the helpers
-- the other tests share, so that each test file holds only its own concern.
--
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
-- the shared helpers, from here to "end of the shared helpers"
-- what a statement raises: its SQLSTATE ('no error' if none), message, detail and hint
CREATE FUNCTION error_of(stmt text, OUT state text, OUT message text, OUT detail text, OUT hint text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	state := 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
	                        detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END
$$;
-- The SQLSTATE a statement raises, or 'no error'
CREATE FUNCTION sqlstate_of(stmt text) RETURNS text
LANGUAGE sql AS $$ SELECT state FROM error_of(stmt) $$;
-- EXPLAIN (options, FORMAT JSON) of a query: the plan, the one element of EXPLAIN's array
CREATE FUNCTION explain_json(query text, options text DEFAULT '') RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE format('EXPLAIN (%s) %s', concat_ws(', ', nullif(options, ''), 'FORMAT JSON'), query) INTO plan;
	RETURN plan -> 0;
END
$$;
-- workers a parallel query actually launched, at its first Gather (EXPLAIN ANALYZE prints
-- row counts per worker, which vary; this reads only the worker count)
CREATE FUNCTION workers_launched(query text) RETURNS integer
LANGUAGE sql AS $$
	SELECT substring(explain_json(query, 'ANALYZE, COSTS OFF, TIMING OFF')::text
	                 FROM '"Workers Launched": (\d+)')::integer
$$;
-- parallel plans wherever the planner can make them, for the rest of the session (as SET would)
CREATE PROCEDURE force_parallel_plans()
LANGUAGE sql AS $$
	SELECT set_config('parallel_setup_cost', '0', false), set_config('parallel_tuple_cost', '0', false),
	       set_config('min_parallel_table_scan_size', '0', false),
	       set_config('max_parallel_workers_per_gather', '2', false)
$$;
-- end of the shared helpers
SELECT sqlstate_of('SELECT 1') AS ok, sqlstate_of('SELECT 1/0') AS division;
SELECT e.* FROM error_of('SELECT 1/0') AS e;
