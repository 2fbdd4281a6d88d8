"""The oracle's tables, filters and helper objects (test/oracle/oracle.py).

Everything is a function of the row number, so that every run (and every seed) sees the same
data: a query's result depends only on the query.  Elements are nearly unique in every column
(cuckoo aggregates over heavy hitters are issue 12's item 5, not this oracle's business), a
few of each column are NULL, and text and bytea elements come in every kind of storage:
short (1-byte header), inline (4-byte header), compressed inline, external and external
compressed (the last two in table te, which ORACLE_SKIP=toast leaves empty).
"""

VARIANTS = ['blocked', 'classic', 'counting', 'scalable', 'cuckoo']
GROWING = {'scalable', 'cuckoo'}

# element columns of t and their types
T_COLS = {
    'a': 'int4', 'b': 'int8', 's': 'int2', 'tx': 'text', 'vc': 'varchar', 'bp': 'bpchar',
    'by': 'bytea', 'u': 'uuid', 'n': 'numeric', 'arr': 'int[]',
}
# every relation has id, k (0..9), a (int4) and tx (text); t has all of T_COLS, tl and te by
REL_COLS = {
    't': list(T_COLS),
    'ip': ['a', 'tx'], 'ONLY ip': ['a', 'tx'], 'pt': ['a', 'tx'], 'rt': ['a', 'tx'],
    'mv': ['a', 'tx'], 'tl': ['a', 'tx', 'by'], 'te': ['a', 'tx', 'by'],
    'tm': ['a', 'tx', 'd', 'dt'], 'sbv': ['a', 'tx'],
}
ROLE = 'bf_oracle_rls'

# a (int4): (g * 7919) % 4001 is one to one for g < 4001; the same in every table
A = "CASE WHEN g % 17 = 1 THEN NULL ELSE (g * 7919) % 4001 END"
TX = "CASE WHEN g % 13 = 4 THEN NULL WHEN g % 5 = 0 THEN repeat(md5(g::text), 5) ELSE md5(g::text) END"


