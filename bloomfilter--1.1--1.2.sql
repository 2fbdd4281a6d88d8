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
