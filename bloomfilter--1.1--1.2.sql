/* bloomfilter--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.2'" to load this file. \quit

-- 1.2 hashes elements by their type's equality (hash scheme 2: 1.0 and
-- 1.00, '1 day' and '24 hours' alike), in the filters it builds from now on.
-- Stored filters keep the hashing they were built with (hash scheme 1),
-- and answer for their members as before; this function tells the two apart.
CREATE FUNCTION @extschema@.bloomfilter_hash_scheme(f @extschema@.bloomfilter)
RETURNS integer
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_hash_scheme(@extschema@.bloomfilter) IS
'how the filter hashes its elements: 2 (release 1.2 on) by each type''s equality, 1 (filters built by 1.0 and 1.1) by binary form';

COMMENT ON FUNCTION @extschema@.bloomfilter_is_compatible(@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'true if the filters can be combined: same variant, hash scheme, size, hashes and seed';

-- 1.2 counts the copies of an element a counting or cuckoo filter holds
CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem text)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, text) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem bytea)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, bytea) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem smallint)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, smallint) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem integer)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, integer) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem bigint)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, bigint) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem uuid)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, uuid) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem anyelement)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, anyelement) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';
