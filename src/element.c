/*
 * element.c
 *		Canonical bytes of SQL elements, and their hashes.
 *
 * An element's canonical bytes depend on its value only: never on OIDs
 * (which a dump and restore changes), client_encoding or other settings,
 * so that a filter answers for its members in every database and session.
 * A filter's hash scheme (its header) says which canonical bytes it was
 * built with; STORAGE.md section 6 documents both:
 *
 *	- integers of every width as the same 8-byte little-endian value (so
 *	  42::int4 and 42::int8 match); text, varchar and bytea as their bytes;
 *	  char(n) without trailing spaces (as it converts to text); uuid as its
 *	  16 bytes;
 *	- scheme 2 (the current one) hashes by the type's equality: numeric by
 *	  value (an integer as the integers, else its decimal text without
 *	  trailing zeros), float4 and float8 as their double (-0 as 0, one
 *	  NaN), interval by its span, inet and cidr alike, jsonb by its tokens
 *	  with numbers as numeric, user-defined types with a hash operator
 *	  class by their own extended hash; strings under a nondeterministic
 *	  collation are refused;
 *	- other built-in types whose binary send form holds the value alone
 *	  (dates, timestamps, booleans, ...; scheme 1: numeric, float, interval
 *	  and inet too) as that send form;
 *	- string types, enums (by label), json, xml, tsvector, tsquery,
 *	  jsonpath and user-defined types without a hash operator class (scheme
 *	  1: jsonb and every user-defined type) as their output text, in the
 *	  database encoding: their send forms convert text to client_encoding;
 *	- arrays, composites and anonymous records, ranges and multiranges from
 *	  the canonical bytes of their parts, each length-prefixed, with the
 *	  dimensions, bounds and NULLs;
 *	- domains as their base type;
 *	- reg* types (OIDs of catalog objects) are refused.
 */
#include "bloomfilter.h"

#include <sys/socket.h>			/* AF_INET, for utils/inet.h */

#include "access/htup_details.h"
#include "common/int.h"
#include "common/int128.h"
#include "access/transam.h"
#include "access/tupdesc.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/inet.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/multirangetypes.h"
#include "utils/numeric.h"
#include "utils/rangetypes.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

/* The column hashers of one row type (type OID and typmod) */
typedef struct RowHasher
{
	Oid			typid;
	int32		typmod;
	TupleDesc	tupdesc;		/* a copy, for heap_deform_tuple */
	int			ncolumns;		/* not dropped */
	ElementHasher *columns;		/* per attribute; dropped ones unused */
	struct RowHasher *next;
} RowHasher;

/* Marks a NULL where a length would be */
#define CANON_NULL	0xFFFFFFFFu

/* Canonical range flags (the values PostgreSQL's range flags have) */
#define CANON_RANGE_EMPTY	0x01
#define CANON_RANGE_LB_INC	0x02
#define CANON_RANGE_UB_INC	0x04
#define CANON_RANGE_LB_INF	0x08
#define CANON_RANGE_UB_INF	0x10

static void hasher_init(ElementHasher *eh, Oid type, Oid collation,
						uint8 scheme, MemoryContext mcxt);
static void encode(ElementHasher *eh, Datum value, StringInfo buf);

/* Does this built-in send function convert text to client_encoding? */
static bool
send_converts_text(Oid send)
{
	switch (send)
	{
		case F_TEXTSEND:		/* text, refcursor */
		case F_VARCHARSEND:
		case F_BPCHARSEND:
		case F_NAMESEND:
		case F_UNKNOWNSEND:
		case F_CSTRING_SEND:
		case F_JSON_SEND:
		case F_JSONB_SEND:
		case F_JSONPATH_SEND:
		case F_XML_SEND:
		case F_TSVECTORSEND:
		case F_TSQUERYSEND:
		case F_ENUM_SEND:
		case F_PG_NODE_TREE_SEND:
			return true;
	}
	return false;
}

static bool
is_reg_type(Oid base)
{
	switch (base)
	{
		case REGPROCOID:
		case REGPROCEDUREOID:
		case REGOPEROID:
		case REGOPERATOROID:
		case REGCLASSOID:
		case REGCOLLATIONOID:
		case REGTYPEOID:
		case REGROLEOID:
		case REGNAMESPACEOID:
		case REGCONFIGOID:
		case REGDICTIONARYOID:
			return true;
	}
	return false;
}

/*
 * Built-in types passed by value whose send form is the value's bytes,
 * big-endian: hashed from the datum, without calling the send function
 * (the same bytes)
 */
static bool
fixed_be_type(Oid base)
{
	switch (base)
	{
		case BOOLOID:
		case CHAROID:
		case DATEOID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case OIDOID:
		case XIDOID:
		case CIDOID:
		case XID8OID:
		case PG_LSNOID:
		case CASHOID:
			return true;
	}
	return false;
}

