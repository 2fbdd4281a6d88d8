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

/*
 * Argument 0 merged with argument 1, in new bytes; neither input changes.
 * A union that needs more room than argument 0 (growing variants) is
 * sized and checked against the 1 GB limit before anything is copied.
 */
static struct varlena *
merge(FunctionCallInfo fcinfo, bool intersect)
{
	FilterBuf	fb;
	bf_filter	va,
				vb;
	BloomFilter *a = bloomfilter_getarg(fcinfo, 0, &va);
	uint64		need;
	bf_status	st;

	bloomfilter_getarg(fcinfo, 1, &vb);
	bloomfilter_check_compatible(&va, &vb);
	need = intersect ? 0 :
		bf_union_bytes(&va, &vb, bloomfilter_yield, NULL);
	if (!intersect && need == 0)
		filterbuf_fail(&va, BF_E_TOO_LARGE, false);
	if (!intersect && need != BF_HEADER_SIZE + va.payload_bytes)
	{
		filterbuf_alloc(&fb, CurrentMemoryContext,
						bloomfilter_checked_size(&va, need), false);
		st = bf_union_into(&va, &vb, VARDATA(fb.flat), bloomfilter_yield, NULL);
		if (st != BF_OK)
			filterbuf_fail(&va, st, false);
		return fb.flat;
	}
	/* in place, in a copy (the union's size is known: not sized again) */
	filterbuf_copy(&fb, CurrentMemoryContext, (struct varlena *) a, false);
	st = intersect ? bf_intersect(&fb.view, &vb, bloomfilter_yield, NULL) :
		bf_union(&fb.view, &vb, bloomfilter_yield, NULL);
	if (st != BF_OK)
		filterbuf_fail(&fb.view, st, intersect);
	return fb.flat;
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

	bloomfilter_getarg(fcinfo, 0, &va);
	bloomfilter_getarg(fcinfo, 1, &vb);
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

	bloomfilter_getarg(fcinfo, 0, &va);
	bloomfilter_getarg(fcinfo, 1, &vb);
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

	bloomfilter_getarg(fcinfo, 0, &f);
	h = hash_bytes(f.payload, (int) f.payload_bytes);
	h = hash_combine(h, hash_bytes_uint32((uint32) f.variant));
	h = hash_combine(h, hash_bytes_uint32(f.hashes));
	h = hash_combine(h, hash_bytes_uint32((uint32) (f.seed ^ (f.seed >> 32))));
	h = hash_combine(h, hash_bytes_uint32((uint32) (f.bits ^ (f.bits >> 32))));
	PG_RETURN_INT32((int32) h);
}
