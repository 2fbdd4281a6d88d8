--
-- toast_elements: elements in every form PostgreSQL stores a varlena in.
-- Text, varchar, char(n) and bytea values reach the functions inline with a
-- 4-byte header, inline with a 1-byte header (short), compressed inline,
-- stored out of line in TOAST (external), and external compressed.  Every
-- form must hash as its plain bytes: through @>, <@, ||, bloomfilter_add,
-- bloomfilter_add_all, bloomfilter_remove and bloomfilter_agg, with the
-- custom scans on and off.  (A TOAST pointer also has a 1-byte header; read
-- as a short value's length it crashed the server.)
--
-- each row holds the same value in five storage forms; 'plain' is the
-- reference, made in memory by concatenation (never TOASTed)
CREATE TABLE toast_el (id integer, ext text, extc text, mainc text,
					   b bytea, vc varchar, bp char(3000));
ALTER TABLE toast_el
	ALTER ext SET STORAGE EXTERNAL,		-- out of line, not compressed
	ALTER extc SET STORAGE EXTENDED,	-- compressed, out of line when still long
	ALTER mainc SET STORAGE MAIN,		-- compressed inline
	ALTER b SET STORAGE EXTERNAL,
	ALTER vc SET STORAGE EXTERNAL,
	ALTER bp SET STORAGE EXTERNAL;
INSERT INTO toast_el
SELECT g,
	   string_agg(md5((g * 1000 + i)::text), ''),			-- 6.4 kB, incompressible
	   repeat(md5(g::text), 2000),							-- 64 kB, compresses to < 2 kB
	   repeat(md5(g::text), 100),							-- 3.2 kB, compresses inline
	   decode(string_agg(md5((g * 1000 + i)::text), ''), 'hex'),
	   string_agg(md5((g * 1000 + i)::text), ''),
	   left(string_agg(md5((g * 1000 + i)::text), ''), 2990)
FROM generate_series(1, 20) g, generate_series(1, 200) i
GROUP BY g;
-- short (1-byte header) values in a table of their own
CREATE TABLE toast_short (id integer, s text, b bytea);
INSERT INTO toast_short SELECT g, 'k' || g, decode(md5(g::text), 'hex')
FROM generate_series(1, 20) g;

-- the storage forms really are what the column names say: external values
-- keep their full size, compressed ones take less
SELECT count(*) FILTER (WHERE pg_column_size(ext) >= octet_length(ext)) AS ext_plain,
	   count(*) FILTER (WHERE pg_column_size(extc) < 2100) AS extc_compressed,
	   count(*) FILTER (WHERE pg_column_size(mainc) < 500) AS mainc_compressed,
	   count(*) FILTER (WHERE pg_column_size(b) >= octet_length(b)) AS b_plain
FROM toast_el;
SELECT pg_relation_size(reltoastrelid) > 100000 AS values_out_of_line
FROM pg_class WHERE relname = 'toast_el';

-- the reference filter: built from in-memory copies of every value
CREATE TABLE toast_ref AS
SELECT v,
	   bloomfilter_add_all(bloomfilter_create(1000, 0.01, v),
			ARRAY(SELECT x FROM toast_el,
				  LATERAL (VALUES (ext || ''), (extc || ''), (mainc || ''),
								  (vc || ''),
								  (rtrim(bp) || '')) a(x))) AS f,
	   bloomfilter_add_all(bloomfilter_create(1000, 0.01, v),
			ARRAY(SELECT b || ''::bytea FROM toast_el)) AS fb
FROM (VALUES ('blocked'), ('classic'), ('counting'), ('scalable'), ('cuckoo')) x(v);

CREATE FUNCTION toast_checks() RETURNS TABLE (v text, check_name text, ok boolean)
LANGUAGE sql AS $$
	SELECT r.v, c.name, c.ok
	FROM toast_ref r, LATERAL (VALUES
		('@> ext',   (SELECT bool_and(r.f @> ext) FROM toast_el)),
		('@> extc',  (SELECT bool_and(r.f @> extc) FROM toast_el)),
		('@> mainc', (SELECT bool_and(r.f @> mainc) FROM toast_el)),
		('@> vc',    (SELECT bool_and(r.f @> vc) FROM toast_el)),
		('@> bp',    (SELECT bool_and(r.f @> bp) FROM toast_el)),
		('@> b',     (SELECT bool_and(r.fb @> b) FROM toast_el)),
		('<@ ext',   (SELECT bool_and(ext <@ r.f) FROM toast_el)),
		('where @>', (SELECT count(*) = 20 FROM toast_el WHERE r.f @> ext AND r.fb @> b)),
		('contains_all', (SELECT bool_and(bloomfilter_contains_all(r.f, ARRAY[ext, extc, mainc]))
						  FROM toast_el)),
		-- the same filter however the values are stored
		('agg ext', (SELECT bloomfilter_agg(ext, 1000, 0.01, r.v) =
							bloomfilter_agg(ext || '', 1000, 0.01, r.v) FROM toast_el)),
		('agg b', (SELECT bloomfilter_agg(b, 1000, 0.01, r.v) =
						  bloomfilter_agg(b || ''::bytea, 1000, 0.01, r.v) FROM toast_el)),
		('agg vc, bp', (SELECT bloomfilter_agg(vc::text, 1000, 0.01, r.v) =
							   bloomfilter_agg(vc || '', 1000, 0.01, r.v)
							   AND bloomfilter_agg(bp, 1000, 0.01, r.v) =
							   bloomfilter_agg(rtrim(bp) || '', 1000, 0.01, r.v) FROM toast_el)),
		('agg short', (SELECT bloomfilter_agg(s, 100, 0.01, r.v) =
							  bloomfilter_agg(s || '', 100, 0.01, r.v)
							  AND bloomfilter_agg(b, 100, 0.01, r.v) =
							  bloomfilter_agg(b || ''::bytea, 100, 0.01, r.v) FROM toast_short)),
		('add row by row', (WITH RECURSIVE w(i, f) AS (
								SELECT 0, bloomfilter_create(1000, 0.01, r.v)
								UNION ALL
								SELECT i + 1, bloomfilter_add(w.f, t.ext) || t.b
								FROM w JOIN toast_el t ON t.id = w.i + 1)
							SELECT f = (SELECT bloomfilter_add_all(
											bloomfilter_add_all(bloomfilter_create(1000, 0.01, r.v),
												ARRAY(SELECT ext || '' FROM toast_el ORDER BY id)),
											ARRAY(SELECT b || ''::bytea FROM toast_el ORDER BY id)))
							FROM w WHERE i = 20))
	) c(name, ok)
	ORDER BY 1, 2
$$;

-- the inline paths of the functions: no custom scans
SET bloomfilter.prefetch_scan = off;
SET bloomfilter.agg_scan = off;
SELECT v, check_name FROM toast_checks() WHERE ok IS NOT TRUE;
SELECT count(*) AS checks_passed FROM toast_checks() WHERE ok;

-- and through the prefetching and aggregate scans
SET bloomfilter.prefetch_scan = on;
SET bloomfilter.agg_scan = on;
SELECT v, check_name FROM toast_checks() WHERE ok IS NOT TRUE;
SELECT count(*) AS checks_passed FROM toast_checks() WHERE ok;
SELECT count(*) AS found FROM toast_el
WHERE (SELECT f FROM toast_ref WHERE v = 'blocked') @> ext;
SELECT (SELECT bloomfilter_agg(ext, 1000, 0.01) FROM toast_el) =
	   (SELECT bloomfilter_agg(ext || '', 1000, 0.01) FROM toast_el) AS agg_scan_same;

-- remove (counting): an external value removes what its plain copy added
SELECT bloomfilter_contains(bloomfilter_remove(
		   bloomfilter_add(bloomfilter_create(100, 0.01, 'counting'), ext || ''), ext),
	   ext) AS still_there
FROM toast_el WHERE id = 1;

-- the element argument is never modified: the stored values read back unchanged
SELECT count(*) AS unchanged FROM toast_el
WHERE md5(ext) = md5(ext || '') AND length(b) = 3200;

DROP FUNCTION toast_checks();
DROP TABLE toast_el, toast_short, toast_ref;