/* A fixed_be_type value's send form, into bytes[8]; returns its length */
static inline int
fixed_be_bytes(const ElementHasher *eh, Datum value, char *bytes)
{
	uint64		v;
	int			i;

	switch (eh->typlen)
	{
		case 1:
			/* "char" as it is; a bool datum is 0 or 1, as boolsend sends */
			bytes[0] = DatumGetChar(value);
			return 1;
		case 4:
			v = DatumGetUInt32(value);
			break;
		default:
			v = (uint64) DatumGetInt64(value);
			break;
	}
	for (i = 0; i < eh->typlen; i++)
		bytes[i] = (char) (v >> (8 * (eh->typlen - 1 - i)));
	return eh->typlen;
}

/* The kind of a type that is none of the fixed ones and no container */
static ElementKind
scalar_kind(Oid base, MemoryContext mcxt, FmgrInfo *io)
{
	Oid			func;
	bool		isvarlena;
	char		category;
	bool		preferred;

	if (fixed_be_type(base))
		return ELEM_FIXED_BE;
	get_type_category_preferred(base, &category, &preferred);
	if (category != TYPCATEGORY_STRING && base < FirstGenbkiObjectId)
	{
		int16		typlen;
		bool		typbyval;
		char		typalign,
					delim;
		Oid			ioparam;

		get_type_io_data(base, IOFunc_send, &typlen, &typbyval, &typalign,
						 &delim, &ioparam, &func);
		if (OidIsValid(func) && !send_converts_text(func))
		{
			fmgr_info_cxt(func, io, mcxt);
			return ELEM_SEND;
		}
	}
	getTypeOutputInfo(base, &func, &isvarlena);
	fmgr_info_cxt(func, io, mcxt);
	return ELEM_TEXT_OUT;
}

/*
 * Whether values of 'type' (a domain: its base type) are hashed from their
 * own bytes, calling no SQL function: integers, text, varchar, bytea,
 * char(n), uuid.  Sets *kind when so; never raises an error, so that the
 * planner can ask about any type.
 */
bool
element_plain_kind(Oid type, ElementKind *kind)
{
	switch (getBaseType(type))
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			*kind = ELEM_INTEGER;
			return true;
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
			*kind = ELEM_BYTES;
			return true;
		case BPCHAROID:
			*kind = ELEM_BPCHAR;
			return true;
		case UUIDOID:
			*kind = ELEM_UUID;
			return true;
	}
	return false;
}

/*
 * Scheme 2 refuses strings under a nondeterministic collation: values it
 * calls equal ('a' and 'A' under a case-insensitive one) have different
 * bytes, and a filter would miss them
 */
static void
refuse_nondeterministic(Oid type, Oid collation)
{
	if (!OidIsValid(collation) || get_collation_isdeterministic(collation))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("a bloomfilter cannot hash %s values under the nondeterministic collation \"%s\"",
					format_type_be(type), get_collation_name(collation)),
			 errdetail("Strings that this collation calls equal differ in their bytes, so a filter would miss them."),
			 errhint("Add and test the values under a deterministic collation, such as COLLATE \"C\", or normalise them first, for example with lower().")));
}

/*
 * Scheme 2's kinds for types whose equality is not equality of their send
 * form or output text; false for the others
 */
static bool
equality_kind(ElementHasher *eh, Oid base, Oid collation, MemoryContext mcxt)
{
	TypeCacheEntry *tc;

	switch (base)
	{
		case NUMERICOID:
			eh->kind = ELEM_NUMERIC;
			return true;
		case FLOAT4OID:
			eh->kind = ELEM_FLOAT4;
			return true;
		case FLOAT8OID:
			eh->kind = ELEM_FLOAT8;
			return true;
		case INTERVALOID:
			eh->kind = ELEM_INTERVAL;
			return true;
		case INETOID:
		case CIDROID:
			eh->kind = ELEM_INET;
			return true;
		case JSONBOID:
			eh->kind = ELEM_JSONB;
			return true;
		case NAMEOID:
			refuse_nondeterministic(base, collation);
			return false;
	}

	/*
	 * A user-defined type (an enum goes by its label: its hash is of its
	 * OID) by its own hash function, which its = honours by contract
	 */
	if (base < FirstNormalObjectId || get_typtype(base) != TYPTYPE_BASE)
		return false;
	tc = lookup_type_cache(base, TYPECACHE_HASH_PROC |
						   TYPECACHE_HASH_EXTENDED_PROC);
	if (OidIsValid(tc->hash_extended_proc))
	{
		eh->kind = ELEM_TYPE_HASH;
		fmgr_info_cxt(tc->hash_extended_proc, &eh->io, mcxt);
		return true;
	}
	if (OidIsValid(tc->hash_proc))
	{
		eh->kind = ELEM_TYPE_HASH32;
		fmgr_info_cxt(tc->hash_proc, &eh->io, mcxt);
		return true;
	}
	return false;
}

/*
 * Whether hash scheme 2 hashes values of 'type' compared under 'collation'
 * calling no SQL function, and without refusing them (the join filters'
 * keys): integers, numeric, floats, strings under a deterministic
 * collation, bytea, uuid, interval, inet and cidr, and the types passed by
 * value whose send form is their bytes (dates, timestamps, ...).  Sets
 * *kind; never raises an error, so that the planner can ask about any type.
 */
