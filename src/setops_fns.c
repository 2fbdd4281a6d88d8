/*
 * setops_fns.c
 *		Union, intersection, equality and compatibility of two filters.
 */
#include "bloomfilter.h"

#include "common/hashfn.h"

PG_FUNCTION_INFO_V1(bloomfilter_union);
PG_FUNCTION_INFO_V1(bloomfilter_intersect);
PG_FUNCTION_INFO_V1(bloomfilter_eq);
PG_FUNCTION_INFO_V1(bloomfilter_ne);
PG_FUNCTION_INFO_V1(bloomfilter_is_compatible);
PG_FUNCTION_INFO_V1(bloomfilter_hash);

/* Argument 0 merged with argument 1, in new bytes; neither input changes */
static struct varlena *
merge(FunctionCallInfo fcinfo, bool intersect)
{
	bf_filter	va,
				vb;

	filter_getarg(fcinfo, 0, &va);
	filter_getarg(fcinfo, 1, &vb);
	return filter_merge_new(&va, &vb, intersect);
}

/* bloomfilter_union(a, b), a | b */
Datum
bloomfilter_union(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(merge(fcinfo, false));
}

/* bloomfilter_intersect(a, b), a & b */
Datum
bloomfilter_intersect(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(merge(fcinfo, true));
}

/*
 * Equal filters answer every membership question alike: same variant,
 * size, hashes and seed, and the same bits.  The bookkeeping fields (items
 * added, the size it was planned for) do not take part.
 */
static bool
equal(FunctionCallInfo fcinfo)
{
	bf_filter	va,
				vb;

	filter_getarg(fcinfo, 0, &va);
	filter_getarg(fcinfo, 1, &vb);
	return bf_equal(&va, &vb);
}

Datum
bloomfilter_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(equal(fcinfo));
}

Datum
bloomfilter_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!equal(fcinfo));
}

/* bloomfilter_is_compatible(a, b): can they be combined? */
Datum
bloomfilter_is_compatible(PG_FUNCTION_ARGS)
{
	bf_filter	va,
				vb;

	filter_getarg(fcinfo, 0, &va);
	filter_getarg(fcinfo, 1, &vb);
	PG_RETURN_BOOL(bf_compatible(&va, &vb));
}

/*
 * Hash support for =, so that GROUP BY, DISTINCT and UNION work on filter
 * columns: it covers exactly what = compares (shape and bits), not the
 * bookkeeping fields.
 */
Datum
bloomfilter_hash(PG_FUNCTION_ARGS)
{
	bf_filter	f;
	uint32		h;

	filter_getarg(fcinfo, 0, &f);
	h = hash_bytes(f.payload, (int) f.payload_bytes);
	h = hash_combine(h, hash_bytes_uint32((uint32) f.variant));
	h = hash_combine(h, hash_bytes_uint32(f.hashes));
	h = hash_combine(h, hash_bytes_uint32((uint32) (f.seed ^ (f.seed >> 32))));
	h = hash_combine(h, hash_bytes_uint32((uint32) (f.bits ^ (f.bits >> 32))));
	PG_RETURN_INT32((int32) h);
}
