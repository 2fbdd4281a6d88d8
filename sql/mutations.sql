--
-- mutations: every byte of a small filter of every variant, set to 0x00,
-- 0xFF, and with its low and high bit flipped, and every truncation, sent
-- through the bytea cast.  A mutant is refused with 22P03, or accepted; an
-- accepted one then goes through every function that takes a filter (and
-- the text form), each of which answers or raises a specific error: never
-- XX000, never a crash.  (test/fuzz/ does the same to the core for hours;
-- this runs it through the SQL layer.)
--
-- the filters: a few elements each, small enough for every byte to be tried
CREATE TABLE mut_base (variant text, b bytea);
INSERT INTO mut_base
SELECT v, (bloomfilter_agg(i, 20, 0.1, v) || 'hello'::text)::bytea
FROM unnest(ARRAY['blocked', 'classic', 'counting', 'cuckoo']) AS v,
     generate_series(1, 5) AS i
GROUP BY v;
-- scalable, planned for one item and grown to several stages
INSERT INTO mut_base
SELECT 'scalable', (bloomfilter_create(1, 0.1, 'scalable') || 1 || 2 || 3 || 4 || 'hello'::text)::bytea;
SELECT variant, octet_length(b) AS bytes,
       (bloomfilter_info(b::bloomfilter)).stages
FROM mut_base ORDER BY variant;

-- runs stmt; returns its SQLSTATE, or '00000'
CREATE FUNCTION mut_state(stmt text, f bloomfilter) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt USING f;
	RETURN '00000';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END
$$;

-- every function that takes a filter, $1
CREATE TABLE mut_calls (stmt text);
INSERT INTO mut_calls VALUES
	('SELECT $1 @> ''hello''::text'), ('SELECT 42 <@ $1'),
	('SELECT $1 || ''x''::text'), ('SELECT $1 || 7'),
	('SELECT bloomfilter_add_all($1, ARRAY[1, 2, 3])'),
	('SELECT bloomfilter_contains_all($1, ARRAY[''a'', ''hello''])'),
	('SELECT bloomfilter_contains_any($1, ARRAY[1, 2])'),
	('SELECT bloomfilter_remove($1, ''hello''::text)'),
	('SELECT $1 | $1'), ('SELECT $1 & $1'), ('SELECT $1 = $1'), ('SELECT $1 <> $1'),
	('SELECT bloomfilter_hash($1)'), ('SELECT bloomfilter_is_compatible($1, $1)'),
	('SELECT bloomfilter_info($1)'), ('SELECT bloomfilter_cardinality($1)'), ('SELECT # $1'),
	('SELECT $1::text::bloomfilter = $1'), ('SELECT $1::bytea::bloomfilter = $1'),
	('SELECT bloomfilter_union_agg(f) FROM (VALUES ($1), ($1)) AS v(f)'),
	('SELECT bloomfilter_intersect_agg(f) FROM (VALUES ($1), ($1)) AS v(f)');

-- the mutants: (variant, what, bytes)
CREATE TABLE mut_cases AS
SELECT variant, format('byte %s = %s', pos, val) AS what,
       set_byte(b, pos, CASE val WHEN 'zero' THEN 0 WHEN 'ones' THEN 255
                               WHEN 'low bit' THEN get_byte(b, pos) # 1
                               ELSE get_byte(b, pos) # 128 END) AS bad
FROM mut_base, generate_series(0, octet_length(b) - 1) AS pos,
     unnest(ARRAY['zero', 'ones', 'low bit', 'high bit']) AS val
UNION ALL
SELECT variant, format('first %s bytes', len), substr(b, 1, len)
FROM mut_base, generate_series(0, octet_length(b) - 1) AS len;

-- the cast: refused (22P03) or accepted, nothing else
CREATE TABLE mut_cast AS
SELECT variant, what, bad,
       mut_state(format('SELECT %L::bytea::bloomfilter', bad), NULL) AS cast_state
FROM mut_cases;
SELECT variant, cast_state, count(*)
FROM mut_cast GROUP BY variant, cast_state ORDER BY variant, cast_state;

-- every accepted mutant through every function: the SQLSTATEs seen
CREATE TABLE mut_results AS
SELECT c.variant, k.stmt, mut_state(k.stmt, c.bad::bloomfilter) AS state
FROM mut_cast c, mut_calls k
WHERE c.cast_state = '00000';
SELECT count(*) > 1000 AS enough_calls,
       count(*) FILTER (WHERE state = 'XX000') AS internal_errors,
       count(*) FILTER (WHERE state !~ '^(00000|0A000|22023|42804|54000|22P03)$') AS unexpected
FROM mut_results;
-- which errors the accepted mutants met, by variant
SELECT variant, state, count(*) > 0 AS seen
FROM mut_results WHERE state <> '00000'
GROUP BY variant, state ORDER BY variant, state;

DROP TABLE mut_base, mut_calls, mut_cases, mut_cast, mut_results;
DROP FUNCTION mut_state(text, bloomfilter);