bool
element_direct_kind(Oid type, Oid collation, ElementKind *kind)
{
	Oid			base = getBaseType(type);

	if (element_plain_kind(base, kind))
		return (*kind != ELEM_BYTES && *kind != ELEM_BPCHAR) ||
			base == BYTEAOID || !OidIsValid(collation) ||
			get_collation_isdeterministic(collation);
	if (fixed_be_type(base))
	{
		*kind = ELEM_FIXED_BE;
		return true;
	}
	switch (base)
	{
		case NUMERICOID:
			*kind = ELEM_NUMERIC;
			return true;
		case FLOAT4OID:
			*kind = ELEM_FLOAT4;
			return true;
		case FLOAT8OID:
			*kind = ELEM_FLOAT8;
			return true;
		case INTERVALOID:
			*kind = ELEM_INTERVAL;
			return true;
		case INETOID:
		case CIDROID:
			*kind = ELEM_INET;
			return true;
	}
	return false;
}

/*
 * Works out how to hash values of 'type', compared under 'collation', by
 * hash scheme 'scheme' (parts of a container included), allocating what it
 * keeps in mcxt.  Refuses types without a value-only encoding.
 */
static void
hasher_init(ElementHasher *eh, Oid type, Oid collation, uint8 scheme,
			MemoryContext mcxt)
{
	Oid			base = getBaseType(type);
	bool		by_equality = scheme != BF_HASH_XXH3_128;
	Oid			elem;
	char		typtype;

	eh->type = type;
	eh->collation = collation;
	eh->scheme = scheme;
	eh->sub = NULL;
	eh->range = NULL;
	eh->rows = NULL;
	eh->other = NULL;
	eh->mcxt = mcxt;
	eh->scratch = NULL;
	get_typlenbyvalalign(base, &eh->typlen, &eh->typbyval, &eh->typalign);
	if (element_plain_kind(base, &eh->kind))
	{
		if (by_equality && base != BYTEAOID &&
			(eh->kind == ELEM_BYTES || eh->kind == ELEM_BPCHAR))
			refuse_nondeterministic(base, collation);
		return;
	}
	switch (base)
	{
		case RECORDOID:
			eh->kind = ELEM_RECORD;
			return;
		case UNKNOWNOID:		/* a C string: its output is itself */
			eh->kind = scalar_kind(base, mcxt, &eh->io);
			return;
	}
	if (is_reg_type(base))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("type %s cannot be an element of a bloomfilter",
						format_type_be(type)),
				 errdetail("Its values are object identifiers, which change when a database is dumped and restored, and its text form depends on search_path."),
				 errhint("Add the object's name as text, or cast to oid if the identifier itself is meant.")));

	typtype = get_typtype(base);
	if (typtype == TYPTYPE_COMPOSITE)
	{
		eh->kind = ELEM_RECORD;
		return;
	}
	if (typtype == TYPTYPE_RANGE || typtype == TYPTYPE_MULTIRANGE)
	{
		TypeCacheEntry *tc;

		if (typtype == TYPTYPE_RANGE)
			tc = lookup_type_cache(base, TYPECACHE_RANGE_INFO);
		else
			tc = lookup_type_cache(base, TYPECACHE_MULTIRANGE_INFO)->rngtype;
		if (tc == NULL || tc->rngelemtype == NULL)
			elog(ERROR, "type %u is not a range type", base);
		eh->kind = typtype == TYPTYPE_RANGE ? ELEM_RANGE : ELEM_MULTIRANGE;
		eh->range = tc;
		eh->sub = MemoryContextAlloc(mcxt, sizeof(ElementHasher));
		hasher_init(eh->sub, tc->rngelemtype->type_id, tc->rng_collation,
					scheme, mcxt);
		return;
	}
	if (typtype == TYPTYPE_PSEUDO)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("type %s cannot be an element of a bloomfilter",
						format_type_be(type)),
				 errdetail("A pseudo-type does not say how its values are to be read."),
				 errhint("Cast the element to a concrete type.")));
	elem = get_element_type(base);
	if (OidIsValid(elem))
	{
		check_stack_depth();
		eh->kind = ELEM_ARRAY;
		eh->sub = MemoryContextAlloc(mcxt, sizeof(ElementHasher));
		hasher_init(eh->sub, elem, collation, scheme, mcxt);
		return;
	}
	if (by_equality && equality_kind(eh, base, collation, mcxt))
		return;
	/* enums and string types by their text; other types by their kind */
	eh->kind = scalar_kind(base, mcxt, &eh->io);
}

static void
hasher_init_top(ElementHasher *eh, Oid type, Oid collation, uint8 scheme,
				MemoryContext mcxt)
{
	hasher_init(eh, type, collation, scheme, mcxt);
	if (eh->kind >= ELEM_ARRAY)
		eh->scratch = AllocSetContextCreate(mcxt, "bloomfilter element",
											ALLOCSET_SMALL_SIZES);
}

/* How to hash values of 'type' into new filters (the current scheme) */
void
element_hasher_init(ElementHasher *eh, Oid type, Oid collation,
					MemoryContext mcxt)
{
	hasher_init_top(eh, type, collation, BF_HASH_SCHEME_CURRENT, mcxt);
}

/*
 * eh's type by hash scheme 'scheme' (a valid one: the filter's), made the
 * first time a filter of that scheme comes by
 */
