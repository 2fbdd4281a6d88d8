--
-- join_filter: automatic Bloom join filters (bloomfilter.join_filter).  A hash join's build
-- side fills a filter of its keys; the scans feeding its probe side drop the rows whose key
-- the filter rules out.  Every query here gives the same rows with the setting off and always
-- (jf_check), and the filter is placed only where a join discards unmatched probe rows.
--
SET client_min_messages = warning;
LOAD 'bloomfilter';
SET max_parallel_workers_per_gather = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;
-- a case- and accent-insensitive collation (ICU): equal strings of other bytes
CREATE COLLATION jf_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
-- dimension: 2,000 keys x = 10, 20, ..., 20000, in every type, and two rows of NULL keys
CREATE TABLE jf_dim (id int4, id8 int8, id2 int2, n numeric, fl float8, t text, ci text COLLATE jf_ci,
                     bp char(8), u uuid, a int, b int, lt text);
INSERT INTO jf_dim SELECT x, x, x, x::numeric(12, 1),
       CASE WHEN x = 10 THEN '-0'::float8 WHEN x = 20 THEN 'NaN' ELSE x END,
       'k' || x, 'K' || x, 'b' || x, md5(x::text)::uuid, x % 97, x / 97, repeat(md5(x::text), 300)
FROM generate_series(1, 2000) g, LATERAL (SELECT g * 10 AS x) s;
INSERT INTO jf_dim (id) VALUES (NULL), (NULL);
-- fact: 20,000 rows of keys 0..4999 (one in ten has a partner), a few NULL keys
CREATE TABLE jf_fact (g int, k int4, k8 int8, n numeric, fl float8, vc varchar(20), ci text COLLATE jf_ci,
                      bp char(12), u uuid, a int, b int, lt text, k2 int);
ALTER TABLE jf_fact ALTER lt SET STORAGE EXTERNAL;
INSERT INTO jf_fact SELECT g, k, k, k::numeric(12, 2),
       CASE WHEN k = 10 THEN 0 WHEN k = 20 THEN 'NaN'::float8 ELSE k END,
       'k' || k, 'k' || k, 'b' || k, md5(k::text)::uuid, k % 97, k / 97, repeat(md5(k::text), 300),
       (g * 7) % 5000
FROM generate_series(1, 20000) g,
     LATERAL (SELECT CASE WHEN g % 997 = 0 THEN NULL ELSE g % 5000 END AS k) s;
-- the same rows, partitioned, and under an inheritance parent
CREATE TABLE jf_part (LIKE jf_fact) PARTITION BY RANGE (g);
CREATE TABLE jf_part_1 PARTITION OF jf_part FOR VALUES FROM (MINVALUE) TO (7000);
CREATE TABLE jf_part_2 PARTITION OF jf_part FOR VALUES FROM (7000) TO (14000);
CREATE TABLE jf_part_3 PARTITION OF jf_part FOR VALUES FROM (14000) TO (MAXVALUE);
INSERT INTO jf_part SELECT * FROM jf_fact;
CREATE TABLE jf_inh (LIKE jf_fact);
CREATE TABLE jf_inh_1 () INHERITS (jf_inh);
CREATE TABLE jf_inh_2 () INHERITS (jf_inh);
INSERT INTO jf_inh_1 SELECT * FROM jf_fact WHERE g % 2 = 0;
INSERT INTO jf_inh_2 SELECT * FROM jf_fact WHERE g % 2 = 1;
ANALYZE jf_dim, jf_fact, jf_part, jf_inh, jf_inh_1, jf_inh_2;

-- A query's rows with bloomfilter.join_filter off and always (as sorted multisets; always
-- both with the join scan, which tests the filters in place of a sequential scan, and with
-- bloomfilter.prefetch_scan off, which leaves a probe node above the scan), and with it
-- always: the filters built, the probe sites (probe nodes and join scans), and whether any
-- row was removed
CREATE FUNCTION jf_check(q text, OUT filters int, OUT probes int, OUT removed boolean,
                         OUT same boolean, OUT nrows int)
LANGUAGE plpgsql AS $$
DECLARE
	rows_off text[];
	rows_on text[];
	rows_probe text[];
	plan text;
BEGIN
	PERFORM set_config('bloomfilter.join_filter', 'off', true);
	EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
	INTO rows_off;
	PERFORM set_config('bloomfilter.join_filter', 'always', true);
	PERFORM set_config('bloomfilter.prefetch_scan', 'off', true);
	EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
	INTO rows_probe;
	PERFORM set_config('bloomfilter.prefetch_scan', 'on', true);
	EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
	INTO rows_on;
	plan := explain_json(q, 'ANALYZE, COSTS OFF, TIMING OFF')::text;
	filters := (SELECT count(*) FROM regexp_matches(plan, '"bloomfilter join build"', 'g'));
	probes := (SELECT count(*) FROM regexp_matches(plan, '"bloomfilter join (probe|scan)"', 'g'));
	removed := coalesce((SELECT sum(m[1]::numeric) > 0
	                     FROM regexp_matches(plan, '"Rows Removed by Bloom Join Filter": (\d+)', 'g') m),
	                    false);
	same := rows_off = rows_on AND rows_off = rows_probe;
	nrows := cardinality(rows_off);
END
$$;

