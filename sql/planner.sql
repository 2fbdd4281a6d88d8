--
-- planner: the restriction estimator of @> and <@.  With the filter known
-- at planning time, the estimated rows follow the filter (its estimated
-- members among the column's distinct values plus its false-positive
-- rate) and land within a factor 2 of the actual rows; a filter known only
-- at run time gets the default of one half.
--
CREATE TABLE planner_urls AS
SELECT i, md5(i::text) AS url FROM generate_series(1, 100000) AS i;
ANALYZE planner_urls;
CREATE TABLE planner_filters AS
SELECT n, bloomfilter_agg(url, n, 0.01) AS f
FROM (VALUES (1000), (20000), (100000)) AS v(n), planner_urls
WHERE i <= n GROUP BY n;

-- planned and actual rows of a query, from EXPLAIN ANALYZE's JSON
CREATE FUNCTION planner_rows(query text, OUT planned float8, OUT actual float8)
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || query
		INTO plan;
	planned := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
	actual := (plan -> 0 -> 'Plan' ->> 'Actual Rows')::float8;
END
$$;

SET max_parallel_workers_per_gather = 0;

-- a constant filter: the estimate follows it
SELECT n, r.planned BETWEEN r.actual / 2 AND r.actual * 2 AS within_2x,
       r.actual BETWEEN n AND n * 1.05 + 1000 AS actual_is_members_plus_fpr
FROM planner_filters,
     LATERAL planner_rows(format('SELECT url FROM planner_urls WHERE %L::bloomfilter @> url',
                                 f::text)) AS r
ORDER BY n;

-- the commuted operator estimates alike
SELECT n, r.planned BETWEEN r.actual / 2 AND r.actual * 2 AS within_2x
FROM planner_filters,
     LATERAL planner_rows(format('SELECT url FROM planner_urls WHERE url <@ %L::bloomfilter',
                                 f::text)) AS r
ORDER BY n;

-- a filter known only at run time: half the rows
SELECT r.planned = 50000 AS default_half
FROM planner_rows('SELECT url FROM planner_urls WHERE (SELECT f FROM planner_filters WHERE n = 1000) @> url') AS r;

RESET max_parallel_workers_per_gather;
DROP FUNCTION planner_rows(text);
DROP TABLE planner_urls, planner_filters;

-- filters in the column and a constant element: nothing to estimate from,
-- so the default; the query itself must plan and answer
CREATE TABLE planner_column_filters AS
SELECT i AS id, bloomfilter_add_all(bloomfilter_create(100), ARRAY['item ' || i]) AS f
FROM generate_series(1, 50) AS i;
CREATE TABLE planner_int_filters AS
SELECT i AS id, bloomfilter_add_all(bloomfilter_create(100), ARRAY[i]) AS f
FROM generate_series(1, 50) AS i;
ANALYZE planner_column_filters;
ANALYZE planner_int_filters;
SELECT id FROM planner_column_filters WHERE f @> 'item 5'::text;
SELECT id FROM planner_column_filters WHERE 'item 5'::text <@ f;
SELECT id FROM planner_int_filters WHERE f @> 7;
EXPLAIN (COSTS OFF) SELECT id FROM planner_int_filters WHERE f @> 54;
DROP TABLE planner_column_filters, planner_int_filters;