ElementHasher *
element_hasher_of_scheme(ElementHasher *eh, uint8 scheme)
{
	if (eh->scheme == scheme)
		return eh;
	if (eh->other == NULL)
	{
		ElementHasher *other = MemoryContextAllocZero(eh->mcxt,
													  sizeof(ElementHasher));

		hasher_init_top(other, eh->type, eh->collation, scheme, eh->mcxt);
		other->other = eh;
		eh->other = other;
	}
	return eh->other;
}

/*
 * Whether hashing a value may leave memory in the current context (output,
 * send and hash functions, detoasted copies): callers hashing many values
 * in one call reset a context of their own after each
 */
bool
element_allocates(const ElementHasher *eh)
{
	switch (eh->kind)
	{
		case ELEM_TEXT_OUT:
		case ELEM_SEND:
		case ELEM_NUMERIC:
		case ELEM_INET:
		case ELEM_TYPE_HASH:
		case ELEM_TYPE_HASH32:
			return true;
		default:
			return false;
	}
}

/* ---- canonical bytes of a container's parts ---- */

static inline void
put_u32(StringInfo buf, uint32 v)
{
	char		b[4];

	b[0] = (char) v;
	b[1] = (char) (v >> 8);
	b[2] = (char) (v >> 16);
	b[3] = (char) (v >> 24);
	appendBinaryStringInfo(buf, b, 4);
}

/* Ends a part opened at 'at' with put_u32(buf, 0): its length goes there */
static void
end_part(StringInfo buf, int at)
{
	uint32		len = buf->len - at - 4;

	buf->data[at] = (char) len;
	buf->data[at + 1] = (char) (len >> 8);
	buf->data[at + 2] = (char) (len >> 16);
	buf->data[at + 3] = (char) (len >> 24);
}

/* A part: CANON_NULL, or its length and its canonical bytes */
static void
encode_part(ElementHasher *eh, Datum value, bool isnull, StringInfo buf)
{
	int			at = buf->len;

	if (isnull)
	{
		put_u32(buf, CANON_NULL);
		return;
	}
	put_u32(buf, 0);
	encode(eh, value, buf);
	end_part(buf, at);
}

static void
encode_array(ElementHasher *eh, Datum value, StringInfo buf)
{
	AnyArrayType *a = DatumGetAnyArrayP(value);
	ElementHasher *sub = eh->sub;
	int			ndim = AARR_NDIM(a);
	int		   *dims = AARR_DIMS(a);
	int		   *lbs = AARR_LBOUND(a);
	int			nitems = ArrayGetNItems(ndim, dims);
	array_iter	it;
	int			i;

	/*
	 * The value's own element type decides how its elements are laid out.
	 * It is the declared one; should it ever differ, the parts are read as
	 * the value says (a new hasher: one a recursive caller may still use
	 * stays valid).
	 */
	if (unlikely(AARR_ELEMTYPE(a) != sub->type))
	{
		sub = MemoryContextAlloc(eh->mcxt, sizeof(ElementHasher));
		hasher_init(sub, AARR_ELEMTYPE(a), eh->collation, eh->scheme,
					eh->mcxt);
		eh->sub = sub;
	}
	put_u32(buf, (uint32) ndim);
	for (i = 0; i < ndim; i++)
	{
		put_u32(buf, (uint32) dims[i]);
		put_u32(buf, (uint32) lbs[i]);
	}
	array_iter_setup(&it, a);
	for (i = 0; i < nitems; i++)
	{
		bool		isnull;
		Datum		d = array_iter_next(&it, &isnull, i, sub->typlen,
										sub->typbyval, sub->typalign);

		CHECK_FOR_INTERRUPTS();
		encode_part(sub, d, isnull, buf);
	}
}

/* The column hashers of a row type, built on first sight */
static RowHasher *
row_hasher(ElementHasher *eh, Oid typid, int32 typmod)
{
	RowHasher  *rh;
	TupleDesc	tupdesc;
	MemoryContext old;
	int			i;

	for (rh = eh->rows; rh != NULL; rh = rh->next)
		if (rh->typid == typid && rh->typmod == typmod)
			return rh;

	tupdesc = lookup_rowtype_tupdesc(typid, typmod);
	old = MemoryContextSwitchTo(eh->mcxt);
	rh = palloc0(sizeof(RowHasher));
	rh->typid = typid;
	rh->typmod = typmod;
	rh->tupdesc = CreateTupleDescCopy(tupdesc);
	rh->columns = palloc0(Max(tupdesc->natts, 1) * sizeof(ElementHasher));
	MemoryContextSwitchTo(old);
	ReleaseTupleDesc(tupdesc);
	for (i = 0; i < rh->tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(rh->tupdesc, i);

		if (att->attisdropped)
			continue;
		hasher_init(&rh->columns[i], att->atttypid, att->attcollation,
					eh->scheme, eh->mcxt);
		rh->ncolumns++;
	}
	rh->next = eh->rows;		/* complete: now it may be found */
	eh->rows = rh;
	return rh;
}

