"""The join oracle's tables (test/oracle/join_oracle.py).

Every value is a function of the row number g, so that every run sees the same data.  Each row
has a key number x, and every key column is a function of x: two rows whose x are equal join
on any key column, whatever its type.  Only the spelling differs from side to side where the
type's equality is not byte equality: a fact's numeric has scale 1 and a dimension's scale 3
(1.5 = 1.500), a fact's float8 zero is -0 and a dimension's is 0 (NaN on both), a fact's ci text
(a nondeterministic, case-insensitive ICU collation) is 'Key<x>' or 'kEY<x>' and a
dimension's 'KEY<x>' or, for x % 7 = 0, 'kéy<x>' (accents count: no match).  A fact's text is
'K<x>' for x % 3 = 0, 'k<x>' otherwise, against a dimension's 'k<x>' (lower() matches them all).
Long keys (big, 9,600 bytes for x % 4 = 0) are stored out of line uncompressed in the facts
(STORAGE EXTERNAL) and compressed inline in the dimensions.

Facts (fact, the partitioned fact_p, the inheritance tree fact_i; their ids are unique across
them: 1.., 10001.., 20001..) have x over 0..4000, a heavy hitter (x = 42 for g % 64 = 0) and
NULLs, and two more keys w and z (columns w4, w8, wtx, z4, zu, zn) for star joins; the
dimensions (dim_a, 2,500 rows; dim_b, 300; dim_c, 60) cover part of that range, with
duplicates and NULLs.  grp = g % 100 lets a query keep 1 to 50 % of a dimension.  fact_big
(100,000 narrow rows) has only the keys of dim_a's rows with grp < 25: joined to them, the
planner expects a filter to remove three rows in four and it removes none, which is what the
run-time guard of bloomfilter.join_filter = on is for.

Statistics that lie (st_b, st_p; autovacuum off, so nothing corrects them during the run): st_b
(40,000 rows, then 60,000) is analyzed while flag = 1 holds for 0.1 % of its rows, flag10 = 1
for 10 % and hot = 1 for 0.05 %, and no row has grp = 777; then every row gets flag = 1 and
flag10 = 1, the first 8,000 keys hot = 1 (their new versions side by side, so that one
participant of a parallel scan reads most of them), and 20,000 rows with grp = 777 come in.
A build side filtered on those arrives 10 to 1,000 times its estimate.  st_p (300,000 rows)
is the probe side, large enough that parallel workers share the build.

Side effects (side_effects_sql): the sequence cnt counts the calls of vol(), volb(), leaky(),
leaky_s(), srf_cnt() and every nextval('cnt'); boom(x, k) raises SQLSTATE 22012 when x = k (all
volatile but leaky_s(), which claims to be stable, none leakproof; leaky() and leaky_s() are
cheap, so the planner would like to test them early);
sbv is a security_barrier view over fact.  join_oracle.py compares cnt across configurations.

postgres_fdw (fdw_setup_sql): the loopback server loop (extensions 'bloomfilter') and foreign
tables ft_fact (over fact) and ft_dim (over dim_a).  Before any query, a role that may only
create objects in public (oracle_shadow) defines @>(bloomfilter, varchar), <@(varchar,
bloomfilter), bloomfilter_contains(bloomfilter, varchar) and bloomfilter_add(bloomfilter,
varchar) of its own, which no filter, local or shipped to the remote, may pick up.
EvalPlanQual (join_epq.py) updates epl, whose rows are copies of fact's first 400.
"""

# the columns every table has, in the order of the facts' and dimensions' definition
COMMON = "id, grp, v, k4, k8, k2, n, fl, tx, vc, ci, u, m1, m2, big"
FACT_ONLY = "w4, w8, wtx, z4, zu, zn"

FACT_X = "CASE WHEN g % 19 = 3 THEN NULL WHEN g % 64 = 0 THEN 42 ELSE (g * 7919) % 4001 END"
FACT_W = "CASE WHEN g % 23 = 4 THEN NULL ELSE (g * 104729) % 3001 END"
FACT_Z = "CASE WHEN g % 29 = 6 THEN NULL WHEN g % 11 = 0 THEN 134 ELSE (g * 7) % 1500 END"
DIM_X = {
    'dim_a': (2500,
              "CASE WHEN g % 37 = 5 THEN NULL WHEN g % 50 = 0 THEN (g - 1) * 2 ELSE g * 2 END"),
    'dim_b': (300, "CASE WHEN g % 41 = 7 THEN NULL WHEN g % 25 = 0 THEN 42 ELSE g * 13 END"),
    'dim_c': (60, "CASE WHEN g = 17 THEN NULL ELSE g * 67 END"),
}


