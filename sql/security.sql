--
-- security: who may install the extension, and that installing it cannot be
-- captured through search_path (in the manner of contrib/seg's security.sql);
-- that nothing in it needs superuser rights; and that no filter carries bytes
-- it did not compute (padding and reserved bytes are zero, and input with
-- them set is refused), so equal sets give equal bytes.
--
-- Runs in a database of its own, owned by an unprivileged role, and drops it
-- at the end.  Role names printed are the test's own, never the OS user's.
--
SET client_min_messages = warning;
DROP DATABASE IF EXISTS regress_bf_security;
DROP ROLE IF EXISTS regress_bf_owner;
DROP ROLE IF EXISTS regress_bf_attacker;
DROP ROLE IF EXISTS regress_bf_user;
RESET client_min_messages;
SELECT current_database() AS regress_db \gset

-- the database owner, an attacker with CREATE on a schema the owner uses,
-- and a plain user: none of them superuser
CREATE ROLE regress_bf_owner NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE ROLE regress_bf_attacker NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE ROLE regress_bf_user NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE DATABASE regress_bf_security OWNER regress_bf_owner TEMPLATE template0;

--
-- the install script: plain CREATE only, nothing runs with its definer's rights
--
SELECT count(*) AS create_or_replace,
       count(*) FILTER (WHERE s ~* 'security\s+definer') AS security_definer
FROM (SELECT setting AS sharedir FROM pg_config WHERE name = 'SHAREDIR') AS c,
     regexp_split_to_table(pg_read_file(sharedir || '/extension/bloomfilter--1.0.sql'), ';') AS s
WHERE s ~* 'create\s+or\s+replace' OR s ~* 'security\s+definer';

-- and every reference to one of its own objects is schema-qualified: the
-- type, functions, aggregates and operator class (named bloomfilter...) and
-- its operators, outside string literals and comments; the core's
-- selectivity functions are qualified with pg_catalog
WITH script AS (
	SELECT regexp_replace(pg_read_file(setting || '/extension/bloomfilter--1.0.sql'),
	                      '''(?:[^'']|'''')*''|--[^\n]*|\\echo[^\n]*|/\*.*?\*/', '', 'g') AS code
	FROM pg_config WHERE name = 'SHAREDIR'
)
SELECT (SELECT count(*) FROM regexp_matches(code, '(?<![.\w])bloomfilter\w*', 'g')) AS unqualified_names,
       (SELECT count(*) FROM regexp_matches(code, 'OPERATOR\s+(?:[^\s(C\d@]|CLASS\s+[^\s@]|\d+\s+[^\s@])', 'g')) AS unqualified_operators,
       (SELECT count(*) FROM regexp_matches(code, '(?:COMMUTATOR|NEGATOR)\s*=\s*(?![\sO])|(?:COMMUTATOR|NEGATOR)\s*=\s*OPERATOR\((?!@extschema@\.)', 'g')) AS unqualified_commutators,
       (SELECT count(*) FROM regexp_matches(code, '(?:RESTRICT|JOIN)\s*=\s*(?![\s@p])|(?:RESTRICT|JOIN)\s*=\s*p(?!g_catalog\.)', 'g')) AS unqualified_estimators,
       (SELECT count(*) FROM regexp_matches(code, '@extschema@\.bloomfilter', 'g')) > 300 AS qualified_names
FROM script;

\c regress_bf_security
-- the schemas: 'shared', where both the owner and the attacker may create
-- objects (the extension goes there), and the attacker's own
CREATE SCHEMA shared;
GRANT USAGE, CREATE ON SCHEMA shared TO regress_bf_owner, regress_bf_attacker;
GRANT USAGE ON SCHEMA shared TO regress_bf_user;
CREATE SCHEMA attacker AUTHORIZATION regress_bf_attacker;
GRANT USAGE ON SCHEMA attacker TO PUBLIC;

--
-- trusted: a role with CREATE on the database installs it, others may not
--
SELECT version, trusted, superuser, relocatable
FROM pg_available_extension_versions
WHERE name = 'bloomfilter' ORDER BY version;
SET ROLE regress_bf_user;
-- ERROR:  permission denied to create extension "bloomfilter"
CREATE EXTENSION bloomfilter SCHEMA shared;
RESET ROLE;

--
-- capture by an object that already exists where the script creates its
-- own: CREATE EXTENSION fails cleanly (the script never uses CREATE OR
-- REPLACE), and the attacker's function is never called
--
-- (from 18 an error in an extension script comes with a CONTEXT naming
-- the script's line; the message is what matters here)
\set SHOW_CONTEXT never
SET ROLE regress_bf_attacker;
CREATE TYPE shared.bloomfilter AS (x int);
RESET ROLE;
SET ROLE regress_bf_owner;
-- ERROR:  type "bloomfilter" already exists
CREATE EXTENSION bloomfilter SCHEMA shared;
RESET ROLE;
DROP TYPE shared.bloomfilter;

SET ROLE regress_bf_attacker;
CREATE FUNCTION shared.bloomfilter_optimal_hashes(bigint, bigint) RETURNS integer
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the attacker''s function was called'; END $$;
CREATE FUNCTION shared.bloomfilter(bytea) RETURNS bytea
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the attacker''s function was called'; END $$;
RESET ROLE;
SET ROLE regress_bf_owner;
-- ERROR:  function "bloomfilter" already exists with same argument types
CREATE EXTENSION bloomfilter SCHEMA shared;
RESET ROLE;
DROP FUNCTION shared.bloomfilter(bytea);
SET ROLE regress_bf_owner;
-- ERROR:  function "bloomfilter_optimal_hashes" already exists with same argument types
CREATE EXTENSION bloomfilter SCHEMA shared;
RESET ROLE;
DROP FUNCTION shared.bloomfilter_optimal_hashes(bigint, bigint);
\set SHOW_CONTEXT errors
SELECT count(*) AS installed FROM pg_extension WHERE extname = 'bloomfilter';

--
-- shadowing: the attacker's types named like the built-in types the script
-- uses, in the target schema and in a schema the installing session puts
-- first, operators and functions that match calls the script's objects
-- make, and a temporary table (so a type pg_temp.bloomfilter) in the
-- installing session.  The installation succeeds and refers to none of them.
--
SET ROLE regress_bf_attacker;
CREATE DOMAIN shared.text AS integer;
CREATE DOMAIN shared.float8 AS integer;
CREATE DOMAIN attacker.bigint AS text;
CREATE DOMAIN attacker.bytea AS integer;
CREATE FUNCTION attacker.trap(a text, b text) RETURNS boolean
LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the attacker''s function was called'; END $$;
CREATE OPERATOR attacker.@> (LEFTARG = text, RIGHTARG = text, FUNCTION = attacker.trap);
CREATE OPERATOR attacker.= (LEFTARG = text, RIGHTARG = text, FUNCTION = attacker.trap);
CREATE OPERATOR shared.|| (LEFTARG = text, RIGHTARG = text, FUNCTION = attacker.trap);
RESET ROLE;
SET ROLE regress_bf_owner;
CREATE TEMP TABLE bloomfilter (x int);
SET search_path = attacker, shared;
CREATE EXTENSION bloomfilter SCHEMA shared;
RESET search_path;
RESET ROLE;

-- what the extension's functions take and return: the built-in types and
-- its own type, nothing of the attacker's, nothing temporary
SELECT DISTINCT t.typnamespace::regnamespace AS schema, t.typname AS type
FROM pg_depend AS d
JOIN pg_proc AS p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
CROSS JOIN LATERAL unnest(p.proargtypes::oid[] || p.prorettype) AS a(typ)
JOIN pg_type AS t ON t.oid = a.typ
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
ORDER BY 1, 2;
-- every operator, cast, support and estimator function is the extension's
-- own or a built-in one
SELECT count(*) > 20 AS operators_checked,
       count(*) FILTER (WHERE NOT (o.oprcode::oid IN (SELECT objid FROM pg_depend WHERE refobjid = e.oid AND deptype = 'e'))) AS foreign_code,
       count(*) FILTER (WHERE o.oprrest <> 0 AND o.oprrest::regproc::text NOT IN ('eqsel', 'neqsel', 'shared.bloomfilter_contsel'))
           AS foreign_restrict,
       count(*) FILTER (WHERE o.oprnamespace <> 'shared'::regnamespace) AS elsewhere
FROM pg_operator AS o
JOIN pg_depend AS d ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid AND d.deptype = 'e'
JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'bloomfilter';
SELECT c.castsource::regtype AS source, c.casttarget::regtype AS target, c.castfunc::regprocedure AS func
FROM pg_cast AS c
WHERE c.castsource = 'shared.bloomfilter'::regtype OR c.casttarget = 'shared.bloomfilter'::regtype
ORDER BY 1::text, 2::text;
SELECT p.proname, p.prorettype = 'shared.bloomfilter'::regtype AS returns_the_extensions_type
FROM pg_proc AS p WHERE p.oid IN ('shared.bloomfilter_in'::regproc, 'shared.bloomfilter_recv'::regproc);
-- (the temporary table would shadow the type for the rest of this session)
DROP TABLE pg_temp.bloomfilter;
-- the attacker's objects are not part of the extension
SELECT count(*) AS attacker_objects_in_extension
FROM pg_depend AS d
JOIN pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'bloomfilter'
WHERE d.deptype = 'e'
  AND (d.objid IN (SELECT oid FROM pg_proc WHERE pronamespace = 'attacker'::regnamespace OR proname = 'trap')
       OR d.objid IN (SELECT oid FROM pg_type WHERE typname IN ('text', 'float8', 'bigint', 'bytea')
                                             AND typnamespace <> 'pg_catalog'::regnamespace));

-- a trusted extension belongs to the role that created it; its objects
-- belong to the bootstrap superuser, so the owner cannot redefine them
SELECT e.extowner = 'regress_bf_owner'::regrole AS extension_owned_by_installer,
       bool_and(r.rolsuper) AS functions_owned_by_superuser,
       count(*) FILTER (WHERE p.prosecdef) AS security_definer,
       count(*) FILTER (WHERE p.proconfig IS NOT NULL) AS with_settings,
       count(*) FILTER (WHERE NOT has_function_privilege('regress_bf_user', p.oid, 'EXECUTE')) AS not_executable_by_user
FROM pg_extension AS e
JOIN pg_depend AS d ON d.refobjid = e.oid AND d.deptype = 'e' AND d.classid = 'pg_proc'::regclass
JOIN pg_proc AS p ON p.oid = d.objid
JOIN pg_roles AS r ON r.oid = p.proowner
WHERE e.extname = 'bloomfilter'
GROUP BY e.extowner;
SET ROLE regress_bf_owner;
-- ERROR:  must be owner of function bloomfilter_add
CREATE OR REPLACE FUNCTION shared.bloomfilter_add(f shared.bloomfilter, elem text)
RETURNS shared.bloomfilter LANGUAGE sql AS 'SELECT $1';
RESET ROLE;

--
-- nothing needs superuser: a plain user uses every kind of function, in a
-- temporary table of its own
--
SET ROLE regress_bf_user;
SET search_path = shared, pg_temp;
CREATE TEMP TABLE user_f AS
SELECT v AS variant, bloomfilter_agg(i, 1000, 0.01, v) AS f
FROM unnest('{blocked,classic,counting,scalable,cuckoo}'::text[]) AS v,
     generate_series(1, 1000) AS i
GROUP BY v;
SELECT variant,
       bloomfilter_contains_all(f, ARRAY(SELECT generate_series(1, 1000))) AS all_found,
       f @> 1 AND 1 <@ f AND (f || 'new'::text) @> 'new'::text AS operators,
       (f | f) @> 2 AS union_works,
       bloomfilter_add_all(f, ARRAY['x', 'y']) @> 'y'::text AS add_all_works,
       (bloomfilter_info(f)).items_added AS items,
       f::text::bloomfilter = f AND f::bytea::bloomfilter = f AS casts_work,
       round(# f) > 900 AS cardinality_works
FROM user_f ORDER BY variant;
SELECT variant, NOT bloomfilter_remove(f, 7) @> 7 AS removed
FROM user_f WHERE variant IN ('counting', 'cuckoo') ORDER BY variant;
SELECT count(*) AS plan_rows, bloomfilter_optimal_bits(1000, 0.01) AS bits,
       bloomfilter_optimal_hashes(9586, 1000) AS hashes,
       bloomfilter_capacity(9586, 0.01) AS capacity
FROM bloomfilter_plan(1000, 0.01);
SELECT variant,
       bloomfilter_contains_all(bloomfilter_union_agg(f), ARRAY(SELECT generate_series(1, 1000))) AS union_agg_works,
       bloomfilter_contains_all(bloomfilter_intersect_agg(f) FILTER (WHERE variant <> 'cuckoo'),
                                ARRAY(SELECT generate_series(1, 1000))) AS intersect_agg_works
FROM user_f, generate_series(1, 3) GROUP BY variant ORDER BY variant;
RESET search_path;
RESET ROLE;

--
-- no stray bytes: every filter the extension writes has zero padding and
-- reserved bytes, which its own validation checks (a round trip through
-- bytea re-validates), and input with any of them set is refused
--
SET search_path = shared;
CREATE TABLE made AS
SELECT v AS variant, step, f
FROM unnest('{blocked,classic,counting,scalable,cuckoo}'::text[]) AS v,
     LATERAL (VALUES
		('empty', bloomfilter_create(37, 0.01, v)),
		('one add', bloomfilter_create(37, 0.01, v) || 'a'::text),
		('add_all, grown', bloomfilter_add_all(bloomfilter_create(37, 0.01, v), ARRAY(SELECT generate_series(1, 500)))),
		('aggregate', (SELECT bloomfilter_agg(i, 37, 0.01, v) FROM generate_series(1, 500) AS i)),
		('union', bloomfilter_create(37, 0.01, v) || 1 | bloomfilter_create(37, 0.01, v) || 2),
		('union of grown', bloomfilter_add_all(bloomfilter_create(37, 0.01, v), ARRAY(SELECT generate_series(1, 300)))
		                   | bloomfilter_add_all(bloomfilter_create(37, 0.01, v), ARRAY(SELECT generate_series(200, 700))))
	) AS s(step, f)
UNION ALL
SELECT v, 'remove', bloomfilter_remove(bloomfilter_add_all(bloomfilter_create(37, 0.01, v), ARRAY[1, 2, 3]), 2)
FROM unnest('{counting,cuckoo}'::text[]) AS v
UNION ALL
SELECT v, 'intersect', (bloomfilter_create(37, 0.01, v) || 1 || 2) & (bloomfilter_create(37, 0.01, v) || 2 || 3)
FROM unnest('{blocked,classic,counting,scalable}'::text[]) AS v
UNION ALL
SELECT v, 'create_bits, odd size', bloomfilter_add_all(bloomfilter_create_bits(77, CASE v WHEN 'cuckoo' THEN 7 ELSE 3 END, v), ARRAY[1, 2, 3])
FROM unnest('{blocked,classic,counting,cuckoo}'::text[]) AS v;
SELECT variant, count(*) AS filters,
       bool_and(f::bytea::bloomfilter::bytea = f::bytea) AS all_revalidate
FROM made GROUP BY variant ORDER BY variant;
-- a fresh filter's payload is all zero (nothing left from memory it reused)
SELECT v AS variant,
       ltrim(encode(substr(bloomfilter_create(1000, 0.01, v)::bytea, 65 + CASE WHEN v IN ('scalable', 'cuckoo') THEN 64 ELSE 0 END), 'hex'), '0') = ''
           AS payload_zero
FROM unnest('{blocked,classic,counting,scalable,cuckoo}'::text[]) AS v ORDER BY v;

-- equal sets, equal bytes: the same items in another order or grouping give
-- the same bytes for the variants that do not depend on order; the growing
-- ones give the same bytes for the same sequence, however it is applied
SELECT v AS variant,
       (SELECT md5(bloomfilter_agg(i, 500, 0.01, v)::bytea) FROM generate_series(1, 500) AS i)
         = (SELECT md5(bloomfilter_agg(i, 500, 0.01, v ORDER BY i DESC)::bytea) FROM generate_series(1, 500) AS i)
           AS any_order,
       (SELECT md5(bloomfilter_agg(i, 500, 0.01, v)::bytea) FROM generate_series(1, 500) AS i)
         = md5((bloomfilter_add_all(bloomfilter_create(500, 0.01, v), ARRAY(SELECT generate_series(1, 250)))
               | bloomfilter_add_all(bloomfilter_create(500, 0.01, v), ARRAY(SELECT generate_series(251, 500))))::bytea)
           AS union_of_halves
FROM unnest('{blocked,classic,counting}'::text[]) AS v ORDER BY v;
-- (a cuckoo aggregate builds a set, add_all stores a copy per addition:
-- they differ where fingerprints collide; variant_cuckoo shows it)
SELECT v AS variant,
       (SELECT md5(bloomfilter_agg(i, 37, 0.01, v ORDER BY i)::bytea) FROM generate_series(1, 500) AS i)
         = md5(bloomfilter_add_all(bloomfilter_create(37, 0.01, v), ARRAY(SELECT generate_series(1, 500)))::bytea)
           AS aggregate_equals_add_all
FROM unnest('{scalable}'::text[]) AS v ORDER BY v;

-- what a statement raises: SQLSTATE and detail
CREATE FUNCTION sec_err(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	state text;
	detail text;
BEGIN
	EXECUTE stmt;
	RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, detail = PG_EXCEPTION_DETAIL;
	RETURN state || ': ' || detail;
END
$$;
-- one stray bit in each place a filter has unused room; the same bytes
-- with the bit clear are accepted (1-based offsets, as overlay counts)
CREATE TABLE stray (what text, good bytea, bad bytea);
INSERT INTO stray
SELECT what, good, set_bit(good, bit, 1)
FROM (VALUES
	('flags byte', bloomfilter_create(10, 0.01, 'blocked')::bytea, 7 * 8),
	('blocked: reserved variant word', bloomfilter_create(10, 0.01, 'blocked')::bytea, 12 * 8 + 3),
	('classic: padding bit past bit 77', bloomfilter_create_bits(77, 3, 'classic')::bytea, 64 * 8 + 77),
	('classic: last padding bit', bloomfilter_create_bits(77, 3, 'classic')::bytea, 64 * 8 + 127),
	('counting: padding counter 77', bloomfilter_create_bits(77, 3, 'counting')::bytea, 64 * 8 + 38 * 8 + 4),
	('counting: last padding counter', bloomfilter_create_bits(77, 3, 'counting')::bytea, (64 + 39) * 8 + 7),
	('scalable: reserved byte of the stage header', bloomfilter_create(10, 0.01, 'scalable')::bytea, (64 + 32) * 8),
	('scalable: last reserved byte of the stage header', bloomfilter_create(10, 0.01, 'scalable')::bytea, (64 + 63) * 8 + 7),
	('cuckoo: padding after the last slot', bloomfilter_create_bits(16, 4, 'cuckoo')::bytea, (64 + 16) * 8 + 16),
	('cuckoo: last padding bit', bloomfilter_create_bits(16, 4, 'cuckoo')::bytea, (64 + 16) * 8 + 63)
) AS t(what, good, bit);
SELECT what, sec_err(format('SELECT %L::bytea::bloomfilter', good)) AS clear,
       sec_err(format('SELECT %L::bytea::bloomfilter', bad)) AS set,
       sec_err(format('SELECT %L::bloomfilter', translate(encode(bad, 'base64'), E'\n', ''))) AS set_as_text
FROM stray ORDER BY what;
RESET search_path;

--
-- search_path capture of the catch-all overloads (README, Security): an
-- overload for a concrete type that someone else defines in a schema of the
-- caller's search_path, earlier or later than the extension's, wins over
-- the anyelement function (an exact match beats a polymorphic one) and runs
-- as the caller.  A schema-qualified call, or a search_path without schemas
-- others may create in, calls the extension's own.
--
SET ROLE regress_bf_attacker;
CREATE FUNCTION attacker.bloomfilter_contains(f shared.bloomfilter, x numeric) RETURNS boolean
LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'the attacker''s function ran as %', current_user; RETURN true; END $$;
CREATE OPERATOR attacker.@> (LEFTARG = shared.bloomfilter, RIGHTARG = numeric,
                             FUNCTION = attacker.bloomfilter_contains);
CREATE FUNCTION attacker.bloomfilter_add(f shared.bloomfilter, x varchar) RETURNS shared.bloomfilter
LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'the attacker''s function ran as %', current_user; RETURN f; END $$;
RESET ROLE;
SET ROLE regress_bf_user;
CREATE TEMP TABLE empty_f AS SELECT shared.bloomfilter_create(10, 0.01) AS f;
SET search_path = attacker, shared;
-- captured: NOTICE from the attacker's function, and a wrong answer
SELECT bloomfilter_contains(f, 1.5) AS unqualified_call, f @> 1.5 AS unqualified_operator,
       bloomfilter_add(f, 'x'::varchar) @> 'x'::varchar AS unqualified_add_kept_x
FROM empty_f;
SET search_path = shared, attacker;
SELECT bloomfilter_contains(f, 1.5) AS unqualified_call_extension_first FROM empty_f;
-- safe: schema-qualified function and operator
SELECT shared.bloomfilter_contains(f, 1.5) AS qualified_call,
       f OPERATOR(shared.@>) 1.5 AS qualified_operator,
       shared.bloomfilter_add(f, 'x'::varchar) OPERATOR(shared.@>) 'x'::varchar AS qualified_add_kept_x
FROM empty_f;
-- safe: no schema that others may create in on the path
SET search_path = shared;
SELECT bloomfilter_contains(f, 1.5) AS trusted_path_call, f @> 1.5 AS trusted_path_operator FROM empty_f;
RESET search_path;
DROP TABLE pg_temp.empty_f;
RESET ROLE;

--
-- the @> estimator attached by a superuser to operators over other types:
-- a constant that is not a bloomfilter is never read as one (an integer
-- constant once crashed the server); the estimate is the default, half
--
-- (PL/pgSQL: a SQL function would be inlined, and = estimated instead)
CREATE FUNCTION public.sec_int_contains(a integer, b integer) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS 'BEGIN RETURN a = b; END';
CREATE FUNCTION public.sec_text_contains(a text, b text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS 'BEGIN RETURN a = b; END';
CREATE OPERATOR public.@> (LEFTARG = integer, RIGHTARG = integer,
                           FUNCTION = public.sec_int_contains, RESTRICT = shared.bloomfilter_contsel);
CREATE OPERATOR public.@> (LEFTARG = text, RIGHTARG = text,
                           FUNCTION = public.sec_text_contains, RESTRICT = shared.bloomfilter_contsel);
CREATE TABLE public.sec_rows AS SELECT i, i::text AS t FROM generate_series(1, 1000) AS i;
ANALYZE public.sec_rows;
CREATE FUNCTION public.sec_estimate(q text) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::numeric;
END
$$;
SELECT public.sec_estimate('SELECT * FROM public.sec_rows WHERE 42 OPERATOR(public.@>) i') AS integer_constant,
       public.sec_estimate('SELECT * FROM public.sec_rows WHERE ''BLMF'' OPERATOR(public.@>) t') AS text_constant,
       public.sec_estimate('SELECT * FROM public.sec_rows WHERE shared.bloomfilter_create(10, 0.01) OPERATOR(shared.@>) i') < 10
           AS filter_constant_still_estimated;
DROP TABLE public.sec_rows;
DROP OPERATOR public.@> (integer, integer);
DROP OPERATOR public.@> (text, text);
DROP FUNCTION public.sec_int_contains(integer, integer), public.sec_text_contains(text, text),
              public.sec_estimate(text);

--
-- clean up
--
\c :regress_db
DROP DATABASE regress_bf_security WITH (FORCE);
DROP ROLE regress_bf_owner;
DROP ROLE regress_bf_attacker;
DROP ROLE regress_bf_user;