static void
encode_record(ElementHasher *eh, Datum value, StringInfo buf)
{
	HeapTupleHeader td = DatumGetHeapTupleHeader(value);
	RowHasher  *rh = row_hasher(eh, HeapTupleHeaderGetTypeId(td),
								HeapTupleHeaderGetTypMod(td));
	HeapTupleData tuple;
	Datum	   *values;
	bool	   *nulls;
	int			i;

	tuple.t_len = HeapTupleHeaderGetDatumLength(td);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = td;
	/* (per value: a row type can hold a value of its own type) */
	values = palloc(Max(rh->tupdesc->natts, 1) * sizeof(Datum));
	nulls = palloc(Max(rh->tupdesc->natts, 1) * sizeof(bool));
	heap_deform_tuple(&tuple, rh->tupdesc, values, nulls);
	put_u32(buf, (uint32) rh->ncolumns);
	for (i = 0; i < rh->tupdesc->natts; i++)
		if (!TupleDescAttr(rh->tupdesc, i)->attisdropped)
			encode_part(&rh->columns[i], values[i], nulls[i], buf);
	pfree(values);
	pfree(nulls);
}

/* A range (of a multirange too): flags, then each finite bound */
static void
encode_range_bounds(ElementHasher *eh, RangeBound *lower, RangeBound *upper,
					bool empty, StringInfo buf)
{
	char		flags = 0;

	if (empty)
		flags = CANON_RANGE_EMPTY;
	else
	{
		if (lower->inclusive)
			flags |= CANON_RANGE_LB_INC;
		if (upper->inclusive)
			flags |= CANON_RANGE_UB_INC;
		if (lower->infinite)
			flags |= CANON_RANGE_LB_INF;
		if (upper->infinite)
			flags |= CANON_RANGE_UB_INF;
	}
	appendStringInfoChar(buf, flags);
	if (empty)
		return;
	if (!lower->infinite)
		encode_part(eh->sub, lower->val, false, buf);
	if (!upper->infinite)
		encode_part(eh->sub, upper->val, false, buf);
}

static void
encode_multirange(ElementHasher *eh, Datum value, StringInfo buf)
{
	MultirangeType *mr = DatumGetMultirangeTypeP(value);
	uint32		i;

	put_u32(buf, mr->rangeCount);
	for (i = 0; i < mr->rangeCount; i++)
	{
		RangeBound	lower,
					upper;
		int			at = buf->len;

		multirange_get_bounds(eh->range, mr, i, &lower, &upper);
		put_u32(buf, 0);
		encode_range_bounds(eh, &lower, &upper, false, buf);
		end_part(buf, at);
	}
}

/* ---- scheme 2: canonical bytes by the type's equality ---- */

static inline void
put_u64(StringInfo buf, uint64 v)
{
	char		b[8];
	int			i;

	for (i = 0; i < 8; i++)
		b[i] = (char) (v >> (8 * i));
	appendBinaryStringInfo(buf, b, 8);
}

/* The value of a decimal integer "-?[0-9]+" that int64 holds */
static bool
decimal_int64(const char *s, int64 *value)
{
	bool		negative = *s == '-';
	int64		v = 0;

	if (negative)
		s++;
	if (*s == '\0')
		return false;
	/* accumulated negative: -INT64_MIN does not fit */
	for (; *s; s++)
	{
		if (*s < '0' || *s > '9' ||
			pg_mul_s64_overflow(v, 10, &v) ||
			pg_sub_s64_overflow(v, *s - '0', &v))
			return false;
	}
	if (!negative)
	{
		if (v == PG_INT64_MIN)
			return false;
		v = -v;
	}
	*value = v;
	return true;
}

/*
 * A numeric's canonical form: an integer int64 holds as the integers hash
 * (so 1::numeric and 1::int agree; sets *integer), else (a fraction, a
 * larger integer, NaN, ±Infinity) its decimal text without trailing zeros
 * after the point, in *text (palloc'd)
 */
static bool
numeric_canonical(Numeric num, int64 *integer, char **text)
{
	char	   *s = numeric_normalize(num);

	if (decimal_int64(s, integer))
	{
		pfree(s);
		return true;
	}
	*text = s;
	return false;
}

static void
encode_numeric(Numeric num, StringInfo buf)
{
	int64		integer;
	char	   *text;

	if (numeric_canonical(num, &integer, &text))
		put_u64(buf, (uint64) integer);
	else
	{
		appendBinaryStringInfo(buf, text, strlen(text));
		pfree(text);
	}
}

/* A double's bits, with -0 as 0 and every NaN as one */
static inline uint64
float_canonical(double d)
{
	uint64		bits;

	if (isnan(d))
		return UINT64CONST(0x7FF8000000000000);
	if (d == 0.0)
		return 0;
	memcpy(&bits, &d, sizeof(bits));
	return bits;
}

/*
 * An interval's span, as interval = compares: microseconds, with a month
 * of 30 days and a day of 24 hours; 16 bytes, two's complement, little-endian
 */
static void
encode_interval(const Interval *iv, StringInfo buf)
{
	INT128		span = int64_to_int128(iv->time);

	int128_add_int64_mul_int64(&span, iv->month * INT64CONST(30) + iv->day,
							   USECS_PER_DAY);
#ifdef USE_NATIVE_INT128
	put_u64(buf, (uint64) span);
	put_u64(buf, (uint64) (span >> 64));
#else
	put_u64(buf, span.lo);
	put_u64(buf, (uint64) span.hi);
#endif
}