def columns_ddl(fact, icu):
    ci = "text COLLATE ci" if icu else "text"
    cols = (f"id int, grp int, v int, k4 int4, k8 int8, k2 int2, n numeric, fl float8, tx text, "
            f"vc varchar(20), ci {ci}, u uuid, m1 int4, m2 text, big text")
    if fact:
        cols += ", w4 int4, w8 int8, wtx text, z4 int4, zu uuid, zn numeric"
    return cols


def values_sql(fact, offset):
    """the select list of row g: id g + offset, keys of x (and w, z for a fact)"""
    side = lambda f, d: f if fact else d
    cols = [
        f"g + {offset}", "g % 100", "g % 1000", "x",
        side("x", "CASE WHEN g % 29 = 0 THEN x + 4294967296 ELSE x END"),
        "x::int2",
        f"CASE WHEN x % 97 = 5 THEN 'NaN'::numeric ELSE round(x / 2.0, {side(1, 3)}) END",
        f"CASE WHEN x % 307 = 7 THEN 'NaN'::float8 "
        f"WHEN x % 211 = 0 THEN '{side('-0', '0')}'::float8 ELSE x / 4.0 END",
        side("CASE WHEN x % 3 = 0 THEN 'K' ELSE 'k' END || x", "'k' || x"),
        "'k' || x",
        side("CASE WHEN x % 2 = 0 THEN 'Key' ELSE 'kEY' END || x",
             "CASE WHEN x % 7 = 0 THEN 'kéy' ELSE 'KEY' END || x"),
        "md5('u' || x)::uuid",
        "x % 50",
        side("CASE WHEN g % 31 = 0 THEN NULL ELSE (x / 50)::text END", "(x / 50)::text"),
        "CASE WHEN x % 4 = 0 THEN repeat(md5(x::text), 300) ELSE md5(x::text) END",
    ]
    if fact:
        cols += ["w", "w", "'k' || w", "z", "md5('u' || z)::uuid", "round(z / 2.0, 2)"]
    return ", ".join(cols)


def fill(table, fact, first, last, offset=0):
    """INSERT of rows first..last (g) with ids g + offset"""
    lateral = f"{FACT_X} AS x, {FACT_W} AS w, {FACT_Z} AS z" if fact else \
        f"{DIM_X[table][1]} AS x"
    cols = COMMON + (", " + FACT_ONLY if fact else "")
    return (f"INSERT INTO {table} ({cols}) SELECT {values_sql(fact, offset)} "
            f"FROM generate_series({first}, {last}) g, LATERAL (SELECT {lateral}) v;")


def reversed_ddl(icu):
    """a fact's columns in reverse order, and one more: a child whose attribute numbers differ"""
    cols = [c.strip() for c in columns_ddl(True, icu).split(",")]
    return ", ".join(["extra int"] + cols[::-1])


