--
-- parallel: bloomfilter_agg and bloomfilter_union_agg under parallel
-- aggregation (the aggregate scan or a Partial Aggregate in the workers, the
-- combine function in Finalize Aggregate) build the same filter, byte for
-- byte, as a serial plan.
-- Needs max_worker_processes and max_parallel_workers >= 2 on the server.
--
CREATE TABLE parallel_urls AS
SELECT i AS id, i % 4 AS g, 'https://example'::text || (i % 5000) || '.com/page/' || md5(i::text) AS url
FROM generate_series(1, 600000) AS i;
ANALYZE parallel_urls;

-- many small filters of one shape: 200 parts of the first 60,000 rows
CREATE TABLE parallel_filters AS
SELECT id % 200 AS part, bloomfilter_agg(url, 60000, 0.01) AS f
FROM parallel_urls WHERE id <= 60000 GROUP BY 1;
ALTER TABLE parallel_filters SET (parallel_workers = 2);
ANALYZE parallel_filters;

-- the serial results
SET max_parallel_workers_per_gather = 0;
CREATE TABLE parallel_serial AS
SELECT bloomfilter_agg(url, 600000, 0.01) AS blocked,
	bloomfilter_agg(url, 600000, 0.01, 'classic') AS classic,
	bloomfilter_agg(id, 600000, 0.01) AS ids,
	(SELECT bloomfilter_union_agg(f) FROM parallel_filters) AS unioned,
	bloomfilter_agg(url, 60000, 0.01) FILTER (WHERE id <= 60000) AS first_rows
FROM parallel_urls;

-- force a parallel plan
CALL force_parallel_plans();

EXPLAIN (COSTS OFF)
SELECT bloomfilter_agg(url, 600000, 0.01) FROM parallel_urls;
EXPLAIN (COSTS OFF)
SELECT bloomfilter_agg(url, 600000, 0.01, 'classic') FROM parallel_urls;
EXPLAIN (COSTS OFF)
SELECT bloomfilter_union_agg(f) FROM parallel_filters;

-- the plans really run in parallel (EXPLAIN ANALYZE of CREATE TABLE AS runs
-- it, so each parallel result below comes from a run known to be parallel)
SELECT workers_launched('CREATE TABLE parallel_parallel AS
	SELECT bloomfilter_agg(url, 600000, 0.01) AS blocked,
		bloomfilter_agg(url, 600000, 0.01, ''classic'') AS classic,
		bloomfilter_agg(id, 600000, 0.01) AS ids
	FROM parallel_urls') > 0 AS agg_workers;
-- and with Partial Aggregate in the workers
SET bloomfilter.agg_scan = off;
EXPLAIN (COSTS OFF)
SELECT bloomfilter_agg(url, 600000, 0.01) FROM parallel_urls;
SELECT workers_launched('CREATE TABLE parallel_partial_agg AS
	SELECT bloomfilter_agg(url, 600000, 0.01) AS blocked,
		bloomfilter_agg(url, 600000, 0.01, ''classic'') AS classic,
		bloomfilter_agg(id, 600000, 0.01) AS ids
	FROM parallel_urls') > 0 AS partial_agg_workers;
RESET bloomfilter.agg_scan;
SELECT workers_launched('CREATE TABLE parallel_parallel_union AS
	SELECT bloomfilter_union_agg(f) AS unioned FROM parallel_filters') > 0 AS union_agg_workers;

-- parallel equals serial, byte for byte
SELECT p.blocked::bytea = s.blocked::bytea AS blocked_same,
	p.classic::bytea = s.classic::bytea AS classic_same,
	p.ids::bytea = s.ids::bytea AS integers_same,
	(a.blocked::bytea, a.classic::bytea, a.ids::bytea) =
		(s.blocked::bytea, s.classic::bytea, s.ids::bytea) AS partial_agg_same,
	u.unioned::bytea = s.unioned::bytea AS union_agg_same,
	s.unioned::bytea = s.first_rows::bytea AS union_of_parts_is_whole,
	(bloomfilter_info(p.blocked)).items_added AS items,
	(bloomfilter_info(u.unioned)).items_added AS union_items
FROM parallel_parallel AS p, parallel_partial_agg AS a,
	parallel_parallel_union AS u, parallel_serial AS s;

-- a grouped parallel aggregation: every group's filter equals its serial one
EXPLAIN (COSTS OFF)
SELECT g, bloomfilter_agg(url, 200000, 0.01) FROM parallel_urls GROUP BY g;
SELECT workers_launched('CREATE TABLE parallel_grouped AS
	SELECT g, bloomfilter_agg(url, 200000, 0.01) AS f FROM parallel_urls GROUP BY g') > 0 AS grouped_workers;
SET max_parallel_workers_per_gather = 0;
SELECT g, p.f::bytea = s.f::bytea AS same, (bloomfilter_info(p.f)).items_added
FROM parallel_grouped AS p
	JOIN (SELECT g, bloomfilter_agg(url, 200000, 0.01) AS f FROM parallel_urls GROUP BY g) AS s USING (g)
ORDER BY g;

RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

DROP TABLE parallel_urls, parallel_filters, parallel_serial, parallel_parallel,
	parallel_partial_agg, parallel_parallel_union, parallel_grouped;
