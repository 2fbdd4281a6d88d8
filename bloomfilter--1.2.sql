/* bloomfilter--1.2.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

-- Every reference to an object of the extension is qualified with
-- @extschema@ (so the extension is not relocatable), and the selectivity
-- functions of the core system with pg_catalog: nothing here is looked up
-- through search_path, where an object someone else created could answer.

--
-- The type
--

CREATE TYPE @extschema@.bloomfilter;

CREATE FUNCTION @extschema@.bloomfilter_in(cstring)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloomfilter_out(@extschema@.bloomfilter)
RETURNS cstring
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloomfilter_recv(internal)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.bloomfilter_send(@extschema@.bloomfilter)
RETURNS bytea
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- EXTERNAL: stored out of line but never compressed.  A filled filter looks
-- random and does not compress; a sparse one does, but then every query
-- that reads it pays for decompression (a sparse 100 MB filter took 420 ms
-- to decompress against 50 ms to copy).  ALTER TABLE ... SET STORAGE
-- EXTENDED trades that time for disk where filters stay sparse.
CREATE TYPE @extschema@.bloomfilter (
	INPUT = @extschema@.bloomfilter_in,
	OUTPUT = @extschema@.bloomfilter_out,
	RECEIVE = @extschema@.bloomfilter_recv,
	SEND = @extschema@.bloomfilter_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = external
);

COMMENT ON TYPE @extschema@.bloomfilter IS
'probabilistic set: answers "certainly absent" or "probably present"; text form is base64 of the bytes described in STORAGE.md';

--
-- Casts
--

CREATE FUNCTION @extschema@.bloomfilter(bytea)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_from_bytea'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter(bytea) IS
'cast bytea to bloomfilter, validating every header field against the length';

CREATE CAST (bytea AS @extschema@.bloomfilter) WITH FUNCTION @extschema@.bloomfilter(bytea);
CREATE CAST (@extschema@.bloomfilter AS bytea) WITHOUT FUNCTION;

COMMENT ON CAST (bytea AS @extschema@.bloomfilter) IS
'validated cast: raises an error unless the bytes are a well-formed filter';
COMMENT ON CAST (@extschema@.bloomfilter AS bytea) IS
'the serialised filter, byte for byte as documented in STORAGE.md';

--
-- Construction and sizing
--

CREATE FUNCTION @extschema@.bloomfilter_create(expected_items bigint,
	false_positive_rate float8 DEFAULT 0.01,
	variant text DEFAULT 'blocked',
	seed bigint DEFAULT 0)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION @extschema@.bloomfilter_create(bigint, float8, text, bigint) IS
'empty filter sized to hold expected_items at false_positive_rate, using the variant''s exact model';

CREATE FUNCTION @extschema@.bloomfilter_create_bits(bits bigint, hashes integer,
	variant text DEFAULT 'classic',
	seed bigint DEFAULT 0)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION @extschema@.bloomfilter_create_bits(bigint, integer, text, bigint) IS
'empty filter of the given number of bits and hash functions (blocked rounds bits up to whole 512-bit blocks)';

CREATE FUNCTION @extschema@.bloomfilter_optimal_bits(expected_items bigint,
	false_positive_rate float8,
	variant text DEFAULT 'classic')
RETURNS bigint
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_optimal_bits(bigint, float8, text) IS
'bits a filter of the variant needs to hold expected_items at false_positive_rate';

CREATE FUNCTION @extschema@.bloomfilter_optimal_hashes(bits bigint, expected_items bigint)
RETURNS integer
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_optimal_hashes(bigint, bigint) IS
'optimal number of hash functions of a classic filter: round((bits / expected_items) ln 2), at least 1';

CREATE FUNCTION @extschema@.bloomfilter_false_positive_rate(bits bigint,
	expected_items bigint, hashes integer)
RETURNS float8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_false_positive_rate(bigint, bigint, integer) IS
'false-positive rate of a classic filter: (1 - exp(-hashes * expected_items / bits)) ^ hashes';

CREATE FUNCTION @extschema@.bloomfilter_capacity(bits bigint, false_positive_rate float8,
	variant text DEFAULT 'classic')
RETURNS bigint
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_capacity(bigint, float8, text) IS
'most items a filter of the variant with this many bits holds at false_positive_rate';

CREATE FUNCTION @extschema@.bloomfilter_contsel(internal, oid, internal, integer)
RETURNS float8
AS 'MODULE_PATHNAME'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_contsel(internal, oid, internal, integer) IS
'restriction selectivity of @> and <@: the filter''s estimated members among the column''s distinct values, plus its false-positive rate';

--
-- Adding and testing elements: one overload per element type, all served by
-- the same C functions.  Integers of every width hash alike.
--
-- The || operator exists only for text and anyelement (which covers every
-- other type with the same hashing): an overload such as (bloomfilter,
-- integer) would capture the everyday 'label' || 42, turning the untyped
-- literal into a bloomfilter.
--

-- The planner support function of bloomfilter_add (so of ||) and
-- bloomfilter_remove.  On PostgreSQL 18 it lets PL/pgSQL's  f := f || x,
-- f := bloomfilter_add(f, x)  and  f := bloomfilter_remove(f, x)  change the
-- variable's filter in place instead of copying it; before 18 it answers
-- nothing.
CREATE FUNCTION @extschema@.bloomfilter_modify_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

COMMENT ON FUNCTION @extschema@.bloomfilter_modify_support(internal) IS
'planner support of bloomfilter_add and bloomfilter_remove: in-place changes of a PL/pgSQL variable (PostgreSQL 18)';

CREATE FUNCTION @extschema@.bloomfilter_add(f @extschema@.bloomfilter, elem text)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, text) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE OPERATOR @extschema@.|| (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = text,
	FUNCTION = @extschema@.bloomfilter_add
);

COMMENT ON OPERATOR @extschema@.|| (@extschema@.bloomfilter, text) IS
'copy of the filter with the element added';

CREATE FUNCTION @extschema@.bloomfilter_contains(f @extschema@.bloomfilter, elem text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contains(@extschema@.bloomfilter, text) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION @extschema@.bloomfilter_contained(elem text, f @extschema@.bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contained(text, @extschema@.bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = text,
	FUNCTION = @extschema@.bloomfilter_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.@> (@extschema@.bloomfilter, text) IS
'filter probably contains the element';

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = text,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_contained,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.<@ (text, @extschema@.bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION @extschema@.bloomfilter_add(f @extschema@.bloomfilter, elem bytea)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, bytea) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE FUNCTION @extschema@.bloomfilter_contains(f @extschema@.bloomfilter, elem bytea)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contains(@extschema@.bloomfilter, bytea) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION @extschema@.bloomfilter_contained(elem bytea, f @extschema@.bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contained(bytea, @extschema@.bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = bytea,
	FUNCTION = @extschema@.bloomfilter_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.@> (@extschema@.bloomfilter, bytea) IS
'filter probably contains the element';

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = bytea,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_contained,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.<@ (bytea, @extschema@.bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION @extschema@.bloomfilter_add(f @extschema@.bloomfilter, elem smallint)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, smallint) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE FUNCTION @extschema@.bloomfilter_contains(f @extschema@.bloomfilter, elem smallint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contains(@extschema@.bloomfilter, smallint) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION @extschema@.bloomfilter_contained(elem smallint, f @extschema@.bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contained(smallint, @extschema@.bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = smallint,
	FUNCTION = @extschema@.bloomfilter_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.@> (@extschema@.bloomfilter, smallint) IS
'filter probably contains the element';

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = smallint,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_contained,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.<@ (smallint, @extschema@.bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION @extschema@.bloomfilter_add(f @extschema@.bloomfilter, elem integer)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, integer) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE FUNCTION @extschema@.bloomfilter_contains(f @extschema@.bloomfilter, elem integer)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contains(@extschema@.bloomfilter, integer) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION @extschema@.bloomfilter_contained(elem integer, f @extschema@.bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contained(integer, @extschema@.bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = integer,
	FUNCTION = @extschema@.bloomfilter_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.@> (@extschema@.bloomfilter, integer) IS
'filter probably contains the element';

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = integer,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_contained,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.<@ (integer, @extschema@.bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION @extschema@.bloomfilter_add(f @extschema@.bloomfilter, elem bigint)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, bigint) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE FUNCTION @extschema@.bloomfilter_contains(f @extschema@.bloomfilter, elem bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contains(@extschema@.bloomfilter, bigint) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION @extschema@.bloomfilter_contained(elem bigint, f @extschema@.bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contained(bigint, @extschema@.bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = bigint,
	FUNCTION = @extschema@.bloomfilter_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.@> (@extschema@.bloomfilter, bigint) IS
'filter probably contains the element';

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = bigint,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_contained,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.<@ (bigint, @extschema@.bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION @extschema@.bloomfilter_add(f @extschema@.bloomfilter, elem uuid)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, uuid) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE FUNCTION @extschema@.bloomfilter_contains(f @extschema@.bloomfilter, elem uuid)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contains(@extschema@.bloomfilter, uuid) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION @extschema@.bloomfilter_contained(elem uuid, f @extschema@.bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contained(uuid, @extschema@.bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = uuid,
	FUNCTION = @extschema@.bloomfilter_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.@> (@extschema@.bloomfilter, uuid) IS
'filter probably contains the element';

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = uuid,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_contained,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.<@ (uuid, @extschema@.bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION @extschema@.bloomfilter_add(f @extschema@.bloomfilter, elem anyelement)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_add(@extschema@.bloomfilter, anyelement) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE OPERATOR @extschema@.|| (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = anyelement,
	FUNCTION = @extschema@.bloomfilter_add
);

COMMENT ON OPERATOR @extschema@.|| (@extschema@.bloomfilter, anyelement) IS
'copy of the filter with the element added';

CREATE FUNCTION @extschema@.bloomfilter_contains(f @extschema@.bloomfilter, elem anyelement)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contains(@extschema@.bloomfilter, anyelement) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION @extschema@.bloomfilter_contained(elem anyelement, f @extschema@.bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_contained(anyelement, @extschema@.bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = anyelement,
	FUNCTION = @extschema@.bloomfilter_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.@> (@extschema@.bloomfilter, anyelement) IS
'filter probably contains the element';

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = anyelement,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_contained,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.bloomfilter_contsel
);

COMMENT ON OPERATOR @extschema@.<@ (anyelement, @extschema@.bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION @extschema@.bloomfilter_add_all(f @extschema@.bloomfilter, elems anyarray)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 100;

COMMENT ON FUNCTION @extschema@.bloomfilter_add_all(@extschema@.bloomfilter, anyarray) IS
'copy of the filter with every non-NULL array element added, in one pass';

CREATE FUNCTION @extschema@.bloomfilter_remove(f @extschema@.bloomfilter, elem text)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, text) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem text)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, text) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_remove(f @extschema@.bloomfilter, elem bytea)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, bytea) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem bytea)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, bytea) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_remove(f @extschema@.bloomfilter, elem smallint)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, smallint) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem smallint)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, smallint) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_remove(f @extschema@.bloomfilter, elem integer)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, integer) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem integer)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, integer) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_remove(f @extschema@.bloomfilter, elem bigint)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, bigint) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem bigint)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, bigint) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_remove(f @extschema@.bloomfilter, elem uuid)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, uuid) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem uuid)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, uuid) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_remove(f @extschema@.bloomfilter, elem anyelement)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50
SUPPORT @extschema@.bloomfilter_modify_support;

COMMENT ON FUNCTION @extschema@.bloomfilter_remove(@extschema@.bloomfilter, anyelement) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION @extschema@.bloomfilter_count(f @extschema@.bloomfilter, elem anyelement)
RETURNS integer
AS 'MODULE_PATHNAME', 'bloomfilter_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_count(@extschema@.bloomfilter, anyelement) IS
'copies of elem a counting or cuckoo filter may hold: at least those added and not removed (if only added elements were removed), 0 if it is certainly absent (counting counts up to 15)';

CREATE FUNCTION @extschema@.bloomfilter_contains_all(f @extschema@.bloomfilter, elems anyarray)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 20;

COMMENT ON FUNCTION @extschema@.bloomfilter_contains_all(@extschema@.bloomfilter, anyarray) IS
'true if every element is probably present, false if one is certainly absent (NULL elements as in = ALL)';

CREATE FUNCTION @extschema@.bloomfilter_contains_any(f @extschema@.bloomfilter, elems anyarray)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 20;

COMMENT ON FUNCTION @extschema@.bloomfilter_contains_any(@extschema@.bloomfilter, anyarray) IS
'true if some element is probably present, false if all are certainly absent (NULL elements as in = ANY)';

--
-- Combining and comparing
--

CREATE FUNCTION @extschema@.bloomfilter_union(a @extschema@.bloomfilter, b @extschema@.bloomfilter)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 100;

COMMENT ON FUNCTION @extschema@.bloomfilter_union(@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'filter of the union of both sets; both must have the same variant, size, hashes and seed';

CREATE OPERATOR @extschema@.| (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_union,
	COMMUTATOR = OPERATOR(@extschema@.|)
);

COMMENT ON OPERATOR @extschema@.| (@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'union of two filters';

CREATE FUNCTION @extschema@.bloomfilter_intersect(a @extschema@.bloomfilter, b @extschema@.bloomfilter)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 100;

COMMENT ON FUNCTION @extschema@.bloomfilter_intersect(@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'filter holding every element of both sets (bitwise AND; may answer more false positives than a filter built from the intersection)';

CREATE OPERATOR @extschema@.& (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_intersect,
	COMMUTATOR = OPERATOR(@extschema@.&)
);

COMMENT ON OPERATOR @extschema@.& (@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'intersection of two filters';

CREATE FUNCTION @extschema@.bloomfilter_eq(a @extschema@.bloomfilter, b @extschema@.bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_eq(@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'same variant, size, hashes, seed and bits: the filters answer every question alike';

CREATE FUNCTION @extschema@.bloomfilter_ne(a @extschema@.bloomfilter, b @extschema@.bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_ne(@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'negation of bloomfilter_eq';

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_eq,
	COMMUTATOR = OPERATOR(@extschema@.=),
	NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel,
	JOIN = pg_catalog.eqjoinsel,
	HASHES
);

COMMENT ON OPERATOR @extschema@.= (@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'filters answer every membership question alike';

CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.bloomfilter,
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>),
	NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel,
	JOIN = pg_catalog.neqjoinsel
);

COMMENT ON OPERATOR @extschema@.<> (@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'filters differ in parameters or bits';

CREATE FUNCTION @extschema@.bloomfilter_hash(f @extschema@.bloomfilter)
RETURNS integer
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_hash(@extschema@.bloomfilter) IS
'hash of what = compares (shape and bits), for hash joins, GROUP BY and DISTINCT';

CREATE OPERATOR CLASS @extschema@.bloomfilter_hash_ops
DEFAULT FOR TYPE @extschema@.bloomfilter USING hash AS
	OPERATOR 1 @extschema@.= (@extschema@.bloomfilter, @extschema@.bloomfilter),
	FUNCTION 1 @extschema@.bloomfilter_hash(@extschema@.bloomfilter);

COMMENT ON OPERATOR CLASS @extschema@.bloomfilter_hash_ops USING hash IS
'equality of filters for hash joins, GROUP BY, DISTINCT and UNION';

CREATE FUNCTION @extschema@.bloomfilter_is_compatible(a @extschema@.bloomfilter, b @extschema@.bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_is_compatible(@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'true if the filters can be combined: same variant, hash scheme, size, hashes and seed';

--
-- Inspection
--

CREATE FUNCTION @extschema@.bloomfilter_info(f @extschema@.bloomfilter,
	OUT variant text,
	OUT bits bigint,
	OUT bytes bigint,
	OUT hashes integer,
	OUT seed bigint,
	OUT items_added bigint,
	OUT bits_set bigint,
	OUT fill_ratio float8,
	OUT estimated_items float8,
	OUT estimated_fpr float8,
	OUT capacity bigint,
	OUT target_fpr float8,
	OUT stages integer,
	OUT saturated_counters bigint)
RETURNS record
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 100;

COMMENT ON FUNCTION @extschema@.bloomfilter_info(@extschema@.bloomfilter) IS
'parameters and fill of a filter: estimated_items and estimated_fpr come from the bits actually set';

CREATE FUNCTION @extschema@.bloomfilter_plan(expected_items bigint, false_positive_rate float8,
	OUT variant text,
	OUT bits bigint,
	OUT bytes bigint,
	OUT hashes integer,
	OUT bits_per_item float8,
	OUT expected_fpr float8,
	OUT supports_remove boolean,
	OUT supports_union boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
ROWS 5;

COMMENT ON FUNCTION @extschema@.bloomfilter_plan(bigint, float8) IS
'one row per variant: the size each needs for expected_items at false_positive_rate, from its own model';

CREATE FUNCTION @extschema@.bloomfilter_cardinality(f @extschema@.bloomfilter)
RETURNS float8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 100;

COMMENT ON FUNCTION @extschema@.bloomfilter_cardinality(@extschema@.bloomfilter) IS
'distinct items estimated from the bits set (Infinity when every bit is set)';

CREATE FUNCTION @extschema@.bloomfilter_hash_scheme(f @extschema@.bloomfilter)
RETURNS integer
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_hash_scheme(@extschema@.bloomfilter) IS
'how the filter hashes its elements: 2 (release 1.2 on) by each type''s equality, 1 (filters built by 1.0 and 1.1) by binary form';

CREATE OPERATOR @extschema@.# (
	RIGHTARG = @extschema@.bloomfilter,
	FUNCTION = @extschema@.bloomfilter_cardinality
);

COMMENT ON OPERATOR @extschema@.# (NONE, @extschema@.bloomfilter) IS
'estimated number of distinct items in the filter';

--
-- Aggregates.  The state is a bloomfilter, modified in place; the union is
-- the combine function, so every aggregate runs in parallel and in Citus.
--

CREATE FUNCTION @extschema@.bloomfilter_union_trans(state @extschema@.bloomfilter, f @extschema@.bloomfilter)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_union_trans(@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'transition function of bloomfilter_union_agg and combine function of every bloomfilter aggregate';

CREATE FUNCTION @extschema@.bloomfilter_intersect_trans(state @extschema@.bloomfilter, f @extschema@.bloomfilter)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_intersect_trans(@extschema@.bloomfilter, @extschema@.bloomfilter) IS
'transition and combine function of bloomfilter_intersect_agg';

CREATE AGGREGATE @extschema@.bloomfilter_union_agg(@extschema@.bloomfilter) (
	SFUNC = @extschema@.bloomfilter_union_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_union_agg(@extschema@.bloomfilter) IS
'union of all non-NULL filters, which must be compatible';

CREATE AGGREGATE @extschema@.bloomfilter_intersect_agg(@extschema@.bloomfilter) (
	SFUNC = @extschema@.bloomfilter_intersect_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_intersect_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_intersect_agg(@extschema@.bloomfilter) IS
'intersection of all non-NULL filters, which must be compatible';


-- Planner support of the transition functions below: answers nothing, but
-- loads the library while the aggregate is costed, so that the aggregate
-- scan (src/agg_scan.c) is offered to the planner from the first query.
CREATE FUNCTION @extschema@.bloomfilter_agg_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'bloomfilter_agg_support'
LANGUAGE C STRICT;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_support(internal) IS
'planner support function of bloomfilter_agg''s transition functions';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem text,
	expected_items bigint, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, text, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem text, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(text, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem text,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, text, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem text, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(text, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem bytea,
	expected_items bigint, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, bytea, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem bytea, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(bytea, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem bytea,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, bytea, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem bytea, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(bytea, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem smallint,
	expected_items bigint, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, smallint, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem smallint, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(smallint, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem smallint,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, smallint, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem smallint, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(smallint, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem integer,
	expected_items bigint, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, integer, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem integer, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(integer, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem integer,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, integer, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem integer, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(integer, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem bigint,
	expected_items bigint, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, bigint, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem bigint, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(bigint, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem bigint,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, bigint, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem bigint, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(bigint, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem uuid,
	expected_items bigint, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, uuid, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem uuid, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(uuid, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem uuid,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, uuid, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem uuid, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(uuid, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem anyelement,
	expected_items bigint, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, anyelement, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem anyelement, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(anyelement, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem anyelement,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, anyelement, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem anyelement, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(anyelement, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem text)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem text) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(text) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem text, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, text, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem text, false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(text, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem bytea)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, bytea) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem bytea) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(bytea) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem bytea, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, bytea, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem bytea, false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(bytea, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem smallint)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, smallint) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem smallint) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(smallint) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem smallint, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, smallint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem smallint, false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(smallint, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem integer)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, integer) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem integer) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(integer) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem integer, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, integer, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem integer, false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(integer, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem bigint)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, bigint) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem bigint) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(bigint) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem bigint, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem bigint, false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(bigint, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem uuid)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, uuid) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem uuid) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(uuid) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem uuid, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, uuid, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem uuid, false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(uuid, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem anyelement)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, anyelement) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem anyelement) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(anyelement) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION @extschema@.bloomfilter_agg_trans(state @extschema@.bloomfilter, elem anyelement, false_positive_rate float8)
RETURNS @extschema@.bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
SUPPORT @extschema@.bloomfilter_agg_support
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloomfilter_agg_trans(@extschema@.bloomfilter, anyelement, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE @extschema@.bloomfilter_agg(elem anyelement, false_positive_rate float8) (
	SFUNC = @extschema@.bloomfilter_agg_trans,
	STYPE = @extschema@.bloomfilter,
	COMBINEFUNC = @extschema@.bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bloomfilter_agg(anyelement, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';
