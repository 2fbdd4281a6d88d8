/* bloomfilter--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

--
-- The type
--

CREATE TYPE bloomfilter;

CREATE FUNCTION bloomfilter_in(cstring)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_out(bloomfilter)
RETURNS cstring
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_recv(internal)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloomfilter_send(bloomfilter)
RETURNS bytea
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- EXTERNAL: stored out of line but never compressed.  A filled filter looks
-- random and does not compress; a sparse one does, but then every query
-- that reads it pays for decompression (a sparse 100 MB filter took 420 ms
-- to decompress against 50 ms to copy).  ALTER TABLE ... SET STORAGE
-- EXTENDED trades that time for disk where filters stay sparse.
CREATE TYPE bloomfilter (
	INPUT = bloomfilter_in,
	OUTPUT = bloomfilter_out,
	RECEIVE = bloomfilter_recv,
	SEND = bloomfilter_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = external
);

COMMENT ON TYPE bloomfilter IS
'probabilistic set: answers "certainly absent" or "probably present"; text form is base64 of the bytes described in STORAGE.md';

--
-- Casts
--

CREATE FUNCTION bloomfilter(bytea)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_from_bytea'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter(bytea) IS
'cast bytea to bloomfilter, validating every header field against the length';

CREATE CAST (bytea AS bloomfilter) WITH FUNCTION bloomfilter(bytea);
CREATE CAST (bloomfilter AS bytea) WITHOUT FUNCTION;

COMMENT ON CAST (bytea AS bloomfilter) IS
'validated cast: raises an error unless the bytes are a well-formed filter';
COMMENT ON CAST (bloomfilter AS bytea) IS
'the serialised filter, byte for byte as documented in STORAGE.md';

--
-- Construction and sizing
--

CREATE FUNCTION bloomfilter_create(expected_items bigint,
	false_positive_rate float8 DEFAULT 0.01,
	variant text DEFAULT 'blocked',
	seed bigint DEFAULT 0)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_create(bigint, float8, text, bigint) IS
'empty filter sized to hold expected_items at false_positive_rate, using the variant''s exact model';

CREATE FUNCTION bloomfilter_create_bits(bits bigint, hashes integer,
	variant text DEFAULT 'classic',
	seed bigint DEFAULT 0)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_create_bits(bigint, integer, text, bigint) IS
'empty filter of the given number of bits and hash functions (blocked rounds bits up to whole 512-bit blocks)';

CREATE FUNCTION bloomfilter_optimal_bits(expected_items bigint,
	false_positive_rate float8,
	variant text DEFAULT 'classic')
RETURNS bigint
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_optimal_bits(bigint, float8, text) IS
'bits a filter of the variant needs to hold expected_items at false_positive_rate';

CREATE FUNCTION bloomfilter_optimal_hashes(bits bigint, expected_items bigint)
RETURNS integer
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_optimal_hashes(bigint, bigint) IS
'optimal number of hash functions of a classic filter: round((bits / expected_items) ln 2), at least 1';

CREATE FUNCTION bloomfilter_false_positive_rate(bits bigint,
	expected_items bigint, hashes integer)
RETURNS float8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_false_positive_rate(bigint, bigint, integer) IS
'false-positive rate of a classic filter: (1 - exp(-hashes * expected_items / bits)) ^ hashes';

CREATE FUNCTION bloomfilter_capacity(bits bigint, false_positive_rate float8,
	variant text DEFAULT 'classic')
RETURNS bigint
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_capacity(bigint, float8, text) IS
'most items a filter of the variant with this many bits holds at false_positive_rate';

CREATE FUNCTION bloomfilter_contsel(internal, oid, internal, integer)
RETURNS float8
AS 'MODULE_PATHNAME'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contsel(internal, oid, internal, integer) IS
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

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, text) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE OPERATOR || (
	LEFTARG = bloomfilter,
	RIGHTARG = text,
	FUNCTION = bloomfilter_add
);

COMMENT ON OPERATOR || (bloomfilter, text) IS
'copy of the filter with the element added';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, text) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem text, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contained(text, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = text,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR @> (bloomfilter, text) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = text,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR <@ (text, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem bytea)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, bytea) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem bytea)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, bytea) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem bytea, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contained(bytea, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = bytea,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR @> (bloomfilter, bytea) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = bytea,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR <@ (bytea, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem smallint)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, smallint) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem smallint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, smallint) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem smallint, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contained(smallint, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = smallint,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR @> (bloomfilter, smallint) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = smallint,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR <@ (smallint, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem integer)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, integer) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem integer)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, integer) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem integer, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contained(integer, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = integer,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR @> (bloomfilter, integer) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = integer,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR <@ (integer, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem bigint)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, bigint) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, bigint) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem bigint, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contained(bigint, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = bigint,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR @> (bloomfilter, bigint) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = bigint,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR <@ (bigint, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem uuid)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, uuid) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem uuid)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, uuid) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem uuid, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contained(uuid, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = uuid,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR @> (bloomfilter, uuid) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = uuid,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR <@ (uuid, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem anyelement)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, anyelement) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE OPERATOR || (
	LEFTARG = bloomfilter,
	RIGHTARG = anyelement,
	FUNCTION = bloomfilter_add
);

COMMENT ON OPERATOR || (bloomfilter, anyelement) IS
'copy of the filter with the element added';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem anyelement)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, anyelement) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem anyelement, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 5;

COMMENT ON FUNCTION bloomfilter_contained(anyelement, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = anyelement,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR @> (bloomfilter, anyelement) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = anyelement,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>,
	RESTRICT = bloomfilter_contsel
);

COMMENT ON OPERATOR <@ (anyelement, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add_all(f bloomfilter, elems anyarray)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 100;

COMMENT ON FUNCTION bloomfilter_add_all(bloomfilter, anyarray) IS
'copy of the filter with every non-NULL array element added, in one pass';

CREATE FUNCTION bloomfilter_remove(f bloomfilter, elem text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_remove(bloomfilter, text) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION bloomfilter_remove(f bloomfilter, elem bytea)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_remove(bloomfilter, bytea) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION bloomfilter_remove(f bloomfilter, elem smallint)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_remove(bloomfilter, smallint) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION bloomfilter_remove(f bloomfilter, elem integer)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_remove(bloomfilter, integer) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION bloomfilter_remove(f bloomfilter, elem bigint)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_remove(bloomfilter, bigint) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION bloomfilter_remove(f bloomfilter, elem uuid)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_remove(bloomfilter, uuid) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION bloomfilter_remove(f bloomfilter, elem anyelement)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_remove'
LANGUAGE C IMMUTABLE PARALLEL SAFE
COST 50;

COMMENT ON FUNCTION bloomfilter_remove(bloomfilter, anyelement) IS
'copy of a counting or cuckoo filter with one occurrence of elem removed';

CREATE FUNCTION bloomfilter_contains_all(f bloomfilter, elems anyarray)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 20;

COMMENT ON FUNCTION bloomfilter_contains_all(bloomfilter, anyarray) IS
'true if every element is probably present, false if one is certainly absent (NULL elements as in = ALL)';

CREATE FUNCTION bloomfilter_contains_any(f bloomfilter, elems anyarray)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 20;

COMMENT ON FUNCTION bloomfilter_contains_any(bloomfilter, anyarray) IS
'true if some element is probably present, false if all are certainly absent (NULL elements as in = ANY)';

--
-- Combining and comparing
--

CREATE FUNCTION bloomfilter_union(a bloomfilter, b bloomfilter)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 100;

COMMENT ON FUNCTION bloomfilter_union(bloomfilter, bloomfilter) IS
'filter of the union of both sets; both must have the same variant, size, hashes and seed';

CREATE OPERATOR | (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_union,
	COMMUTATOR = |
);

COMMENT ON OPERATOR | (bloomfilter, bloomfilter) IS
'union of two filters';

CREATE FUNCTION bloomfilter_intersect(a bloomfilter, b bloomfilter)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 100;

COMMENT ON FUNCTION bloomfilter_intersect(bloomfilter, bloomfilter) IS
'filter holding every element of both sets (bitwise AND; may answer more false positives than a filter built from the intersection)';

CREATE OPERATOR & (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_intersect,
	COMMUTATOR = &
);

COMMENT ON OPERATOR & (bloomfilter, bloomfilter) IS
'intersection of two filters';

CREATE FUNCTION bloomfilter_eq(a bloomfilter, b bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_eq(bloomfilter, bloomfilter) IS
'same variant, size, hashes, seed and bits: the filters answer every question alike';

CREATE FUNCTION bloomfilter_ne(a bloomfilter, b bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_ne(bloomfilter, bloomfilter) IS
'negation of bloomfilter_eq';

CREATE OPERATOR = (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_eq,
	COMMUTATOR = =,
	NEGATOR = <>,
	RESTRICT = eqsel,
	JOIN = eqjoinsel,
	HASHES
);

COMMENT ON OPERATOR = (bloomfilter, bloomfilter) IS
'filters answer every membership question alike';

CREATE OPERATOR <> (
	LEFTARG = bloomfilter,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_ne,
	COMMUTATOR = <>,
	NEGATOR = =,
	RESTRICT = neqsel,
	JOIN = neqjoinsel
);

COMMENT ON OPERATOR <> (bloomfilter, bloomfilter) IS
'filters differ in parameters or bits';

CREATE FUNCTION bloomfilter_hash(f bloomfilter)
RETURNS integer
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_hash(bloomfilter) IS
'hash of what = compares (shape and bits), for hash joins, GROUP BY and DISTINCT';

CREATE OPERATOR CLASS bloomfilter_hash_ops
DEFAULT FOR TYPE bloomfilter USING hash AS
	OPERATOR 1 = (bloomfilter, bloomfilter),
	FUNCTION 1 bloomfilter_hash(bloomfilter);

COMMENT ON OPERATOR CLASS bloomfilter_hash_ops USING hash IS
'equality of filters for hash joins, GROUP BY, DISTINCT and UNION';

CREATE FUNCTION bloomfilter_is_compatible(a bloomfilter, b bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_is_compatible(bloomfilter, bloomfilter) IS
'true if the filters can be combined: same variant, size, hashes and seed';

--
-- Inspection
--

CREATE FUNCTION bloomfilter_info(f bloomfilter,
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

COMMENT ON FUNCTION bloomfilter_info(bloomfilter) IS
'parameters and fill of a filter: estimated_items and estimated_fpr come from the bits actually set';

CREATE FUNCTION bloomfilter_plan(expected_items bigint, false_positive_rate float8,
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

COMMENT ON FUNCTION bloomfilter_plan(bigint, float8) IS
'one row per variant: the size each needs for expected_items at false_positive_rate, from its own model';

CREATE FUNCTION bloomfilter_cardinality(f bloomfilter)
RETURNS float8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
COST 100;

COMMENT ON FUNCTION bloomfilter_cardinality(bloomfilter) IS
'distinct items estimated from the bits set (Infinity when every bit is set)';

CREATE OPERATOR # (
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_cardinality
);

COMMENT ON OPERATOR # (NONE, bloomfilter) IS
'estimated number of distinct items in the filter';

--
-- Aggregates.  The state is a bloomfilter, modified in place; the union is
-- the combine function, so every aggregate runs in parallel and in Citus.
--

CREATE FUNCTION bloomfilter_union_trans(state bloomfilter, f bloomfilter)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_union_trans(bloomfilter, bloomfilter) IS
'transition function of bloomfilter_union_agg and combine function of every bloomfilter aggregate';

CREATE FUNCTION bloomfilter_intersect_trans(state bloomfilter, f bloomfilter)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_intersect_trans(bloomfilter, bloomfilter) IS
'transition and combine function of bloomfilter_intersect_agg';

CREATE AGGREGATE bloomfilter_union_agg(bloomfilter) (
	SFUNC = bloomfilter_union_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_union_agg(bloomfilter) IS
'union of all non-NULL filters, which must be compatible';

CREATE AGGREGATE bloomfilter_intersect_agg(bloomfilter) (
	SFUNC = bloomfilter_intersect_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_intersect_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_intersect_agg(bloomfilter) IS
'intersection of all non-NULL filters, which must be compatible';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem text,
	expected_items bigint, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, text, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem text, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(text, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem text,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, text, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem text, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(text, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem bytea,
	expected_items bigint, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, bytea, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem bytea, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(bytea, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem bytea,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, bytea, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem bytea, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(bytea, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem smallint,
	expected_items bigint, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, smallint, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem smallint, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(smallint, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem smallint,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, smallint, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem smallint, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(smallint, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem integer,
	expected_items bigint, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, integer, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem integer, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(integer, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem integer,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, integer, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem integer, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(integer, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem bigint,
	expected_items bigint, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, bigint, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem bigint, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(bigint, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem bigint,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, bigint, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem bigint, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(bigint, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem uuid,
	expected_items bigint, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, uuid, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem uuid, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(uuid, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem uuid,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, uuid, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem uuid, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(uuid, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem anyelement,
	expected_items bigint, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, anyelement, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem anyelement, expected_items bigint,
	false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(anyelement, bigint, float8) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate (blocked)';


CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem anyelement,
	expected_items bigint, false_positive_rate float8, variant text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, anyelement, bigint, float8, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem anyelement, expected_items bigint,
	false_positive_rate float8, variant text) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(anyelement, bigint, float8, text) IS
'filter of all non-NULL elements, sized for expected_items at false_positive_rate in the given variant';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, text) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem text) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(text) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem text, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, text, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem text, false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(text, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem bytea)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, bytea) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem bytea) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(bytea) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem bytea, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, bytea, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem bytea, false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(bytea, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem smallint)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, smallint) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem smallint) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(smallint) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem smallint, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, smallint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem smallint, false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(smallint, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem integer)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, integer) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem integer) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(integer) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem integer, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, integer, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem integer, false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(integer, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem bigint)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, bigint) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem bigint) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(bigint) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem bigint, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, bigint, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem bigint, false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(bigint, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem uuid)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, uuid) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem uuid) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(uuid) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem uuid, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, uuid, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem uuid, false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(uuid, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem anyelement)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, anyelement) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem anyelement) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(anyelement) IS
'scalable filter of all non-NULL elements at a 1 % rate, growing as needed';

CREATE FUNCTION bloomfilter_agg_trans(state bloomfilter, elem anyelement, false_positive_rate float8)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_agg_trans(bloomfilter, anyelement, float8) IS
'transition function of bloomfilter_agg';

CREATE AGGREGATE bloomfilter_agg(elem anyelement, false_positive_rate float8) (
	SFUNC = bloomfilter_agg_trans,
	STYPE = bloomfilter,
	COMBINEFUNC = bloomfilter_union_trans,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE bloomfilter_agg(anyelement, float8) IS
'scalable filter of all non-NULL elements at the given rate, growing as needed';
