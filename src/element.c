/*
 * element.c
 *		Canonical bytes of SQL elements, and their hashes.
 *
 * An element's canonical bytes depend on its value only: never on OIDs
 * (which a dump and restore changes), client_encoding or other settings,
 * so that a filter answers for its members in every database and session.
 * STORAGE.md section 6 documents them:
 *
 *	- integers of every width as the same 8-byte little-endian value (so
 *	  42::int4 and 42::int8 match); text, varchar and bytea as their bytes;
 *	  char(n) without trailing spaces (as it converts to text); uuid as its
 *	  16 bytes;
 *	- built-in types whose binary send form holds the value alone (numeric,
 *	  float, timestamps, inet, ...) as that send form;
 *	- string types, enums (by label), json, jsonb, xml, tsvector, tsquery,
 *	  jsonpath and every user-defined base type as their output text, in the
 *	  database encoding: their send forms convert text to client_encoding;
 *	- arrays, composites and anonymous records, ranges and multiranges from
 *	  the canonical bytes of their parts, each length-prefixed, with the
 *	  dimensions, bounds and NULLs;
 *	- domains as their base type;
 *	- reg* types (OIDs of catalog objects) are refused.
 */
#include "bloomfilter.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/tupdesc.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/multirangetypes.h"
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

static void hasher_init(ElementHasher *eh, Oid type, MemoryContext mcxt);
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

/* The kind of a type that is none of the fixed ones and no container */
static ElementKind
scalar_kind(Oid base, MemoryContext mcxt, FmgrInfo *io)
{
	Oid			func;
	bool		isvarlena;
	char		category;
	bool		preferred;

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
 * Works out how to hash values of 'type' (parts of a container included),
 * allocating what it keeps in mcxt.  Refuses types without a value-only
 * encoding.
 */
static void
hasher_init(ElementHasher *eh, Oid type, MemoryContext mcxt)
{
	Oid			base = getBaseType(type);
	Oid			elem;
	char		typtype;

	eh->type = type;
	eh->sub = NULL;
	eh->range = NULL;
	eh->rows = NULL;
	eh->mcxt = mcxt;
	eh->scratch = NULL;
	get_typlenbyvalalign(base, &eh->typlen, &eh->typbyval, &eh->typalign);
	if (element_plain_kind(base, &eh->kind))
		return;
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
		hasher_init(eh->sub, tc->rngelemtype->type_id, mcxt);
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
		hasher_init(eh->sub, elem, mcxt);
		return;
	}
	/* enums and string types by their text; other types by their kind */
	eh->kind = scalar_kind(base, mcxt, &eh->io);
}

void
element_hasher_init(ElementHasher *eh, Oid type, MemoryContext mcxt)
{
	hasher_init(eh, type, mcxt);
	if (eh->kind >= ELEM_ARRAY)
		eh->scratch = AllocSetContextCreate(mcxt, "bloomfilter element",
											ALLOCSET_SMALL_SIZES);
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
		hasher_init(sub, AARR_ELEMTYPE(a), eh->mcxt);
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
		hasher_init(&rh->columns[i], att->atttypid, eh->mcxt);
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
			if (eh->typlen == 2)
				return bf_hash_int64(DatumGetInt16(value), seed);
			if (eh->typlen == 4)
				return bf_hash_int64(DatumGetInt32(value), seed);
			return bf_hash_int64(DatumGetInt64(value), seed);
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
		case ELEM_ARRAY:
		case ELEM_RECORD:
		case ELEM_RANGE:
		case ELEM_MULTIRANGE:
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

/*
 * The type of argument 'argno': from the call expression, or, for a caller
 * that passes none (Citus's worker_partial_agg calls transition functions
 * through a bare FmgrInfo), the function's declared type when it is not
 * polymorphic.  InvalidOid when neither tells.  Called once per call site.
 */
static Oid
call_arg_type(FunctionCallInfo fcinfo, int argno)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, argno);
	HeapTuple	tuple;

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
	element_hasher_init(eh, type, eh->site);
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