/* inet and cidr as inet = compares: family, prefix bits, the address */
static void
encode_inet(Datum value, StringInfo buf)
{
	inet	   *ip = DatumGetInetPP(value);

	appendStringInfoChar(buf, (char) ip_family(ip));
	appendStringInfoChar(buf, (char) ip_bits(ip));
	appendBinaryStringInfo(buf, (char *) ip_addr(ip), ip_addrsize(ip));
	if ((Pointer) ip != DatumGetPointer(value))
		pfree(ip);
}

/* A jsonb string or key: its length and bytes */
static void
encode_jsonb_string(char tag, const JsonbValue *v, StringInfo buf)
{
	appendStringInfoChar(buf, tag);
	put_u32(buf, (uint32) v->val.string.len);
	appendBinaryStringInfo(buf, v->val.string.val, v->val.string.len);
}

/*
 * jsonb as jsonb = compares: its tokens in storage order (object keys are
 * stored sorted and unique), strings by their bytes, numbers as numeric
 */
static void
encode_jsonb(Datum value, StringInfo buf)
{
	Jsonb	   *jb = DatumGetJsonbP(value);
	JsonbIterator *it = JsonbIteratorInit(&jb->root);
	JsonbIteratorToken token;
	JsonbValue	v;

	while ((token = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		switch (token)
		{
			case WJB_BEGIN_ARRAY:
				appendStringInfoChar(buf, v.val.array.rawScalar ? 's' : '[');
				put_u32(buf, (uint32) v.val.array.nElems);
				break;
			case WJB_END_ARRAY:
				appendStringInfoChar(buf, ']');
				break;
			case WJB_BEGIN_OBJECT:
				appendStringInfoChar(buf, '{');
				put_u32(buf, (uint32) v.val.object.nPairs);
				break;
			case WJB_END_OBJECT:
				appendStringInfoChar(buf, '}');
				break;
			case WJB_KEY:
				encode_jsonb_string('k', &v, buf);
				break;
			case WJB_VALUE:
			case WJB_ELEM:
				switch (v.type)
				{
					case jbvNull:
						appendStringInfoChar(buf, 'z');
						break;
					case jbvBool:
						appendStringInfoChar(buf, v.val.boolean ? 't' : 'f');
						break;
					case jbvString:
						encode_jsonb_string('"', &v, buf);
						break;
					case jbvNumeric:
						{
							int			at;

							appendStringInfoChar(buf, '#');
							at = buf->len;
							put_u32(buf, 0);
							encode_numeric(v.val.numeric, buf);
							end_part(buf, at);
							break;
						}
					default:
						elog(ERROR, "unexpected jsonb value type %d",
							 (int) v.type);
				}
				break;
			case WJB_DONE:
				break;
		}
	}
}

/* A value of a user-defined type by its own hash function, seed 0 */
static inline uint64
type_hash(ElementHasher *eh, Datum value)
{
	if (eh->kind == ELEM_TYPE_HASH)
		return DatumGetUInt64(FunctionCall2Coll(&eh->io, eh->collation, value,
												UInt64GetDatum(0)));
	return DatumGetUInt32(FunctionCall1Coll(&eh->io, eh->collation, value));
}

/*
 * Appends the canonical bytes of 'value' to buf, allocating in the current
 * memory context (a container's scratch context, reset after each value).
 */
static void
encode(ElementHasher *eh, Datum value, StringInfo buf)
{
	check_stack_depth();
	switch (eh->kind)
	{
		case ELEM_INTEGER:
			{
				int64		v = eh->typlen == 2 ? DatumGetInt16(value) :
				eh->typlen == 4 ? DatumGetInt32(value) : DatumGetInt64(value);
				uint64		u = (uint64) v;
				char		b[8];
				int			i;

				for (i = 0; i < 8; i++)
					b[i] = (char) (u >> (8 * i));
				appendBinaryStringInfo(buf, b, 8);
				return;
			}
		case ELEM_BYTES:
		case ELEM_BPCHAR:
			{
				struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
				const char *s = VARDATA_ANY(v);
				int			len = VARSIZE_ANY_EXHDR(v);

				if (eh->kind == ELEM_BPCHAR)
					while (len > 0 && s[len - 1] == ' ')
						len--;
				appendBinaryStringInfo(buf, s, len);
				return;
			}
		case ELEM_UUID:
			appendBinaryStringInfo(buf, (char *) DatumGetUUIDP(value)->data,
								   UUID_LEN);
			return;
		case ELEM_FIXED_BE:
			{
				char		bytes[8];

				appendBinaryStringInfo(buf, bytes,
									   fixed_be_bytes(eh, value, bytes));
				return;
			}
		case ELEM_TEXT_OUT:
			{
				char	   *s = OutputFunctionCall(&eh->io, value);

				appendBinaryStringInfo(buf, s, strlen(s));
				pfree(s);
				return;
			}
		case ELEM_SEND:
			{
				bytea	   *b = SendFunctionCall(&eh->io, value);

				appendBinaryStringInfo(buf, VARDATA(b), VARSIZE(b) - VARHDRSZ);
				pfree(b);
				return;
			}
		case ELEM_NUMERIC:
			{
				Numeric		num = DatumGetNumeric(value);

				encode_numeric(num, buf);
				if ((Pointer) num != DatumGetPointer(value))
					pfree(num);
				return;
			}
		case ELEM_FLOAT4:
			put_u64(buf, float_canonical(DatumGetFloat4(value)));
			return;
		case ELEM_FLOAT8:
			put_u64(buf, float_canonical(DatumGetFloat8(value)));
			return;
		case ELEM_INTERVAL:
			encode_interval(DatumGetIntervalP(value), buf);
			return;
		case ELEM_INET:
			encode_inet(value, buf);
			return;
		case ELEM_TYPE_HASH:
			put_u64(buf, type_hash(eh, value));
			return;
		case ELEM_TYPE_HASH32:
			put_u32(buf, (uint32) type_hash(eh, value));
			return;
		case ELEM_JSONB:
			encode_jsonb(value, buf);
			return;
		case ELEM_ARRAY:
			encode_array(eh, value, buf);
			return;
		case ELEM_RECORD:
			encode_record(eh, value, buf);
			return;
		case ELEM_RANGE:
			{
				RangeType  *r = DatumGetRangeTypeP(value);
				RangeBound	lower,
							upper;
				bool		empty;

				range_deserialize(eh->range, r, &lower, &upper, &empty);
				encode_range_bounds(eh, &lower, &upper, empty, buf);
				return;
			}
		case ELEM_MULTIRANGE:
			encode_multirange(eh, value, buf);
			return;
	}
	elog(ERROR, "unrecognized element kind %d", (int) eh->kind);
}

bf_hash
element_hash_any(ElementHasher *eh, Datum value, uint64 seed)
{
	bf_hash		h;

	switch (eh->kind)
	{
		case ELEM_INTEGER:
			{
				int64		v = eh->typlen == 2 ? DatumGetInt16(value) :
				eh->typlen == 4 ? DatumGetInt32(value) : DatumGetInt64(value);

				if (eh->scheme == BF_HASH_XXH3_128)
					return bf_hash_int64(v, seed);
				return bf_hash_integer(v, seed);
			}
		case ELEM_FIXED_BE:
			{
				char		bytes[8];

				return bf_hash_bytes(bytes, fixed_be_bytes(eh, value, bytes),
									 seed);
			}
		case ELEM_BYTES:
			{
				struct varlena *raw = (struct varlena *) DatumGetPointer(value);
				struct varlena *v = pg_detoast_datum_packed(raw);

				h = bf_hash_bytes(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), seed);
				if (v != raw)
					pfree(v);
				return h;
			}
		case ELEM_BPCHAR:
			{
				/* as char(n) = text compares: trailing spaces do not count */
				struct varlena *raw = (struct varlena *) DatumGetPointer(value);
				struct varlena *v = pg_detoast_datum_packed(raw);
				const char *s = VARDATA_ANY(v);
				int			len = VARSIZE_ANY_EXHDR(v);

				while (len > 0 && s[len - 1] == ' ')
					len--;
				h = bf_hash_bytes(s, len, seed);
				if (v != raw)
					pfree(v);
				return h;
			}
		case ELEM_UUID:
			return bf_hash_bytes(DatumGetUUIDP(value)->data, UUID_LEN, seed);
		case ELEM_TEXT_OUT:
			{
				char	   *s = OutputFunctionCall(&eh->io, value);

				h = bf_hash_bytes(s, strlen(s), seed);
				pfree(s);
				return h;
			}
		case ELEM_SEND:
			{
				bytea	   *b = SendFunctionCall(&eh->io, value);

				h = bf_hash_bytes(VARDATA(b), VARSIZE(b) - VARHDRSZ, seed);
				pfree(b);
				return h;
			}
		case ELEM_NUMERIC:
			{
				Numeric		num = DatumGetNumeric(value);
				int64		integer;
				char	   *text;

				if (numeric_canonical(num, &integer, &text))
					h = bf_hash_integer(integer, seed);
				else
				{
					h = bf_hash_bytes(text, strlen(text), seed);
					pfree(text);
				}
				if ((Pointer) num != DatumGetPointer(value))
					pfree(num);
				return h;
			}
		case ELEM_FLOAT4:
			return bf_hash_int64((int64) float_canonical(DatumGetFloat4(value)),
								 seed);
		case ELEM_FLOAT8:
			return bf_hash_int64((int64) float_canonical(DatumGetFloat8(value)),
								 seed);
		case ELEM_TYPE_HASH:
			return bf_hash_int64((int64) type_hash(eh, value), seed);
		case ELEM_INTERVAL:
		case ELEM_INET:
		case ELEM_TYPE_HASH32:
			{
				char		bytes[32];
				StringInfoData buf;

				/* a few bytes, on the stack */
				buf.data = bytes;
				buf.len = 0;
				buf.maxlen = sizeof(bytes);
				buf.cursor = 0;
				encode(eh, value, &buf);
				Assert(buf.data == bytes);
				return bf_hash_bytes(buf.data, buf.len, seed);
			}
		case ELEM_ARRAY:
		case ELEM_RECORD:
		case ELEM_RANGE:
		case ELEM_MULTIRANGE:
		case ELEM_JSONB:
			{
				/* everything the parts allocate goes with the scratch */
				MemoryContext old = MemoryContextSwitchTo(eh->scratch);
				StringInfoData buf;

				initStringInfo(&buf);
				encode(eh, value, &buf);
				h = bf_hash_bytes(buf.data, buf.len, seed);
				MemoryContextSwitchTo(old);
				MemoryContextReset(eh->scratch);
				return h;
			}
	}
	elog(ERROR, "unrecognized element kind %d", (int) eh->kind);
	pg_unreachable();
}

