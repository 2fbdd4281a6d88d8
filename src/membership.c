/*
 * membership.c
 *		Adding elements to a filter and testing them.
 *
 * One C function serves every element-type overload of an SQL function:
 * the element's type is resolved once per call site (element.c), and the
 * filter argument of a probe is cached per call site (filter_cache.c).
 * Adding returns a new filter; the input datum is never modified, except
 * where PostgreSQL 18's PL/pgSQL hands over its variable to be changed in
 * place (inplace.c).
 */
#include "bloomfilter.h"

#include "access/detoast.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(bloomfilter_add);
PG_FUNCTION_INFO_V1(bloomfilter_add_all);
PG_FUNCTION_INFO_V1(bloomfilter_contains);
PG_FUNCTION_INFO_V1(bloomfilter_contained);
PG_FUNCTION_INFO_V1(bloomfilter_contains_all);
PG_FUNCTION_INFO_V1(bloomfilter_contains_any);
PG_FUNCTION_INFO_V1(bloomfilter_remove);
PG_FUNCTION_INFO_V1(bloomfilter_count);

/* Elements between checks for query cancel in array loops */
#define CANCEL_INTERVAL 65536

/*
 * Argument 0 as a writable filter that becomes the result.  A value that
 * had to be detoasted (stored, compressed, short or expanded) already is a
 * copy of our own, and is used as it is: a stored filter is copied once.
 */
static void
copy_filter(FunctionCallInfo fcinfo, FilterBuf *fb)
{
	struct varlena *raw = (struct varlena *) PG_GETARG_POINTER(0);

	if (VARATT_IS_EXTENDED(raw))
		filterbuf_adopt(fb, CurrentMemoryContext, detoast_attr(raw));
	else
		filterbuf_copy(fb, CurrentMemoryContext, raw, false);
}

/*
 * The adding functions are not strict: a NULL filter gives NULL, a NULL
 * element (or array) the filter as it was
 */