def setup_sql(icu):
    """the set-up, as a list of SQL strings to run in order; icu: the ci collation exists"""
    s = ["""
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE small AS SELECT g AS id, (g * 7) % 50 AS k FROM generate_series(1, 8) g;
CREATE TABLE sink (a int, b int, t text);
"""]
    if icu:
        s.append("CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', "
                 "deterministic = false);")
    for d in DIM_X:
        s.append(f"CREATE TABLE {d} ({columns_ddl(False, icu)});")
        s.append(fill(d, False, 1, DIM_X[d][0]))
    s.append(f"CREATE TABLE fact ({columns_ddl(True, icu)});")
    s.append("ALTER TABLE fact ALTER COLUMN big SET STORAGE EXTERNAL;")
    s.append(fill('fact', True, 1, 6000))
    # range partitions, one of them attached with its columns in another order
    s.append(f"""
CREATE TABLE fact_p ({columns_ddl(True, icu)}) PARTITION BY RANGE (id);
CREATE TABLE fact_p1 PARTITION OF fact_p FOR VALUES FROM (MINVALUE) TO (11500);
CREATE TABLE fact_p2 PARTITION OF fact_p FOR VALUES FROM (11500) TO (13000);
CREATE TABLE fact_p3 ({reversed_ddl(icu)});
ALTER TABLE fact_p3 DROP COLUMN extra;
ALTER TABLE fact_p ATTACH PARTITION fact_p3 DEFAULT;
ALTER TABLE fact_p ALTER COLUMN big SET STORAGE EXTERNAL;
{fill('fact_p', True, 1, 4000, 10000)}
""")
    # inheritance: a parent with rows, a plain child, and a child with its own column order
    s.append(f"""
CREATE TABLE fact_i ({columns_ddl(True, icu)});
CREATE TABLE fact_i1 () INHERITS (fact_i);
CREATE TABLE fact_i2 ({reversed_ddl(icu)});
ALTER TABLE fact_i2 INHERIT fact_i;
{fill('fact_i', True, 1, 1000, 20000)}
{fill('fact_i1', True, 1001, 2200, 20000)}
{fill('fact_i2', True, 2201, 3000, 20000)}
""")
    # the keys of dim_a's rows g with g % 100 < 25 (x = 2 g; see DIM_X)
    s.append("""
CREATE TABLE fact_big AS SELECT g AS id, g % 100 AS grp, g % 1000 AS v, x AS k4, x::int8 AS k8,
    'k' || x AS tx
FROM generate_series(1, 100000) g,
    LATERAL (SELECT 2 * ((g % 25) + 100 * ((g / 25) % 25)) AS x) v;
""")
    s.append(STALE_TABLES)
    s.append(side_effects_sql())
    s.append("""
CREATE INDEX ON fact (k4);
CREATE INDEX ON dim_a (grp);
CREATE INDEX ON dim_b (k4);
ANALYZE;
""")
    s.append(STALE_CHANGES)
    return s


# created before the ANALYZE of every table, changed after it
STALE_TABLES = """
CREATE TABLE st_b (k int, flag int, flag10 int, hot int, grp int, tx text, vc varchar(20))
    WITH (autovacuum_enabled = off);
INSERT INTO st_b SELECT g, (g % 1000 = 0)::int, (g % 10 = 0)::int, (g % 2000 = 1)::int, g % 100,
    'k' || g, 'k' || g FROM generate_series(1, 40000) g;
CREATE TABLE st_p (id int, k int, k8 int8, v int, tx text) WITH (autovacuum_enabled = off);
INSERT INTO st_p SELECT g, x, x, g % 1000, 'k' || x
FROM generate_series(1, 300000) g, LATERAL (SELECT (g::int8 * 7919 % 90000)::int AS x) v;
CREATE TABLE epl_src AS SELECT id, id % 50 AS grp, 0 AS v, k4 AS k, k8, tx, vc, u
FROM fact WHERE id <= 400 AND k4 IS NOT NULL;
CREATE TABLE epl (LIKE epl_src);
INSERT INTO epl SELECT * FROM epl_src;
"""
STALE_CHANGES = """
UPDATE st_b SET flag = 1, flag10 = 1;
UPDATE st_b SET hot = 1 WHERE k <= 8000;
INSERT INTO st_b SELECT g, 1, 1, 0, 777, 'k' || g, 'k' || g FROM generate_series(40001, 60000) g;
"""


def side_effects_sql():
    """the counter, the functions that have side effects or fail, a security_barrier view"""
    return """
CREATE SEQUENCE cnt;
CREATE FUNCTION vol(x int) RETURNS int LANGUAGE plpgsql AS
    $$BEGIN PERFORM nextval('cnt'); RETURN x; END$$;
CREATE FUNCTION volb(x int) RETURNS bool LANGUAGE plpgsql AS
    $$BEGIN PERFORM nextval('cnt'); RETURN x % 5 <> 1; END$$;
CREATE FUNCTION leaky(x int) RETURNS bool LANGUAGE plpgsql COST 0.01 AS
    $$BEGIN PERFORM nextval('cnt'); RETURN true; END$$;
CREATE FUNCTION leaky_s(x int) RETURNS bool LANGUAGE plpgsql STABLE COST 0.01 AS
    $$BEGIN PERFORM nextval('cnt'); RETURN true; END$$;
CREATE FUNCTION srf_cnt(x int) RETURNS SETOF int LANGUAGE plpgsql ROWS 2 AS
    $$BEGIN PERFORM nextval('cnt'); RETURN NEXT x; IF x % 3 = 0 THEN RETURN NEXT -x; END IF; END$$;
CREATE FUNCTION boom(x int, k int) RETURNS int LANGUAGE plpgsql AS
    $$BEGIN IF x = k THEN RAISE EXCEPTION 'boom %', x USING ERRCODE = '22012'; END IF;
      RETURN x; END$$;
CREATE VIEW sbv WITH (security_barrier) AS SELECT * FROM fact WHERE grp < 80;
"""