/* A binary-coercible cast PostgreSQL added, not one the query wrote */
bool
is_implicit_relabel(const struct Node *node)
{
	return node != NULL && IsA(node, RelabelType) &&
		((const RelabelType *) node)->relabelformat == COERCE_IMPLICIT_CAST;
}

/*
 * The type argument 'argno' had before an implicit binary-coercible cast
 * made it the function's, or InvalidOid: citext goes to the text
 * overloads, which PostgreSQL prefers, as a RelabelType, and its values
 * compare by citext's = (case-insensitively), not text's.  A cast the query
 * wrote (c::oid::int) says how the value is meant, and stays.  For an aggregate's transition
 * function (argument 0 the state) the Aggref's argument tells.
 */
static Oid
type_before_relabel(FunctionCallInfo fcinfo, int argno)
{
	Node	   *expr = fcinfo->flinfo->fn_expr;
	Aggref	   *aggref = AggGetAggref(fcinfo);
	List	   *args;
	Node	   *arg;

	if (aggref != NULL)
	{
		args = aggref->args;
		argno--;
	}
	else if (expr != NULL && IsA(expr, FuncExpr))
		args = ((FuncExpr *) expr)->args;
	else if (expr != NULL && IsA(expr, OpExpr))
		args = ((OpExpr *) expr)->args;
	else
		return InvalidOid;
	if (argno < 0 || argno >= list_length(args))
		return InvalidOid;
	arg = list_nth(args, argno);
	if (IsA(arg, TargetEntry))
		arg = (Node *) ((TargetEntry *) arg)->expr;
	if (!is_implicit_relabel(arg))
		return InvalidOid;
	while (is_implicit_relabel(arg))
		arg = (Node *) ((RelabelType *) arg)->arg;
	return exprType(arg);
}