def setup_sql(skip):
    """the set-up, as a list of SQL strings to run in order"""
    toast = 'toast' not in skip
    s = []
    s.append(f"""
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
SET bloomfilter.agg_scan = off;
SET bloomfilter.prefetch_scan = off;
SET max_parallel_workers_per_gather = 0;
CREATE SEQUENCE sq;
CREATE SEQUENCE sq_log;
CREATE TABLE oracle_log (v text);
CREATE TABLE sink (id int, a int);
-- a volatile qual with a side effect of its own (a row and a sequence step)
CREATE FUNCTION logit(v anyelement) RETURNS boolean LANGUAGE plpgsql VOLATILE AS
$$ BEGIN PERFORM nextval('sq_log'); INSERT INTO oracle_log VALUES (v::text); RETURN true; END $$;
-- a costly volatile qual (ordered after the filter test) that draws from random()
CREATE FUNCTION rnd_after(v int) RETURNS boolean LANGUAGE plpgsql VOLATILE AS
$$ BEGIN RETURN random() < 0.8; END $$;

CREATE TABLE t (id int, k int, a int4, b int8, s int2, tx text, vc varchar(40), bp char(8),
                by bytea, u uuid, n numeric, arr int[]);
INSERT INTO t SELECT g, g % 10, {A},
    CASE WHEN g % 19 = 2 THEN NULL ELSE (g::int8 * 2654435761) % 1000000007 END,
    CASE WHEN g % 23 = 3 THEN NULL ELSE g::int2 END,
    {TX},
    CASE WHEN g % 29 = 5 THEN NULL ELSE 'v' || g END,
    CASE WHEN g % 31 = 6 THEN NULL ELSE lpad(g::text, 6) END,
    CASE WHEN g % 37 = 7 THEN NULL ELSE decode(md5(g::text), 'hex') END,
    CASE WHEN g % 41 = 8 THEN NULL ELSE md5('u' || g)::uuid END,
    CASE WHEN g % 43 = 9 THEN NULL ELSE g * 1.5 END,
    CASE WHEN g % 47 = 10 THEN NULL ELSE ARRAY[g, g % 10] END
FROM generate_series(1, 3000) g;
CREATE TABLE small AS SELECT g AS id, g AS k, {A} AS a FROM generate_series(1, 6) g;

-- inheritance: a parent with rows and two children (one with a column of its own)
CREATE TABLE ip (id int, k int, a int4, tx text);
CREATE TABLE ic1 () INHERITS (ip);
CREATE TABLE ic2 (z int) INHERITS (ip);
INSERT INTO ip SELECT g, g % 10, {A}, {TX} FROM generate_series(1, 600) g;
INSERT INTO ic1 SELECT g, g % 10, {A}, {TX} FROM generate_series(601, 1500) g;
INSERT INTO ic2 SELECT g, g % 10, {A}, {TX}, g FROM generate_series(1501, 2400) g;

-- partitioned, with a sub-partitioned partition and a default one
CREATE TABLE pt (id int, k int, a int4, tx text) PARTITION BY RANGE (id);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (MINVALUE) TO (1000);
CREATE TABLE pt2 PARTITION OF pt FOR VALUES FROM (1000) TO (2000) PARTITION BY LIST (k);
CREATE TABLE pt2a PARTITION OF pt2 FOR VALUES IN (0, 1, 2, 3, 4);
CREATE TABLE pt2b PARTITION OF pt2 DEFAULT;
CREATE TABLE ptd PARTITION OF pt DEFAULT;
INSERT INTO pt SELECT g, g % 10, {A}, {TX} FROM generate_series(1, 3000) g;

CREATE MATERIALIZED VIEW mv AS SELECT id, k, a, tx FROM t WHERE id % 2 = 0;
-- a security-barrier view (its qual is tested before the query's)
CREATE VIEW sbv WITH (security_barrier) AS SELECT id, k, a, tx FROM t WHERE k <> 5;

-- a dropped column, and columns added with a default after rows were written (the old rows
-- do not hold them: the value comes from the catalog; only a few, as a cuckoo filter of a
-- column with heavy hitters is issue 12's item 5)
CREATE TABLE tm (id int, gone text, k int, a int4, tx text);
INSERT INTO tm SELECT g, 'x', g % 10, {A}, {TX} FROM generate_series(1, 6) g;
ALTER TABLE tm DROP COLUMN gone;
ALTER TABLE tm ADD COLUMN d int4 DEFAULT 42, ADD COLUMN dt text DEFAULT 'v42';
INSERT INTO tm SELECT g, g % 10, {A}, {TX}, g, 'v' || g FROM generate_series(7, 2400) g;

-- text and bytea of the storage kinds that stay in the row:
--   short (1-byte header), inline (4-byte header, 320 B incompressible), compressed inline
CREATE TABLE tl (id int, k int, a int4, kind text, tx text, by bytea);
INSERT INTO tl SELECT g, g % 10, {A}, kind,
    CASE WHEN g % 11 = 3 THEN NULL
         WHEN kind = 'short' THEN md5(g::text)
         WHEN kind = 'inline' THEN (SELECT string_agg(md5((g * 100 + i)::text), '') FROM generate_series(1, 10) i)
         ELSE repeat(md5(g::text), 200) END,
    CASE WHEN g % 11 = 4 THEN NULL
         WHEN kind = 'short' THEN decode(md5(g::text), 'hex')
         WHEN kind = 'inline' THEN (SELECT decode(string_agg(md5((g * 100 + i)::text), ''), 'hex') FROM generate_series(1, 10) i)
         ELSE decode(repeat(md5(g::text), 200), 'hex') END
FROM generate_series(1, 90) g, LATERAL (SELECT (ARRAY['short', 'inline', 'compressed'])[g % 3 + 1] AS kind) x;

-- external (incompressible, 3.2 kB) and external compressed (a 3.2 kB period, 38 kB; the
-- bytea's period begins with zeros, or pglz gives up after its first kilobyte)
CREATE TABLE te (id int, k int, a int4, kind text, tx text, by bytea);
""")
    if toast:
        s.append(f"""
INSERT INTO te SELECT g, g % 10, {A}, kind,
    CASE WHEN g % 11 = 3 THEN NULL
         WHEN kind = 'external' THEN (SELECT string_agg(md5((g * 1000 + i)::text), '') FROM generate_series(1, 100) i)
         ELSE repeat((SELECT string_agg(md5((g * 1000 + i)::text), '') FROM generate_series(1, 100) i), 12) END,
    CASE WHEN g % 11 = 4 THEN NULL
         WHEN kind = 'external' THEN (SELECT decode(string_agg(md5((g * 1000 + i)::text), ''), 'hex') FROM generate_series(1, 200) i)
         ELSE decode(repeat(repeat('00', 100) || (SELECT string_agg(md5((g * 1000 + i)::text), '') FROM generate_series(1, 150) i), 12), 'hex') END
FROM generate_series(1, 40) g, LATERAL (SELECT (ARRAY['external', 'extcompressed'])[g % 2 + 1] AS kind) x;
""")
    # row-level security: a non-superuser role sees part of rt (one policy with a filter test)
    s.append(f"""
CREATE TABLE rt AS SELECT id, k, a, tx FROM t;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{ROLE}') THEN CREATE ROLE {ROLE} NOLOGIN; END IF;
END $$;
CREATE TABLE filters (name text PRIMARY KEY, f bloomfilter);
ALTER TABLE rt ENABLE ROW LEVEL SECURITY;
CREATE POLICY rt_k ON rt TO {ROLE} USING (k <> 3 AND coalesce(a, 0) % 4 <> 1);
CREATE POLICY rt_f ON rt AS RESTRICTIVE TO {ROLE}
    USING (NOT coalesce((SELECT f FROM filters WHERE name = 't_a_classic') @> (a + 1), false));
GRANT SELECT, UPDATE, DELETE ON rt TO {ROLE};
GRANT SELECT ON t, small, filters, ip, pt, mv, tl, te, tm, sbv TO {ROLE};
GRANT SELECT, INSERT ON oracle_log, sink TO {ROLE};
GRANT USAGE, SELECT, UPDATE ON sq, sq_log TO {ROLE};

-- EvalPlanQual: ep is reset from ep_src before each run; epp is an inheritance parent
CREATE TABLE ep_src AS SELECT id, k, a, tx, 0 AS b FROM t WHERE id <= 90;
CREATE TABLE ep (id int, k int, a int4, tx text, b int);
CREATE TABLE epp (id int, k int, a int4, tx text, b int);
CREATE TABLE epc () INHERITS (epp);
""")
    # the filters: members are the rows with id % 3 = 0 (t) or id % 2 = 0 (tl, te)
    for col in T_COLS:
        for v in VARIANTS:
            s.append(f"INSERT INTO filters SELECT 't_{col}_{v}', bloomfilter_agg({col}, 1000, 0.01, '{v}') "
                     f"FROM t WHERE id % 3 = 0;")
    for col in ('d', 'dt'):
        for v in VARIANTS:
            s.append(f"INSERT INTO filters SELECT 'tm_{col}_{v}', bloomfilter_agg({col}, 1000, 0.01, '{v}') "
                     f"FROM tm WHERE id % 3 = 0;")
    for src in (['tl', 'te'] if toast else ['tl']):
        for col in ('tx', 'by'):
            for v in VARIANTS:
                s.append(f"INSERT INTO filters SELECT '{src}_{col}_{v}', "
                         f"bloomfilter_agg({col}, 100, 0.01, '{v}') FROM {src} WHERE id % 2 = 0;")
    s.append("ANALYZE;")
    return s


