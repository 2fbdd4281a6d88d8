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

-- EXTENDED: empty and sparse filters compress to almost nothing, and pglz
-- gives up on a filled (random-looking) filter after its first kilobyte.
CREATE TYPE bloomfilter (
	INPUT = bloomfilter_in,
	OUTPUT = bloomfilter_out,
	RECEIVE = bloomfilter_recv,
	SEND = bloomfilter_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
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
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_create(bigint, float8, text, bigint) IS
'empty filter sized to hold expected_items at false_positive_rate, using the variant''s exact model';

CREATE FUNCTION bloomfilter_create_bits(bits bigint, hashes integer,
	variant text DEFAULT 'classic',
	seed bigint DEFAULT 0)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

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

--
-- Adding and testing elements: one overload per element type, all served by
-- the same C functions.  Integers of every width hash alike.
--

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem text)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

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
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, text) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem text, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contained(text, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = text,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@
);

COMMENT ON OPERATOR @> (bloomfilter, text) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = text,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>
);

COMMENT ON OPERATOR <@ (text, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem bytea)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, bytea) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE OPERATOR || (
	LEFTARG = bloomfilter,
	RIGHTARG = bytea,
	FUNCTION = bloomfilter_add
);

COMMENT ON OPERATOR || (bloomfilter, bytea) IS
'copy of the filter with the element added';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem bytea)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, bytea) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem bytea, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contained(bytea, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = bytea,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@
);

COMMENT ON OPERATOR @> (bloomfilter, bytea) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = bytea,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>
);

COMMENT ON OPERATOR <@ (bytea, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem smallint)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, smallint) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE OPERATOR || (
	LEFTARG = bloomfilter,
	RIGHTARG = smallint,
	FUNCTION = bloomfilter_add
);

COMMENT ON OPERATOR || (bloomfilter, smallint) IS
'copy of the filter with the element added';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem smallint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, smallint) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem smallint, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contained(smallint, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = smallint,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@
);

COMMENT ON OPERATOR @> (bloomfilter, smallint) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = smallint,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>
);

COMMENT ON OPERATOR <@ (smallint, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem integer)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, integer) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE OPERATOR || (
	LEFTARG = bloomfilter,
	RIGHTARG = integer,
	FUNCTION = bloomfilter_add
);

COMMENT ON OPERATOR || (bloomfilter, integer) IS
'copy of the filter with the element added';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem integer)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, integer) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem integer, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contained(integer, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = integer,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@
);

COMMENT ON OPERATOR @> (bloomfilter, integer) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = integer,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>
);

COMMENT ON OPERATOR <@ (integer, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem bigint)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, bigint) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE OPERATOR || (
	LEFTARG = bloomfilter,
	RIGHTARG = bigint,
	FUNCTION = bloomfilter_add
);

COMMENT ON OPERATOR || (bloomfilter, bigint) IS
'copy of the filter with the element added';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, bigint) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem bigint, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contained(bigint, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = bigint,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@
);

COMMENT ON OPERATOR @> (bloomfilter, bigint) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = bigint,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>
);

COMMENT ON OPERATOR <@ (bigint, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem uuid)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_add(bloomfilter, uuid) IS
'copy of the filter with elem added (a NULL elem leaves the filter unchanged)';

CREATE OPERATOR || (
	LEFTARG = bloomfilter,
	RIGHTARG = uuid,
	FUNCTION = bloomfilter_add
);

COMMENT ON OPERATOR || (bloomfilter, uuid) IS
'copy of the filter with the element added';

CREATE FUNCTION bloomfilter_contains(f bloomfilter, elem uuid)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, uuid) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem uuid, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contained(uuid, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = uuid,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@
);

COMMENT ON OPERATOR @> (bloomfilter, uuid) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = uuid,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>
);

COMMENT ON OPERATOR <@ (uuid, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add(f bloomfilter, elem anyelement)
RETURNS bloomfilter
AS 'MODULE_PATHNAME', 'bloomfilter_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

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
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contains(bloomfilter, anyelement) IS
'false if elem was certainly never added; true if it probably was';

CREATE FUNCTION bloomfilter_contained(elem anyelement, f bloomfilter)
RETURNS boolean
AS 'MODULE_PATHNAME', 'bloomfilter_contained'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_contained(anyelement, bloomfilter) IS
'bloomfilter_contains with the arguments swapped, for the <@ operator';

CREATE OPERATOR @> (
	LEFTARG = bloomfilter,
	RIGHTARG = anyelement,
	FUNCTION = bloomfilter_contains,
	COMMUTATOR = <@
);

COMMENT ON OPERATOR @> (bloomfilter, anyelement) IS
'filter probably contains the element';

CREATE OPERATOR <@ (
	LEFTARG = anyelement,
	RIGHTARG = bloomfilter,
	FUNCTION = bloomfilter_contained,
	COMMUTATOR = @>
);

COMMENT ON OPERATOR <@ (anyelement, bloomfilter) IS
'element is probably contained in the filter';

CREATE FUNCTION bloomfilter_add_all(f bloomfilter, elems anyarray)
RETURNS bloomfilter
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION bloomfilter_add_all(bloomfilter, anyarray) IS
'copy of the filter with every non-NULL array element added, in one pass';
