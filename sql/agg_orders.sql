--
-- agg_orders: what the README promises about bloomfilter_agg under different
-- row orders and plans.  The fixed-size variants (blocked, classic,
-- counting) give the same bytes as bloomfilter_add_all over the same rows in
-- any order, serial or parallel, with the aggregate scan or the Aggregate
-- node.  The growing variants (scalable, cuckoo) give bytes that depend on
-- the order rows arrive in, and so on the plan; every element is found in
-- each of them all the same.
-- Needs max_worker_processes and max_parallel_workers >= 2 on the server.
--
CREATE TABLE ord_src AS
SELECT i, md5(i::text) AS x FROM generate_series(1, 60000) i;
ALTER TABLE ord_src SET (parallel_workers = 2);
ANALYZE ord_src;

CREATE TABLE ord_variants (v text);
INSERT INTO ord_variants VALUES ('blocked'), ('classic'), ('counting'), ('scalable'), ('cuckoo');

-- one filter per variant and way of building it; the reference is add_all in id order
CREATE TABLE ord_built (v text, how text, f bloomfilter);
INSERT INTO ord_built
SELECT v, 'add_all', bloomfilter_add_all(bloomfilter_create(60000, 0.01, v),
										 ARRAY(SELECT x FROM ord_src ORDER BY i))
FROM ord_variants;

SET max_parallel_workers_per_gather = 0;
SET bloomfilter.agg_scan = off;
INSERT INTO ord_built
SELECT v, 'asc', (SELECT bloomfilter_agg(x, 60000, 0.01, v ORDER BY i) FROM ord_src)
FROM ord_variants;
INSERT INTO ord_built
SELECT v, 'desc', (SELECT bloomfilter_agg(x, 60000, 0.01, v ORDER BY i DESC) FROM ord_src)
FROM ord_variants;
INSERT INTO ord_built
SELECT v, 'by md5', (SELECT bloomfilter_agg(x, 60000, 0.01, v ORDER BY x) FROM ord_src)
FROM ord_variants;

-- parallel plans: Partial Aggregate in the workers, and the aggregate scan,
-- of one query that builds a filter of each variant
CREATE VIEW ord_all_variants AS
SELECT bloomfilter_agg(x, 60000, 0.01, 'blocked') AS blocked,
	   bloomfilter_agg(x, 60000, 0.01, 'classic') AS classic,
	   bloomfilter_agg(x, 60000, 0.01, 'counting') AS counting,
	   bloomfilter_agg(x, 60000, 0.01, 'scalable') AS scalable,
	   bloomfilter_agg(x, 60000, 0.01, 'cuckoo') AS cuckoo
FROM ord_src;
CALL force_parallel_plans();
SET parallel_leader_participation = off;
CREATE TABLE ord_par AS SELECT * FROM ord_all_variants;
SET bloomfilter.agg_scan = on;
RESET parallel_leader_participation;
CREATE TABLE ord_par_scan AS SELECT * FROM ord_all_variants;
EXPLAIN (COSTS OFF)
SELECT bloomfilter_agg(x, 60000, 0.01, 'counting') FROM ord_src;
RESET ALL;

INSERT INTO ord_built
SELECT v, how, f
FROM (SELECT 'parallel agg' AS how, * FROM ord_par
	  UNION ALL SELECT 'parallel scan', * FROM ord_par_scan) AS p,
	LATERAL (VALUES ('blocked', blocked), ('classic', classic), ('counting', counting),
					('scalable', scalable), ('cuckoo', cuckoo)) a(v, f);

-- fixed-size variants: every way gives the reference bytes
SELECT b.v, b.how, b.f::bytea = r.f::bytea AS same_bytes
FROM ord_built b JOIN ord_built r ON r.v = b.v AND r.how = 'add_all'
WHERE b.v IN ('blocked', 'classic', 'counting') AND b.how <> 'add_all'
ORDER BY 1, 2;

-- every variant and way: every element found, and the item count is right
-- (a cuckoo aggregate does not store a fingerprint its buckets already hold:
-- a distinct element whose fingerprint collides is counted once, about 0.4 % here)
SELECT b.v, b.how,
	   (SELECT count(*) FROM ord_src WHERE NOT b.f @> x) AS missing,
	   CASE WHEN b.v = 'cuckoo' THEN (bloomfilter_info(b.f)).items_added BETWEEN 59000 AND 60000
			ELSE (bloomfilter_info(b.f)).items_added = 60000 END AS items_counted
FROM ord_built b
ORDER BY 1, 2;

-- the growing variants really do depend on the order (so the README says so)
SELECT b.v, count(DISTINCT md5(b.f::bytea)) > 1 AS bytes_depend_on_order
FROM ord_built b
WHERE b.v IN ('scalable', 'cuckoo')
GROUP BY 1 ORDER BY 1;

DROP VIEW ord_all_variants;
DROP TABLE ord_src, ord_variants, ord_built, ord_par, ord_par_scan;