static Datum
add_null(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/*
 * bloomfilter_add(f, elem), f || elem.  Not strict: adding NULL leaves the
 * filter as it was, so UPDATE t SET f = f || x never loses a filter.  An
 * add that needs a stage the filter cannot take is refused before the
 * filter is copied.
 */
Datum
bloomfilter_add(PG_FUNCTION_ARGS)
{
	CallCache  *cc;
	ElementHasher *eh;
	FilterBuf	fb;
	BloomState *state;
	struct varlena *raw;
	bf_filter	view;
	bf_hash		h;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return add_null(fcinfo);
	cc = call_cache_of(fcinfo);
	eh = element_hasher_for_arg(fcinfo, cc, 1);
	state = inplace_target(fcinfo, cc);
	if (state)
	{
		/* PL/pgSQL's variable, ours to change (inplace.c) */
		h = element_hash(eh, PG_GETARG_DATUM(1), &state->fb.b.view);
		filter_check_add(&state->fb.b.view, h);
		filterbuf_add(&state->fb, h);
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	raw = (struct varlena *) PG_GETARG_POINTER(0);
	if (VARATT_IS_EXTENDED(raw))
		raw = detoast_attr(raw);	/* a copy of our own */
	filter_open(raw, &view);
	h = element_hash(eh, PG_GETARG_DATUM(1), &view);
	filter_check_add(&view, h);
	inplace_count_copy();
	if (inplace_wanted(fcinfo, cc))
	{
		/* the first add of a PL/pgSQL loop: later ones go in place */
		state = bloom_state_copy(CurrentMemoryContext, (BloomFilter *) raw);
		if (raw != (struct varlena *) PG_GETARG_POINTER(0))
			pfree(raw);
		filterbuf_add(&state->fb, h);
		PG_RETURN_DATUM(bloom_state_datum(state));
	}
	if (raw != (struct varlena *) PG_GETARG_POINTER(0))
		filterbuf_adopt(&fb, CurrentMemoryContext, raw);
	else
		filterbuf_copy(&fb, CurrentMemoryContext, raw, false);
	filterbuf_add(&fb, h);
	PG_RETURN_POINTER(filterbuf_flat(&fb));
}

/*
 * Where an array's elements are hashed into filter f: a context reset
 * after each element for the kinds that leave memory behind (its caller
 * deletes it), else the current one
 */
static MemoryContext
element_memory(ElementHasher *eh, const bf_filter *f)
{
	if (!element_allocates(element_hasher_of_scheme(eh, f->scheme)))
		return CurrentMemoryContext;
	return AllocSetContextCreate(CurrentMemoryContext, "bloomfilter array element",
								 ALLOCSET_SMALL_SIZES);
}

/* bloomfilter_add_all(f, anyarray): every non-NULL element, in one copy */
Datum
bloomfilter_add_all(PG_FUNCTION_ARGS)
{
	CallCache  *cc;
	ArrayType  *arr;
	ArrayIterator it;
	FilterBuf	fb;
	Datum		value;
	bool		isnull;
	uint32		n = 0;
	MemoryContext elemcxt;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return add_null(fcinfo);
	cc = call_cache_of(fcinfo);
	arr = PG_GETARG_ARRAYTYPE_P(1);
	if (cc->elem.type != ARR_ELEMTYPE(arr))
		element_hasher_init_checked(fcinfo, &cc->elem, ARR_ELEMTYPE(arr), 0);
	copy_filter(fcinfo, &fb);
	elemcxt = element_memory(&cc->elem, &fb.b.view);
	it = array_create_iterator(arr, 0, NULL);
	while (array_iterate(it, &value, &isnull))
	{
		if (!isnull)
		{
			MemoryContext old = MemoryContextSwitchTo(elemcxt);

			filterbuf_add_deferred(&fb, element_hash(&cc->elem, value,
													 &fb.b.view));
			MemoryContextSwitchTo(old);
			if (elemcxt != CurrentMemoryContext)
				MemoryContextReset(elemcxt);
		}
		if (++n % CANCEL_INTERVAL == 0)
			CHECK_FOR_INTERRUPTS();
	}
	array_free_iterator(it);
	if (elemcxt != CurrentMemoryContext)
		MemoryContextDelete(elemcxt);
	filterbuf_flush(&fb);
	PG_RETURN_POINTER(filterbuf_flat(&fb));
}

/*
 * bloomfilter_remove(f, elem): a copy without one occurrence of elem, for
 * the variants that can remove.  An element that is certainly absent
 * leaves the filter as it was.  Not strict, like bloomfilter_add.
 */
Datum
bloomfilter_remove(PG_FUNCTION_ARGS)
{
	CallCache  *cc;
	ElementHasher *eh;
	FilterBuf	fb;
	BloomState *state;
	bf_filter  *view;
	bf_status	st;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	cc = call_cache_of(fcinfo);
	state = inplace_target(fcinfo, cc);
	if (state)
		view = &state->fb.b.view; /* PL/pgSQL's variable (inplace.c) */
	else
	{
		inplace_count_copy();
		if (inplace_wanted(fcinfo, cc))
		{
			/* the first remove of a PL/pgSQL loop: later ones go in place */
			state = bloom_state_copy(CurrentMemoryContext,
									 PG_GETARG_BLOOMFILTER_P(0));
			view = &state->fb.b.view;
		}
		else
		{
			copy_filter(fcinfo, &fb);
			view = &fb.b.view;
		}
	}
	if (!bf_can_remove(view->variant))
		report_unsupported(view, FILTER_REMOVE);
	if (!PG_ARGISNULL(1))
	{
		eh = element_hasher_for_arg(fcinfo, cc, 1);
		st = bf_remove(view, element_hash(eh, PG_GETARG_DATUM(1), view));
		if (st != BF_OK && st != BF_E_NOT_FOUND)
			elog(ERROR, "could not remove from bloomfilter: %s",
				 bf_status_message(st));
	}
	if (state == NULL)
		PG_RETURN_POINTER(filterbuf_flat(&fb));
	if (state == bloom_state_rw(PG_GETARG_DATUM(0)))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	PG_RETURN_DATUM(bloom_state_datum(state));
}

static inline bool
contains(FunctionCallInfo fcinfo, int filter_arg, int elem_arg)
{
	CallCache  *cc = call_cache_of(fcinfo);
	ElementHasher *eh = element_hasher_for_arg(fcinfo, cc, elem_arg);
	bf_filter  *f = filter_cache_fetch(fcinfo, &cc->filter, filter_arg);

	return bf_contains(f, element_hash(eh, PG_GETARG_DATUM(elem_arg), f));
}

/* bloomfilter_contains(f, elem), f @> elem */
Datum
bloomfilter_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains(fcinfo, 0, 1));
}