def storage_checks(skip):
    """(description, SQL returning true) pairs: the storage kinds are really there"""
    c = [
        ("short text and bytea have a 1-byte header",
         "SELECT bool_and(pg_column_size(tx) = octet_length(tx) + 1 AND pg_column_size(by) = octet_length(by) + 1) "
         "FROM tl WHERE kind = 'short' AND tx IS NOT NULL AND by IS NOT NULL"),
        ("inline text and bytea have a 4-byte header, uncompressed",
         "SELECT bool_and(pg_column_size(tx) = octet_length(tx) + 4 AND pg_column_compression(tx) IS NULL "
         "AND pg_column_size(by) = octet_length(by) + 4) FROM tl WHERE kind = 'inline' AND tx IS NOT NULL AND by IS NOT NULL"),
        ("compressed inline text and bytea",
         "SELECT bool_and(pg_column_compression(tx) IS NOT NULL AND pg_column_size(tx) < 1000 "
         "AND pg_column_compression(by) IS NOT NULL) FROM tl WHERE kind = 'compressed' AND tx IS NOT NULL AND by IS NOT NULL"),
    ]
    if 'toast' not in skip:
        c += [
            ("external values are out of line (each one a TOAST value of its own)",
             "SELECT (SELECT count(DISTINCT chunk_id) FROM {te}) >= "
             "(SELECT count(tx) + count(by) FROM te)"),
            ("external compressed values are compressed and larger than a row",
             "SELECT bool_and(pg_column_compression(tx) IS NOT NULL AND pg_column_size(tx) > 2100) "
             "FROM te WHERE kind = 'extcompressed' AND tx IS NOT NULL"),
            ("external compressed bytea",
             "SELECT bool_and(pg_column_compression(by) IS NOT NULL AND pg_column_size(by) > 2100) "
             "FROM te WHERE kind = 'extcompressed' AND by IS NOT NULL"),
            ("external incompressible values are not compressed",
             "SELECT bool_and(pg_column_compression(tx) IS NULL AND pg_column_size(tx) > 2100) "
             "FROM te WHERE kind = 'external' AND tx IS NOT NULL"),
        ]
    return c
