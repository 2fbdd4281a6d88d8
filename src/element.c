/*
 * element.c
 *		Canonical bytes of SQL elements, and their hashes.
 *
 * STORAGE.md documents the encoding: integers of every width as the same
 * 8-byte little-endian value (so 42::int4 and 42::int8 match), text,
 * varchar and bytea as their bytes, char(n) as its bytes without trailing
 * spaces (as it converts to text), uuid as its 16 bytes, and any other type
 * as its binary send form.  Types whose send form passes through
 * client_encoding (other string types, enums, json, jsonb, xml) hash their
 * output text instead, so that a filter answers the same in every session.
 */
#include "bloomfilter.h"

#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/uuid.h"

void
element_hasher_init(ElementHasher *eh, Oid type, MemoryContext mcxt)
{
	Oid			base = getBaseType(type);
	Oid			send;
	Oid			func;
	char		category,
				delim;
	bool		preferred,
				isvarlena;

	eh->type = type;
	get_typlenbyvalalign(base, &eh->typlen, &eh->typbyval, &eh->typalign);
	switch (base)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			eh->kind = ELEM_INTEGER;
			return;
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
			eh->kind = ELEM_BYTES;
			return;
		case BPCHAROID:
			eh->kind = ELEM_BPCHAR;
			return;
		case UUIDOID:
			eh->kind = ELEM_UUID;
			return;
		case JSONOID:
		case JSONBOID:
		case XMLOID:
			eh->kind = ELEM_TEXT_OUT;
			break;
		default:
			get_type_category_preferred(base, &category, &preferred);
			eh->kind = category == TYPCATEGORY_STRING ||
				category == TYPCATEGORY_ENUM ? ELEM_TEXT_OUT : ELEM_SEND;
			break;
	}
	if (eh->kind == ELEM_SEND)
	{
		Oid			ioparam;

		get_type_io_data(base, IOFunc_send, &eh->typlen, &eh->typbyval,
						 &eh->typalign, &delim, &ioparam, &send);
		if (OidIsValid(send))
		{
			fmgr_info_cxt(send, &eh->io, mcxt);
			return;
		}
		eh->kind = ELEM_TEXT_OUT;	/* no send function: the text form */
	}
	getTypeOutputInfo(base, &func, &isvarlena);
	fmgr_info_cxt(func, &eh->io, mcxt);
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
	element_hasher_init(eh, type, fcinfo->flinfo->fn_mcxt);
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