-- the plan: a build node under the Hash, the join scan in place of the fact scan (a probe
-- node above it with bloomfilter.prefetch_scan off)
SET bloomfilter.join_filter = always;
EXPLAIN (COSTS OFF) SELECT f.g, f.lt FROM jf_fact f JOIN jf_dim d ON f.k = d.id WHERE d.a < 10;
EXPLAIN (COSTS OFF, VERBOSE) SELECT f.g, f.lt FROM jf_fact f JOIN jf_dim d ON f.k = d.id WHERE d.a < 10;
SET bloomfilter.prefetch_scan = off;
EXPLAIN (COSTS OFF) SELECT f.g, f.lt FROM jf_fact f JOIN jf_dim d ON f.k = d.id WHERE d.a < 10;
RESET bloomfilter.prefetch_scan;
-- the scan's quals come first, the silent ones as rows are read ahead, and their rows
-- removed are counted apart; a key that is an expression of the scan keeps the probe node
SELECT s ->> 'Custom Plan Provider' AS node, s ->> 'Filter' AS filter,
       (s ->> 'Rows Removed by Filter')::int AS removed_by_filter,
       s ->> 'Bloom Join Filters' AS join_filters,
       (s ->> 'Rows Removed by Bloom Join Filter')::int AS removed_by_join_filter,
       (s ->> 'Actual Rows')::numeric::int AS returned
