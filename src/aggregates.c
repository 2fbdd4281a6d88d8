/*
 * aggregates.c
 *		Transition and combine functions of the aggregates.
 *
 * The state is a bloomfilter itself, not 'internal': parallel query needs
 * only the combine function, and Citus distributes an aggregate whose state
 * is a real type with an exact text round trip.  The state is created on
 * the first non-NULL row in the per-row context (nodeAgg copies it once into
 * the aggregate context) and from then on modified in place: a transition
 * returns the pointer it was given, which nodeAgg keeps without copying.
 */
#include "bloomfilter.h"

PG_FUNCTION_INFO_V1(bloomfilter_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_union_trans);
PG_FUNCTION_INFO_V1(bloomfilter_intersect_trans);

static void
check_aggregate(FunctionCallInfo fcinfo, const char *name)
{
	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as an aggregate transition function",
						name),
				 errhint("Use the aggregate, or bloomfilter_add_all for an array.")));
}

/* An argument that sizes the filter: NULL has no meaning there */
static Datum
sizing_arg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s of bloomfilter_agg must not be null", name)));
	return PG_GETARG_DATUM(argno);
}

/* The empty state, sized from the aggregate's arguments on its first row */
static BloomFilter *
new_state(FunctionCallInfo fcinfo)
{
	int64		items = DatumGetInt64(sizing_arg(fcinfo, 2, "expected_items"));
	double		fpr = DatumGetFloat8(sizing_arg(fcinfo, 3, "false_positive_rate"));
	bf_variant	variant = BF_BLOCKED;

	if (PG_NARGS() > 4)
		variant = bloomfilter_parse_variant(
			DatumGetTextPP(sizing_arg(fcinfo, 4, "variant")));
	return bloomfilter_create_sized(variant, items, fpr, 0);
}

/*
 * bloomfilter_agg(elem, expected_items, false_positive_rate [, variant]):
 * (state, elem, n, p [, variant]) -> state.  NULL elements are skipped.
 */
Datum
bloomfilter_agg_trans(PG_FUNCTION_ARGS)
{
	CallCache  *cc;
	ElementHasher *eh;
	BloomFilter *state;
	bf_filter	view;

	check_aggregate(fcinfo, "bloomfilter_agg_trans");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	cc = bloomfilter_call_cache(fcinfo);
	eh = element_hasher_for_arg(fcinfo, cc, 1);
	state = PG_ARGISNULL(0) ? new_state(fcinfo) : PG_GETARG_BLOOMFILTER_P(0);
	bloomfilter_open((struct varlena *) state, &view);
	bf_add(&view, element_hash(eh, PG_GETARG_DATUM(1), view.seed));
	PG_RETURN_BLOOMFILTER_P(state);
}

/*
 * (state, f) -> state for union and intersection aggregates, and the
 * combine function of every aggregate.  The first non-NULL filter becomes
 * the state (nodeAgg copies it into the aggregate context); later ones are
 * merged into it in place.
 */
static Datum
merge_trans(FunctionCallInfo fcinfo, bool intersect)
{
	BloomFilter *state;
	BloomFilter *f;
	bf_filter	vs,
				vf;

	check_aggregate(fcinfo, intersect ? "bloomfilter_intersect_trans" :
					"bloomfilter_union_trans");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	f = PG_GETARG_BLOOMFILTER_P(1);
	bloomfilter_open((struct varlena *) f, &vf);
	if (PG_ARGISNULL(0))
		PG_RETURN_BLOOMFILTER_P(f);
	state = PG_GETARG_BLOOMFILTER_P(0);
	bloomfilter_open((struct varlena *) state, &vs);
	bloomfilter_check_compatible(&vs, &vf);
	if (intersect)
		bf_intersect(&vs, &vf, bloomfilter_yield, NULL);
	else
		bf_union(&vs, &vf, bloomfilter_yield, NULL);
	PG_RETURN_BLOOMFILTER_P(state);
}

Datum
bloomfilter_union_trans(PG_FUNCTION_ARGS)
{
	return merge_trans(fcinfo, false);
}

Datum
bloomfilter_intersect_trans(PG_FUNCTION_ARGS)
{
	return merge_trans(fcinfo, true);
}