/*
 * The type of argument 'argno': from the call expression, or, for a caller
 * that passes none (Citus's worker_partial_agg calls transition functions
 * through a bare FmgrInfo), the function's declared type when it is not
 * polymorphic.  InvalidOid when neither tells.  Called once per call site.
 */
static Oid
call_arg_type(FunctionCallInfo fcinfo, int argno)
{
	Oid			type = type_before_relabel(fcinfo, argno);
	HeapTuple	tuple;

	if (!OidIsValid(type))
		type = get_fn_expr_argtype(fcinfo->flinfo, argno);
	if (OidIsValid(type) || !OidIsValid(fcinfo->flinfo->fn_oid))
		return type;
	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
	if (HeapTupleIsValid(tuple))
	{
		Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(tuple);

		if (argno < proc->pronargs &&
			!IsPolymorphicType(proc->proargtypes.values[argno]))
			type = proc->proargtypes.values[argno];
		ReleaseSysCache(tuple);
	}
	return type;
}

/*
 * element_hasher_init for a call whose argument 'filter_argno' is the filter
 * (the state, for aggregates): a filter is refused as an element, which
 * would only hash its bytes and is always a mistake for | or =.
 */
void
element_hasher_init_checked(FunctionCallInfo fcinfo, ElementHasher *eh,
							Oid type, int filter_argno)
{
	if (type == call_arg_type(fcinfo, filter_argno))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("a bloomfilter cannot be an element of a bloomfilter"),
				 errhint("Use | or bloomfilter_union to combine two filters, and = to compare them.")));

	/*
	 * An anyarray argument can change its element type from row to row
	 * (pg_statistic's stavalues): the hasher of the last type goes
	 */
	if (eh->site == NULL)
		eh->site = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt,
										 "bloomfilter call site element",
										 ALLOCSET_SMALL_SIZES);
	else
		MemoryContextReset(eh->site);
	element_hasher_init(eh, type, PG_GET_COLLATION(), eh->site);
}

/* The hasher for argument 'argno', resolved once per call site */
ElementHasher *
element_hasher_for_arg(FunctionCallInfo fcinfo, CallCache *cc, int argno)
{
	if (!OidIsValid(cc->elem.type))
	{
		Oid			type = call_arg_type(fcinfo, argno);

		if (!OidIsValid(type))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("could not determine the element type"),
					 errdetail("The polymorphic overload was called without its call expression."),
					 errhint("Cast the element to one of the concrete element types: text, bytea, smallint, integer, bigint or uuid.")));
		element_hasher_init_checked(fcinfo, &cc->elem, type,
									argno == 0 ? 1 : 0);
	}
	return &cc->elem;
}