/* elem <@ f */
Datum
bloomfilter_contained(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains(fcinfo, 1, 0));
}

/*
 * bloomfilter_count(f, elem): the copies of elem a counting or cuckoo
 * filter may hold (bf_count)
 */
Datum
bloomfilter_count(PG_FUNCTION_ARGS)
{
	CallCache  *cc = call_cache_of(fcinfo);
	ElementHasher *eh = element_hasher_for_arg(fcinfo, cc, 1);
	bf_filter  *f = filter_cache_fetch(fcinfo, &cc->filter, 0);
	uint32		copies;

	if (bf_count(f, element_hash(eh, PG_GETARG_DATUM(1), f), &copies) != BF_OK)
		report_unsupported(f, FILTER_COUNT);
	PG_RETURN_INT32((int32) copies);
}

/*
 * contains_all and contains_any follow the SQL rules of = ALL and = ANY:
 * a NULL element makes the answer NULL unless another element decides it.
 */
static Datum
contains_array(FunctionCallInfo fcinfo, bool all)
{
	CallCache  *cc = call_cache_of(fcinfo);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	bf_filter  *f = filter_cache_fetch(fcinfo, &cc->filter, 0);
	ArrayIterator it;
	Datum		value;
	bool		isnull,
				more = true,
				saw_null = false,
				decided = false;
	bf_hash		batch[BF_PENDING];
	int			nbatch,
				i;
	uint32		n = 0;
	MemoryContext elemcxt;

	if (cc->elem.type != ARR_ELEMTYPE(arr))
		element_hasher_init_checked(fcinfo, &cc->elem, ARR_ELEMTYPE(arr), 0);
	elemcxt = element_memory(&cc->elem, f);
	it = array_create_iterator(arr, 0, NULL);
	while (more && !decided)
	{
		/* hash a batch and prefetch its cache lines, then test them */
		for (nbatch = 0; nbatch < BF_PENDING;)
		{
			if (!(more = array_iterate(it, &value, &isnull)))
				break;
			if (isnull)
				saw_null = true;
			else
			{
				MemoryContext old = MemoryContextSwitchTo(elemcxt);

				batch[nbatch] = element_hash(&cc->elem, value, f);
				MemoryContextSwitchTo(old);
				if (elemcxt != CurrentMemoryContext)
					MemoryContextReset(elemcxt);
				bf_prefetch(f, batch[nbatch++]);
			}
			if (++n % CANCEL_INTERVAL == 0)
				CHECK_FOR_INTERRUPTS();
		}
		for (i = 0; i < nbatch && !decided; i++)
			decided = bf_contains(f, batch[i]) != all;
	}
	array_free_iterator(it);
	if (elemcxt != CurrentMemoryContext)
		MemoryContextDelete(elemcxt);
	if (decided)
		PG_RETURN_BOOL(!all);
	if (saw_null)
		PG_RETURN_NULL();
	PG_RETURN_BOOL(all);
}

/* bloomfilter_contains_all(f, anyarray): every element probably present */
Datum
bloomfilter_contains_all(PG_FUNCTION_ARGS)
{
	return contains_array(fcinfo, true);
}

/* bloomfilter_contains_any(f, anyarray): some element probably present */
Datum
bloomfilter_contains_any(PG_FUNCTION_ARGS)
{
	return contains_array(fcinfo, false);
}