def fdw_setup_sql(dbname, host, port, user, password):
    """the loopback server, its foreign tables, and the shadowing operators of a role that
    may create objects in public"""
    pw = f", password '{password}'" if password else ""
    return [f"""
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
CREATE SERVER loop FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '{host}', port '{port}', dbname '{dbname}', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER loop OPTIONS (user '{user}'{pw});
CREATE FOREIGN TABLE ft_fact (id int, grp int, v int, k4 int4, k8 int8, tx text,
    vc varchar(20), u uuid, w4 int4) SERVER loop OPTIONS (schema_name 'public', table_name 'fact');
CREATE FOREIGN TABLE ft_dim (id int, grp int, v int, k4 int4, k8 int8, tx text,
    vc varchar(20), u uuid) SERVER loop OPTIONS (schema_name 'public', table_name 'dim_a');
ANALYZE ft_fact;
ANALYZE ft_dim;
""", """
DROP ROLE IF EXISTS oracle_shadow;
CREATE ROLE oracle_shadow;
GRANT CREATE ON SCHEMA public TO oracle_shadow;
SET ROLE oracle_shadow;
CREATE FUNCTION bloomfilter_contains(bloomfilter, varchar) RETURNS bool LANGUAGE sql
    IMMUTABLE AS 'SELECT true';
CREATE OPERATOR @> (LEFTARG = bloomfilter, RIGHTARG = varchar, FUNCTION = bloomfilter_contains);
CREATE FUNCTION shadow_contained(varchar, bloomfilter) RETURNS bool LANGUAGE sql
    IMMUTABLE AS 'SELECT true';
CREATE OPERATOR <@ (LEFTARG = varchar, RIGHTARG = bloomfilter, FUNCTION = shadow_contained);
CREATE FUNCTION bloomfilter_add(bloomfilter, varchar) RETURNS bloomfilter LANGUAGE sql
    IMMUTABLE AS 'SELECT $1';
RESET ROLE;
"""]


def storage_checks():
    """(description, SQL returning true) pairs: the data is as the docstring says"""
    return [
        ("long fact keys are out of line and uncompressed",
         "SELECT count(*) > 1000 AND bool_and(pg_column_size(big) >= 9600 AND "
         "pg_column_compression(big) IS NULL) FROM fact WHERE length(big) > 100"),
        ("in every partition too",
         "SELECT count(*) > 100 AND bool_and(pg_column_size(big) >= 9600) "
         "FROM fact_p3 WHERE length(big) > 100"),
        ("long dimension keys are compressed",
         "SELECT count(*) > 100 AND bool_and(pg_column_compression(big) IS NOT NULL) "
         "FROM dim_a WHERE length(big) > 100"),
        ("fact numerics have scale 1, dimension numerics scale 3",
         "SELECT (SELECT bool_and(scale(n) = 1) FROM fact WHERE n <> 'NaN') AND "
         "(SELECT bool_and(scale(n) = 3) FROM dim_a WHERE n <> 'NaN')"),
        ("-0 and NaN in both",
         "SELECT (SELECT count(*) FILTER (WHERE fl::text = '-0') > 0 AND count(*) FILTER "
         "(WHERE fl = 'NaN') > 0 FROM fact) AND (SELECT count(*) FILTER (WHERE fl::text = '0') > 0 "
         "AND count(*) FILTER (WHERE fl = 'NaN') > 0 FROM dim_a)"),
        ("every key joins some rows and not others",
         "SELECT count(DISTINCT f.id) BETWEEN 500 AND 4500 "
         "FROM fact f JOIN dim_a d ON f.k4 = d.k4"),
        ("the statistics of st_b lie: analyzed at 40,000 rows, now 60,000 with flag = 1",
         "SELECT (SELECT count(*) FROM st_b WHERE flag = 1) = 60000 AND "
         "(SELECT reltuples = 40000 FROM pg_class WHERE relname = 'st_b')"),
        ("inheritance and partitions hold their rows",
         "SELECT (SELECT count(*) FROM fact_i2) = 800 AND (SELECT count(*) FROM fact_p3) > 500 "
         "AND (SELECT count(*) FROM ONLY fact_i) = 1000"),
    ]
