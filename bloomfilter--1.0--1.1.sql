/* bloomfilter--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit

-- 1.1 adds the planner support function of bloomfilter_add (so of ||) and
-- bloomfilter_remove.  On PostgreSQL 18 it lets PL/pgSQL's  f := f || x,
-- f := bloomfilter_add(f, x)  and  f := bloomfilter_remove(f, x)  change the
-- variable's filter in place instead of copying it; before 18 it answers
-- nothing.  Stored filters are untouched: the format is the same.
CREATE FUNCTION @extschema@.bloomfilter_modify_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

COMMENT ON FUNCTION @extschema@.bloomfilter_modify_support(internal) IS
'planner support of bloomfilter_add and bloomfilter_remove: in-place changes of a PL/pgSQL variable (PostgreSQL 18)';

ALTER FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, text)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, bytea)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, smallint)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, integer)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, bigint)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, uuid)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, anyelement)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, text)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, bytea)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, smallint)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, integer)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, bigint)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, uuid)
	SUPPORT @extschema@.bloomfilter_modify_support;
ALTER FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, anyelement)
	SUPPORT @extschema@.bloomfilter_modify_support;