FROM (SELECT explain_json('SELECT f.g FROM jf_fact f JOIN jf_dim d ON f.k = d.id
                           WHERE d.a < 10 AND f.g % 3 = 0', 'ANALYZE, COSTS OFF, TIMING OFF')::jsonb
             #> '{Plan,Plans,0}' AS s) p;
EXPLAIN (COSTS OFF)
SELECT f.g FROM (SELECT g, k + 0 AS k FROM jf_fact OFFSET 0) f JOIN jf_dim d ON f.k = d.id WHERE d.a < 10;
RESET bloomfilter.join_filter;

-- every key type hashes with the join operator's own equality: cross-type integers, numeric
-- of other scales (10.0 = 10.00), -0 = 0 and NaN = NaN, text = varchar, a nondeterministic
-- collation ('K10' = 'k10'), char(n) of other lengths, uuid, two columns, keys in TOAST
SELECT k AS key, c.* FROM (VALUES
	('int4 = int4', 'SELECT f.g, d.id FROM jf_fact f JOIN jf_dim d ON f.k = d.id'),
	('int4 = int8', 'SELECT f.g, d.id FROM jf_fact f JOIN jf_dim d ON f.k = d.id8'),
	('int8 = int2', 'SELECT f.g, d.id FROM jf_fact f JOIN jf_dim d ON f.k8 = d.id2'),
	('numeric', 'SELECT f.g, d.n FROM jf_fact f JOIN jf_dim d ON f.n = d.n'),
	('float8', 'SELECT f.g, d.fl FROM jf_fact f JOIN jf_dim d ON f.fl = d.fl'),
	('varchar = text', 'SELECT f.g, d.t FROM jf_fact f JOIN jf_dim d ON f.vc = d.t'),
	('nondeterministic', 'SELECT f.g, d.ci FROM jf_fact f JOIN jf_dim d ON f.ci = d.ci'),
	('char(12) = char(8)', 'SELECT f.g, d.bp FROM jf_fact f JOIN jf_dim d ON f.bp = d.bp'),
	('uuid', 'SELECT f.g, d.u FROM jf_fact f JOIN jf_dim d ON f.u = d.u'),
	('two columns', 'SELECT f.g, d.id FROM jf_fact f JOIN jf_dim d ON f.a = d.a AND f.b = d.b'),
	('toast', 'SELECT f.g, d.id FROM jf_fact f JOIN jf_dim d ON f.lt = d.lt'),
	('expression', 'SELECT f.g, d.id FROM jf_fact f JOIN jf_dim d ON f.k + 0 = d.id'),
	('row keys', 'SELECT f.g, d.id FROM jf_fact f JOIN jf_dim d ON (f.a, f.b) = (d.a, d.b) AND d.id < 5000')
) v(k, q), LATERAL jf_check(q) c ORDER BY 1;

-- join types: the probe (outer) side loses only rows the join would discard
SELECT k AS join, c.* FROM (VALUES
	('inner', 'SELECT f.g, d.id FROM jf_fact f JOIN jf_dim d ON f.k = d.id WHERE d.a < 50'),
	('semi (EXISTS)', 'SELECT f.g FROM jf_fact f WHERE EXISTS (SELECT FROM jf_dim d WHERE d.id = f.k AND d.a < 50)'),
	('semi (IN)', 'SELECT f.g FROM jf_fact f WHERE f.k IN (SELECT d.id FROM jf_dim d WHERE d.a < 50)'),
	('right (dim LEFT JOIN fact)', 'SELECT d.id, f.g FROM jf_dim d LEFT JOIN jf_fact f ON f.k = d.id'),
	('left: fact preserved', 'SELECT f.g, d.id FROM jf_fact f LEFT JOIN jf_dim d ON f.k = d.id AND d.a < 50'),
	('full', 'SELECT f.g, d.id FROM jf_fact f FULL JOIN jf_dim d ON f.k = d.id'),
	('anti (NOT EXISTS)', 'SELECT f.g FROM jf_fact f WHERE NOT EXISTS (SELECT FROM jf_dim d WHERE d.id = f.k)'),
	('NOT IN', 'SELECT f.g FROM jf_fact f WHERE f.k NOT IN (SELECT d.id FROM jf_dim d WHERE d.id IS NOT NULL)')
) v(k, q), LATERAL jf_check(q) c ORDER BY 1;

-- the test goes below other joins, to every partition and inheritance child, and several
-- dimensions' filters share one probe node over the fact scan (a star join)
SELECT k AS shape, c.* FROM (VALUES
	('below a left join', 'SELECT f.g, x.g, d.id FROM jf_fact f LEFT JOIN jf_fact x ON x.g = f.k2 JOIN jf_dim d ON f.k = d.id WHERE d.a < 50'),
	('star', 'SELECT f.g FROM jf_fact f JOIN jf_dim d1 ON f.k = d1.id JOIN jf_dim d2 ON f.k2 = d2.id WHERE d1.a < 50 AND d2.b < 100'),
	('partitioned', 'SELECT f.g, d.id FROM jf_part f JOIN jf_dim d ON f.k = d.id WHERE d.a < 50'),
	('inheritance', 'SELECT f.g, d.id FROM jf_inh f JOIN jf_dim d ON f.k = d.id WHERE d.a < 50'),
	('subquery', 'SELECT s.g, d.id FROM (SELECT g, k FROM jf_fact ORDER BY g LIMIT 5000) s JOIN jf_dim d ON s.k = d.id'),
	('union all', 'SELECT s.g, d.id FROM (SELECT g, k FROM jf_fact UNION ALL SELECT g, k2 FROM jf_fact) s JOIN jf_dim d ON s.k = d.id'),
	('aggregate below', 'SELECT s.k, s.c, d.id FROM (SELECT k, count(*) c FROM jf_fact GROUP BY k) s JOIN jf_dim d ON s.k = d.id')
) v(k, q), LATERAL jf_check(q) c ORDER BY 1;
SET bloomfilter.join_filter = always;
EXPLAIN (COSTS OFF) SELECT f.g FROM jf_fact f JOIN jf_dim d1 ON f.k = d1.id JOIN jf_dim d2 ON f.k2 = d2.id
WHERE d1.a < 50 AND d2.b < 100;
RESET bloomfilter.join_filter;

-- the join scan reads a key of fixed length at a fixed offset from the tuple itself (a row the
-- filter drops is never deformed): after a dropped column, at uuid's alignment, in rows with
-- NULLs in other columns, and in a column added after rows were written (which they lack)
CREATE TABLE jf_fixed (a int4, gone int8, b int2, k int4, u uuid, nul int4);
INSERT INTO jf_fixed SELECT g, g, g % 3000, g % 5000, md5((g % 5000)::text)::uuid,
       CASE WHEN g % 3 = 0 THEN NULL ELSE g END
FROM generate_series(1, 20000) g;
ALTER TABLE jf_fixed DROP COLUMN gone;
ALTER TABLE jf_fixed ADD COLUMN late int4 DEFAULT 10;
INSERT INTO jf_fixed SELECT g, g % 3000, g % 5000, md5((g % 5000)::text)::uuid, NULL, g % 5000
FROM generate_series(20001, 24000) g;
UPDATE jf_fixed SET late = k WHERE a % 7 = 0;
ANALYZE jf_fixed;
SELECT k AS key, c.* FROM (VALUES
	('int4 after a dropped column', 'SELECT x.a, d.id FROM jf_fixed x JOIN jf_dim d ON x.k = d.id WHERE d.a < 30'),
	('int2 = int2', 'SELECT x.a, d.id FROM jf_fixed x JOIN jf_dim d ON x.b = d.id2 WHERE d.a < 30'),
	('uuid', 'SELECT x.a, d.id FROM jf_fixed x JOIN jf_dim d ON x.u = d.u WHERE d.a < 30'),
	('a column added later', 'SELECT x.a, x.late FROM jf_fixed x JOIN jf_dim d ON x.late = d.id WHERE d.a < 30')
) v(k, q), LATERAL jf_check(q) c ORDER BY 1;

-- name = text (one operator family, whose name and text functions PostgreSQL hashes alike and
-- the extension would not: no filter), and a projection that is seen (nextval() in a subquery
-- that is not pulled up runs for every row, so the scan keeps a probe node above it)
CREATE TABLE jf_names AS SELECT g, ('k' || (g % 5000))::name AS nm FROM generate_series(1, 20000) g;
ANALYZE jf_names;
SELECT k AS key, c.* FROM (VALUES
	('name = text', 'SELECT x.g, d.id FROM jf_names x JOIN jf_dim d ON x.nm = d.t WHERE d.a < 30'),
	('text = name', 'SELECT x.g, d.id FROM jf_dim d JOIN jf_names x ON d.t = x.nm WHERE d.a < 30')
) v(k, q), LATERAL jf_check(q) c ORDER BY 1;
CREATE SEQUENCE jf_seq;
SET bloomfilter.join_filter = always;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM jf_dim d JOIN (SELECT k, nextval('jf_seq') AS n FROM jf_fact OFFSET 0) s ON s.k = d.id
WHERE d.a < 10;
SELECT count(*) FROM jf_dim d JOIN (SELECT k, nextval('jf_seq') AS n FROM jf_fact OFFSET 0) s ON s.k = d.id
WHERE d.a < 10;
SELECT currval('jf_seq') AS nextval_calls;
RESET bloomfilter.join_filter;

-- code between the probe site and the join sees the same rows with the filters as without:
-- a filter goes below a node only when the node's expressions can neither fail nor be seen
-- (volatile, leaky, an initplan), and below a join only when the join's other side, which it
-- reads more or less of as probe rows come, is as quiet; else the probe stands above the node.
-- jf_calls runs a query with join_filter off and always and counts the calls of jf_seen (a
-- volatile function, not leakproof) either way
CREATE SEQUENCE jf_calls_seq;
CREATE FUNCTION jf_seen(int) RETURNS boolean LANGUAGE plpgsql VOLATILE COST 0.001 AS
$$ BEGIN PERFORM nextval('jf_calls_seq'); RETURN $1 IS NOT NULL; END $$;
CREATE FUNCTION jf_leaky(int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE COST 0.001 AS
$$ BEGIN PERFORM nextval('jf_calls_seq'); RETURN $1 IS NOT NULL; END $$;
CREATE VIEW jf_barrier WITH (security_barrier) AS SELECT g, k FROM jf_fact WHERE g > 0;
CREATE FUNCTION jf_calls(q text, OUT calls_off bigint, OUT calls_always bigint, OUT same boolean,
                         OUT filters int)
LANGUAGE plpgsql AS $$
DECLARE
	rows_off text[];
	rows_on text[];
BEGIN
	PERFORM set_config('bloomfilter.join_filter', 'off', true);
	PERFORM setval('jf_calls_seq', 1, false);
	EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
	INTO rows_off;
	calls_off := nextval('jf_calls_seq') - 1;
	PERFORM set_config('bloomfilter.join_filter', 'always', true);
	PERFORM setval('jf_calls_seq', 1, false);
	EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
	INTO rows_on;
	calls_always := nextval('jf_calls_seq') - 1;
	same := rows_off = rows_on;
	filters := (SELECT count(*) FROM regexp_matches(explain_json(q, 'COSTS OFF')::text,
	                                                 '"bloomfilter join build"', 'g'));
END
$$;
SELECT k AS seen_between, c.* FROM (VALUES
	('volatile target list of a join in a subquery',
	 'SELECT count(*) FROM (SELECT f.k, jf_seen(f.g) AS s FROM jf_fact f JOIN jf_dim d2 ON d2.id = f.k2 OFFSET 0) s JOIN jf_dim d ON d.id = s.k WHERE d.a < 10'),
	('volatile qual over a window function',
	 'SELECT count(*) FROM (SELECT k, row_number() OVER (ORDER BY g) AS r FROM jf_fact) s JOIN jf_dim d ON d.id = s.k WHERE d.a < 10 AND jf_seen(s.r::int)'),
	('leaky qual over a security_barrier view',
	 'SELECT count(*) FROM jf_barrier b JOIN jf_dim d ON d.id = b.k WHERE d.a < 10 AND jf_leaky(b.g)'),
	('volatile other side of a nested loop',
	 'SELECT count(*) FROM jf_fact f JOIN LATERAL (SELECT 1 FROM jf_dim d2 WHERE d2.id = f.k2 AND jf_seen(d2.id) LIMIT 1) x ON true JOIN jf_dim d ON d.id = f.k WHERE d.a < 10'),
	('an initplan in a join qual',
	 'SELECT count(*) FROM jf_fact f JOIN jf_dim d2 ON d2.id = f.k2 AND d2.a < (SELECT max(a) FROM jf_dim WHERE jf_seen(id)) JOIN jf_dim d ON d.id = f.k WHERE d.a < 10'),
	('volatile build key',
	 'SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.id + jf_seen(d.id)::int - 1 WHERE d.a < 10')
) v(k, q), LATERAL jf_calls(q) c ORDER BY 1;
SET bloomfilter.join_filter = always;
-- the probe stands above the join whose target list is seen
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT f.k, jf_seen(f.g) AS s FROM jf_fact f JOIN jf_dim d2 ON d2.id = f.k2 OFFSET 0) s
JOIN jf_dim d ON d.id = s.k WHERE d.a < 10;
RESET bloomfilter.join_filter;

-- rescans: the join inside a nested loop's inner side (a LATERAL subquery, a correlated
-- subquery) is rebuilt and tested again; a build side that depends on the outer row takes no
-- filter (the join may rebuild it after reading a probe row)
SET enable_nestloop = on;
SELECT k AS rescan, c.* FROM (VALUES
	('lateral', 'SELECT o.i, s.c FROM generate_series(1, 3) o(i), LATERAL (SELECT count(*) c FROM jf_dim d JOIN jf_fact f ON f.k = d.id WHERE f.g % 3 = o.i - 1 AND d.a < 30) s'),
	('lateral, empty build side', 'SELECT o.i, s.c FROM generate_series(1, 3) o(i), LATERAL (SELECT count(*) c FROM jf_dim d JOIN jf_fact f ON f.k = d.id WHERE f.g % 3 = o.i - 1 AND d.id % 1000 = 7) s'),
	('correlated', 'SELECT d2.id, (SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.id WHERE f.k2 > d2.id) FROM jf_dim d2 WHERE d2.id < 50'),
	('parameterized build side', 'SELECT o.i, s.c FROM generate_series(1, 3) o(i), LATERAL (SELECT count(*) c FROM jf_fact f JOIN jf_dim d ON f.k = d.id WHERE f.g % 3 = o.i - 1) s')
) v(k, q), LATERAL jf_check(q) c ORDER BY 1;
-- a join in batches is built again at each rescan
SET work_mem = '64kB';
SELECT c.* FROM jf_check('SELECT o.i, s.c, s.l FROM generate_series(1, 3) o(i), LATERAL (SELECT count(*) c, sum(length(d.lt)) l FROM jf_dim d JOIN jf_fact f ON f.k = d.id WHERE f.g % 3 = o.i - 1 AND d.a < 30) s') c;
RESET work_mem;
RESET enable_nestloop;

-- a join that spills to batches
SET work_mem = '64kB';
SELECT c.* FROM jf_check('SELECT f.g, d.id, d.lt FROM jf_fact f JOIN jf_dim d ON f.k = d.id') c;
RESET work_mem;

-- parallel plans: in a parallel-oblivious hash join each process builds a filter of its own;
-- under a Parallel Hash each adds its part to one filter in shared memory, complete before any
-- process reads a probe row; with and without the leader, and in batches
CREATE FUNCTION jf_parallel(q text, OUT parallel_hash boolean, OUT filters int, OUT same boolean,
                            OUT nrows int)
LANGUAGE plpgsql AS $$
BEGIN
	parallel_hash := explain_json(q, 'COSTS OFF')::text ~ '"Node Type": "Hash",[^{]*"Parallel Aware": true';
	SELECT c.filters, c.same, c.nrows INTO filters, same, nrows FROM jf_check(q) c;
END
$$;
CALL force_parallel_plans();
\set q 'SELECT f.g, d.id, d.lt FROM jf_fact f JOIN jf_dim d ON f.k = d.id WHERE d.a < 50'
SET enable_parallel_hash = off;
SELECT 'oblivious' AS plan, p.* FROM jf_parallel(:'q') p;
SET parallel_leader_participation = off;
SELECT 'oblivious, no leader' AS plan, p.* FROM jf_parallel(:'q') p;
RESET enable_parallel_hash;
SELECT 'parallel hash, no leader' AS plan, p.* FROM jf_parallel(:'q') p;
SET work_mem = '64kB';
SELECT 'parallel hash, no leader, batches' AS plan, p.* FROM jf_parallel(:'q') p;
RESET parallel_leader_participation;
SELECT 'parallel hash, batches' AS plan, p.* FROM jf_parallel(:'q') p;
RESET work_mem;
SELECT 'parallel hash' AS plan, p.* FROM jf_parallel(:'q') p;
RESET work_mem;
RESET enable_parallel_hash;
RESET parallel_leader_participation;
SELECT c.filters, c.probes, c.same, c.nrows
FROM jf_check('SELECT f.g, d.id FROM jf_part f JOIN jf_dim d ON f.k = d.id WHERE d.a < 50') c;
-- statistics that lie: a build side planned at a few rows that has 21,000 (rows updated after
-- ANALYZE), read by two participants of a Parallel Hash (a Parallel Append of two tables that
-- each one participant reads whole): the one that reads the larger passes the filter's capacity
-- and gives up on it, and then no participant tests it (the other once tested the shared filter
-- without the first one's keys and dropped matching rows)
CREATE TABLE jf_stale (k int, flag int) PARTITION BY RANGE (k);
CREATE TABLE jf_stale_1 PARTITION OF jf_stale FOR VALUES FROM (0) TO (300000)
	WITH (parallel_workers = 0, autovacuum_enabled = off);
CREATE TABLE jf_stale_2 PARTITION OF jf_stale FOR VALUES FROM (300000) TO (400000)
	WITH (parallel_workers = 0, autovacuum_enabled = off);
INSERT INTO jf_stale SELECT g, CASE WHEN g % 100000 = 0 THEN 1 ELSE 0 END FROM generate_series(1, 399999) g;
CREATE TABLE jf_stale_probe (k int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO jf_stale_probe SELECT g * 10, 'p' FROM generate_series(1, 40000) g;
ANALYZE jf_stale, jf_stale_probe;
UPDATE jf_stale SET flag = 1 WHERE k < 200000 OR k BETWEEN 300000 AND 310000;
\set q 'SELECT count(*) FROM jf_stale_probe p JOIN jf_stale s ON s.k = p.k WHERE s.flag = 1'
SET parallel_leader_participation = off;
SELECT 'stale, parallel hash, no leader' AS plan, p.* FROM jf_parallel(:'q') p;
RESET parallel_leader_participation;
SELECT 'stale, parallel hash' AS plan, p.* FROM jf_parallel(:'q') p;
SET enable_parallel_hash = off;
SELECT 'stale, oblivious' AS plan, p.* FROM jf_parallel(:'q') p;
RESET enable_parallel_hash;
-- a participant that arrives after a Parallel Hash is built (without the leader, the first
-- worker builds the 20 keys before the second one starts, as a rule) tests the shared filter as
-- those that built it do: every row that is let through has a partner (a late participant once
-- let every row through untested)
CREATE TABLE jf_late_dim (k int);
INSERT INTO jf_late_dim SELECT g * 1000 FROM generate_series(1, 20) g;
CREATE TABLE jf_late_probe (k int);
INSERT INTO jf_late_probe SELECT g FROM generate_series(1, 300000) g;
ANALYZE jf_late_dim, jf_late_probe;
\set q 'SELECT count(*) FROM jf_late_probe p JOIN jf_late_dim d ON d.k = p.k'
SET parallel_leader_participation = off;
SELECT 'late participants' AS plan, p.* FROM jf_parallel(:'q') p;
SET bloomfilter.join_filter = always;
SELECT r.plan ->> 'Custom Plan Provider' AS site,
       (r.plan ->> 'Rows Removed by Bloom Join Filter')::float8 * (r.plan ->> 'Actual Loops')::int
         > 299970 AS all_but_the_20_removed
FROM (SELECT explain_json(:'q', 'ANALYZE, COSTS OFF, TIMING OFF')
             #> '{Plan,Plans,0,Plans,0,Plans,0,Plans,0}' AS plan) r;
RESET bloomfilter.join_filter;
RESET parallel_leader_participation;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- join_filter = on: the planner places a filter where most probe rows go and each would cost the
-- join more than a test (a hash table past the cache; a small one too, whose probe costs about
-- 1.6 tests of a small filter), not in a join where every probe row has a partner
CREATE TABLE jf_fk (g int, k int);
INSERT INTO jf_fk SELECT g, (g % 2000 + 1) * 10 FROM generate_series(1, 20000) g;
ANALYZE jf_fk;
-- 10,000 keys whose hash table (with the rows) passes 1 MB
CREATE TABLE jf_wide (k int, pad text);
INSERT INTO jf_wide SELECT g * 3, repeat('x', 100) FROM generate_series(1, 10000) g;
ANALYZE jf_wide;
-- the first 8,192 rows all have a partner in jf_wide, the rest none
CREATE TABLE jf_sorted (g int, k int);
INSERT INTO jf_sorted SELECT g, CASE WHEN g <= 8192 THEN (g % 2000 + 1) * 3 ELSE -g END
FROM generate_series(1, 100000) g;
ANALYZE jf_sorted;
SET bloomfilter.join_filter = on;
SELECT (explain_json('SELECT count(*), max(w.pad) FROM jf_sorted s JOIN jf_wide w ON s.k = w.k')::text
        LIKE '%join build%') AS large_table_filtered,
       (explain_json('SELECT count(*) FROM jf_fk f JOIN jf_dim d ON f.k = d.id')::text
        LIKE '%join build%') AS fk_join_filtered,
       (explain_json('SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.id WHERE d.a < 10')::text
        LIKE '%join build%') AS small_table_filtered;
-- the run-time guard: the probe pauses after its first window of 4,096 rows (it removed none),
-- passes 65,536 rows untested, then tests again
SELECT (explain_json('SELECT count(*), max(w.pad) FROM jf_sorted s JOIN jf_wide w ON s.k = w.k', 'ANALYZE, COSTS OFF, TIMING OFF')
        -> 'Plan' -> 'Plans' -> 0 -> 'Plans' -> 0 -> 'Bloom Join Filter Paused')::text AS paused;
SELECT r.removed BETWEEN 25000 AND 30500 AS removed_after_the_pause
FROM (SELECT sum(m[1]::int) AS removed
      FROM regexp_matches(explain_json('SELECT count(*), max(w.pad) FROM jf_sorted s JOIN jf_wide w ON s.k = w.k',
                                       'ANALYZE, COSTS OFF, TIMING OFF')::text,
                          '"Rows Removed by Bloom Join Filter": (\d+)', 'g') m) r;
SELECT count(*), max(w.pad) = repeat('x', 100) AS pad FROM jf_sorted s JOIN jf_wide w ON s.k = w.k;
-- a cached plan obeys the setting at once: with it off its probe removes nothing
SET plan_cache_mode = force_generic_plan;
SET bloomfilter.join_filter = always;
PREPARE jf_q(int) AS SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.id WHERE d.a < $1;
EXECUTE jf_q(10);
SET bloomfilter.join_filter = off;
SELECT explain_json('EXECUTE jf_q(10)', 'ANALYZE, COSTS OFF, TIMING OFF')::text
       LIKE '%"Rows Removed by Bloom Join Filter": 0%' AS nothing_removed_when_off;
-- ... and its build node says why: the filter is not built
SELECT explain_json('EXECUTE jf_q(10)', 'ANALYZE, COSTS OFF, TIMING OFF')::text
       LIKE '%"Filter State": "off (bloomfilter.join_filter)"%' AS state_says_off;
EXECUTE jf_q(10);
DEALLOCATE jf_q;
RESET plan_cache_mode;
RESET bloomfilter.join_filter;
-- the planner's choice: at on, a hash join whose filter should pay is offered with the filter's
-- saving in its cost, so that the planner may choose it: here off hashes the 100,000 orders and
-- probes them with the 40,000 lines of the modes asked for; on hashes the lines and probes with
-- the orders, four in five of which the filter drops before the join and its batches
CREATE TABLE jf_ord (k int PRIMARY KEY, pad text);
INSERT INTO jf_ord SELECT g, repeat('o', 20) FROM generate_series(1, 100000) g;
CREATE TABLE jf_line (k int, mode int);
INSERT INTO jf_line SELECT (g * 7919) % 100000 + 1, g % 50 FROM generate_series(1, 200000) g;
ANALYZE jf_ord, jf_line;
-- the table a query's first Hash reads
CREATE FUNCTION jf_hashed(q text) RETURNS text
LANGUAGE sql AS $$
	SELECT substring(explain_json(q, 'COSTS OFF')::text
	                 FROM '"Node Type": "Hash",.*?"Relation Name": "(\w+)"')
$$;
SET work_mem = '64kB';
\set q 'SELECT count(*), max(o.pad) FROM jf_ord o JOIN jf_line l ON o.k = l.k WHERE l.mode < 10'
SET bloomfilter.join_filter = off;
SELECT jf_hashed(:'q') AS hashed_when_off;
:q;
SET bloomfilter.join_filter = on;
SELECT jf_hashed(:'q') AS hashed_when_on,
       explain_json(:'q', 'COSTS OFF')::text LIKE '%join build%' AS filtered;
-- the join's cost counts the filter's saving, but no more than what the scans of both sides cost
SELECT (j ->> 'Total Cost')::float8 >= (j -> 'Plans' -> 0 ->> 'Total Cost')::float8
                                       + (j -> 'Plans' -> 1 ->> 'Total Cost')::float8 AS not_below_its_scans
FROM (SELECT explain_json(:'q', 'COSTS ON') -> 'Plan' -> 'Plans' -> 0 AS j) p;
:q;
RESET work_mem;
-- a site below a Hash of the join's probe side (jf_m's rows, which the lower join hashes): a
-- hash join reads a probe row before it builds when its probe side starts for less than its
-- Hash costs, and the lower join would then hash every row of jf_m before the filter is
-- complete; such a join builds first, and both filters remove rows (bf2 is built from the rows
-- bf1 let through)
CREATE TABLE jf_b (mid int);
INSERT INTO jf_b SELECT g % 1000 FROM generate_series(1, 50000) g;
CREATE TABLE jf_m (id int, sel int);
INSERT INTO jf_m SELECT g, g * 20 FROM generate_series(0, 999) g;
CREATE TABLE jf_s (id int, flag boolean);
INSERT INTO jf_s SELECT g, g % 400 = 0 FROM generate_series(1, 20000) g;
ANALYZE jf_b, jf_m, jf_s;
SET join_collapse_limit = 1;
SET bloomfilter.join_filter = always;
\set q 'SELECT count(*) FROM (jf_b b JOIN jf_m m ON b.mid = m.id) JOIN jf_s s ON m.sel = s.id WHERE s.flag'
SELECT array_agg(m[1]::int > 0) AS removed
FROM regexp_matches(explain_json(:'q', 'ANALYZE, COSTS OFF, TIMING OFF')::text,
                    '"Rows Removed by Bloom Join Filter": (\d+)', 'g') m;
SELECT c.filters, c.same, c.nrows FROM jf_check(:'q') c;
:q;
RESET join_collapse_limit;
RESET bloomfilter.join_filter;
-- a site on the inner side of a nested loop runs once per outer row: here 20 index scans of
-- 200 lines each, 99 % of which the join drops; at on the filter goes on the index scan, as
-- the 3,960 rows it removes in all count (not the 198 of one scan)
CREATE TABLE jf_sup (id int PRIMARY KEY, region int);
INSERT INTO jf_sup SELECT g, g % 50 FROM generate_series(1, 1000) g;
CREATE TABLE jf_li (ok int, sk int);
INSERT INTO jf_li SELECT g, (g - 1) / 200 + 1 FROM generate_series(1, 200000) g;
CREATE INDEX ON jf_li (sk);
CREATE TABLE jf_or (k int, yr int);
INSERT INTO jf_or SELECT g * 10, g % 10 FROM generate_series(1, 20000) g;
ANALYZE jf_sup, jf_li, jf_or;
SET bloomfilter.join_filter = on;
\set q 'SELECT count(*) FROM jf_sup s JOIN jf_li l ON l.sk = s.id JOIN jf_or o ON o.k = l.ok WHERE s.region = 3 AND o.yr = 2'
SELECT p ~ '"Node Type": "Nested Loop".*"bloomfilter join probe".*"Index Name": "jf_li_sk_idx"' AS probe_on_inner_scan,
       (regexp_match(p, '"Rows Removed by Bloom Join Filter": (\d+)'))[1]::int > 150 AS removes_most
FROM (SELECT explain_json(:'q', 'ANALYZE, COSTS OFF, TIMING OFF')::text AS p) e;
SELECT c.same, c.nrows FROM jf_check(:'q') c;
:q;
RESET bloomfilter.join_filter;
-- a few site rows that a join between multiplies: the filter removes 570 of jf_d's 600 rows,
-- under the 1,000 rows a filter must remove, but keeps 57,000 of the 60,000 rows the lower
-- join would make from the join above, and those count
CREATE TABLE jf_d (id int, k int);
INSERT INTO jf_d SELECT g, g FROM generate_series(1, 600) g;
CREATE TABLE jf_f (d_id int);
INSERT INTO jf_f SELECT g % 600 + 1 FROM generate_series(1, 60000) g;
CREATE TABLE jf_kb (k int);
INSERT INTO jf_kb SELECT g * 20 FROM generate_series(1, 30) g;
ANALYZE jf_d, jf_f, jf_kb;
SET join_collapse_limit = 1;
SET bloomfilter.join_filter = on;
\set q 'SELECT count(*) FROM (jf_f f JOIN jf_d d ON f.d_id = d.id) JOIN jf_kb b ON d.k = b.k'
SELECT p ~ '"bloomfilter join (scan|probe)".*"Relation Name": "jf_d"' AS filters_jf_d,
       (regexp_match(p, '"Rows Removed by Bloom Join Filter": (\d+)'))[1]::int AS removed
FROM (SELECT explain_json(:'q', 'ANALYZE, COSTS OFF, TIMING OFF')::text AS p) e;
SELECT c.same, c.nrows FROM jf_check(:'q') c;
:q;
RESET join_collapse_limit;
RESET bloomfilter.join_filter;
-- the filter's size: 1 % false positives for the build side's estimated rows; 5 % or 10 % when
-- that passes a quarter of the hash join's memory (work_mem x hash_mem_multiplier); else none
CREATE TABLE jf_big (k int);
INSERT INTO jf_big SELECT g * 3 FROM generate_series(1, 50000) g;
ANALYZE jf_big;
CREATE FUNCTION jf_filter_kb(q text) RETURNS int
LANGUAGE sql AS $$
	SELECT substring(explain_json(q, 'VERBOSE, COSTS OFF')::text FROM '"Filter Size": (\d+)')::int
$$;
SET bloomfilter.join_filter = always;
SET hash_mem_multiplier = 2;
\set q 'SELECT count(*) FROM jf_sorted s JOIN jf_big b ON s.k = b.k'
SET work_mem = '4MB';
SELECT jf_filter_kb(:'q') AS kb_at_1pct;
SET work_mem = '64kB';
SELECT jf_filter_kb(:'q') AS kb_at_10pct;
SET hash_mem_multiplier = 1;
SELECT jf_filter_kb(:'q') AS kb_none;
SELECT c.same, c.nrows FROM jf_check(:'q') c;
RESET work_mem;
RESET hash_mem_multiplier;
RESET bloomfilter.join_filter;
-- the setting's values
SET bloomfilter.join_filter = yes;
SHOW bloomfilter.join_filter;
SELECT sqlstate_of('SET bloomfilter.join_filter = sometimes') AS bad_value;
RESET bloomfilter.join_filter;
SHOW bloomfilter.join_filter;
-- write statements get filters: UPDATE ... FROM, DELETE ... USING, INSERT ... SELECT, MERGE and
-- SELECT ... FOR UPDATE (every node under a ModifyTable or LockRows depends on its
-- EvalPlanQual parameter, which once kept every build side out); each run with the setting
-- off and always in a transaction rolled back, comparing the rows returned and the table after
CREATE TABLE jf_target AS SELECT g AS id, k, 0 AS v FROM jf_fact;
CREATE TABLE jf_sink (id int, k int);
ANALYZE jf_target;
CREATE FUNCTION jf_write(stmt text, tbl text, OUT filtered boolean, OUT removed boolean,
                         OUT same boolean, OUT nrows int)
LANGUAGE plpgsql AS $$
DECLARE
	res text[];
	plan text;
	digest text[];
	got text;
	probe text := format('SELECT md5(string_agg(t::text, '','' ORDER BY t::text)) FROM %s t', tbl);
BEGIN
	FOR i IN 1..2 LOOP
		PERFORM set_config('bloomfilter.join_filter', CASE i WHEN 1 THEN 'off' ELSE 'always' END, true);
		BEGIN
			IF i = 2 THEN
				plan := explain_json(stmt, 'ANALYZE, COSTS OFF, TIMING OFF')::text;
				filtered := plan LIKE '%join build%';
				removed := substring(plan FROM '"Rows Removed by Bloom Join Filter": (\d+)')::int > 0;
				RAISE EXCEPTION 'roll back' USING ERRCODE = 'P0003';
			END IF;
		EXCEPTION WHEN SQLSTATE 'P0003' THEN NULL;
		END;
		BEGIN
			IF stmt ~ '^SELECT|RETURNING' THEN
				EXECUTE format('WITH w AS (%s) SELECT array_agg(r::text ORDER BY r::text)::text FROM w r',
							   stmt) INTO got;
				res[i] := got;
			ELSE
				EXECUTE stmt;
				GET DIAGNOSTICS nrows = ROW_COUNT;
				res[i] := nrows::text;
			END IF;
			EXECUTE probe INTO got;
			digest[i] := got;
			RAISE EXCEPTION 'roll back' USING ERRCODE = 'P0003';
		EXCEPTION WHEN SQLSTATE 'P0003' THEN NULL;
		END;
	END LOOP;
	same := res[1] IS NOT DISTINCT FROM res[2] AND digest[1] IS NOT DISTINCT FROM digest[2];
	nrows := CASE WHEN stmt ~ '^SELECT|RETURNING' THEN cardinality(res[2]::text[]) ELSE res[2]::int END;
END
$$;
SET bloomfilter.prefetch_scan = off;
SELECT 'update' AS stmt, w.* FROM jf_write('UPDATE jf_target t SET v = t.v + 1 FROM jf_dim d WHERE t.k = d.id AND d.a < 30 RETURNING t.id, t.v', 'jf_target') w
UNION ALL
SELECT 'delete', w.* FROM jf_write('DELETE FROM jf_target t USING jf_dim d WHERE t.k = d.id AND d.a < 30 RETURNING t.id', 'jf_target') w
UNION ALL
SELECT 'insert', w.* FROM jf_write('INSERT INTO jf_sink SELECT t.id, d.id FROM jf_target t JOIN jf_dim d ON t.k = d.id WHERE d.a < 30', 'jf_sink') w
UNION ALL
SELECT 'merge', w.* FROM jf_write('MERGE INTO jf_target t USING jf_dim d ON t.k = d.id AND d.a < 30 WHEN MATCHED THEN UPDATE SET v = t.v + 1', 'jf_target') w
UNION ALL
SELECT 'for update', w.* FROM jf_write('SELECT t.id, d.id FROM jf_target t JOIN jf_dim d ON t.k = d.id WHERE d.a < 30 FOR UPDATE OF t', 'jf_target') w;
RESET bloomfilter.prefetch_scan;
SELECT 'update, join scan' AS stmt, w.* FROM jf_write('UPDATE jf_target t SET v = t.v + 1 FROM jf_dim d WHERE t.k = d.id AND d.a < 30 RETURNING t.id, t.v', 'jf_target') w;
-- a join on two keys whose probe keys come from two scans (ma.bk from ma, mc.n from mc below
-- another join): a filter could test ma.bk only, by which every row has a partner; at on none
-- is placed there (the estimates speak of both keys), at always it is
CREATE TABLE jf_ma (id int, ck int, bk int);
INSERT INTO jf_ma SELECT g, g % 20000, g % 100 FROM generate_series(1, 100000) g;
CREATE TABLE jf_mb (id int, n int);
INSERT INTO jf_mb SELECT g, g % 25 FROM generate_series(0, 99) g;
CREATE TABLE jf_mc (ck int, n int);
INSERT INTO jf_mc SELECT g, g % 25 FROM generate_series(0, 19999) g;
ANALYZE jf_ma, jf_mb, jf_mc;
\set q 'SELECT count(*) FROM jf_ma ma JOIN jf_mb mb ON ma.bk = mb.id JOIN jf_mc mc ON ma.ck = mc.ck AND mb.n = mc.n'
SET bloomfilter.join_filter = on;
SELECT explain_json(:'q', 'COSTS OFF')::text LIKE '%"Bloom Join Filter": "bf1 (mb.id)"%' AS part_key_filter_at_on;
SET bloomfilter.join_filter = always;
SELECT explain_json(:'q', 'COSTS OFF')::text LIKE '%"Bloom Join Filter": "bf1 (mb.id)"%' AS part_key_filter_at_always;
SELECT c.same, c.nrows FROM jf_check(:'q') c;
RESET bloomfilter.join_filter;
