/*
 * aggregates.c
 *		Transition and combine functions of the aggregates.
 *
 * The state type is bloomfilter itself, not 'internal': parallel query needs
 * only the combine function, and Citus distributes an aggregate whose state
 * is a real type with an exact text round trip.  In memory the state is an
 * expanded object (agg_state.c) that nodeAgg keeps without copying; each
 * transition modifies it in place and returns the same pointer.
 */
#include "bloomfilter.h"

PG_FUNCTION_INFO_V1(bloomfilter_agg_trans);
PG_FUNCTION_INFO_V1(bloomfilter_union_trans);
PG_FUNCTION_INFO_V1(bloomfilter_intersect_trans);

static MemoryContext
aggregate_context(FunctionCallInfo fcinfo, const char *name)
{
	MemoryContext aggctx;

	/*
	 * PostgreSQL's wording, but not its elog: a transition function is an
	 * SQL function anyone can call, and users get no internal errors
	 */
	if (!AggCheckCallContext(fcinfo, &aggctx))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", name),
				 errhint("Use the aggregate, or bloomfilter_add_all for an array.")));
	return aggctx;
}

/*
 * The state in argument 0 as our expanded object.  A flat state (possible
 * only if something handed nodeAgg a plain value) is copied into one; the
 * caller then returns a new pointer, which nodeAgg adopts.
 */
static BloomState *
current_state(FunctionCallInfo fcinfo, MemoryContext aggctx)
{
	BloomState *state = bloom_state_from_datum(PG_GETARG_DATUM(0), false);

	if (state && VARATT_IS_EXTERNAL_EXPANDED_RW(PG_GETARG_POINTER(0)))
		return state;
	return bloom_state_copy(aggctx, PG_GETARG_BLOOMFILTER_P(0));
}

/* A sizing argument of bloomfilter_agg: NULL has no meaning there */
static Datum
sizing_arg(const NullableDatum *arg, const char *name)
{
	if (arg->isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s of bloomfilter_agg must not be null", name)));
	return arg->value;
}

/*
 * The filter bloomfilter_agg builds, from its arguments after the element
 * (evaluated on the first row with an element): () and (p) a scalable
 * filter whose first stage holds SCALABLE_FIRST_STAGE items; (n, p
 * [, variant]) the filter planned for n items.  The aggregate scan
 * (agg_scan.c) plans its filters here too.
 */
#define SCALABLE_FIRST_STAGE	16384
#define DEFAULT_FPR				0.01

static void
sizing_of(const NullableDatum *sizing, int nsizing, AggSizing *out)
{
	out->known = true;
	out->variant_text = NULL;
	out->items = SCALABLE_FIRST_STAGE;
	out->fpr = DEFAULT_FPR;
	out->variant = BF_SCALABLE;
	if (nsizing == 1)
		out->fpr = DatumGetFloat8(sizing_arg(&sizing[0], "false_positive_rate"));
	else if (nsizing >= 2)
	{
		out->items = DatumGetInt64(sizing_arg(&sizing[0], "expected_items"));
		out->fpr = DatumGetFloat8(sizing_arg(&sizing[1], "false_positive_rate"));
		out->variant = nsizing > 2 ?
			variant_from_text(DatumGetTextPP(sizing_arg(&sizing[2],
														"variant"))) :
			BF_BLOCKED;
	}
}

void
agg_plan_params(const NullableDatum *sizing, int nsizing,
				bf_params *params)
{
	AggSizing	s;

	sizing_of(sizing, nsizing, &s);
	plan_sized(s.variant, s.items, s.fpr, 0, params);
}

static BloomState *
new_state(FunctionCallInfo fcinfo, MemoryContext aggctx)
{
	bf_params	params;
	AggSizing	sizing;
	BloomState *state;

	sizing_of(&fcinfo->args[2], PG_NARGS() - 2, &sizing);
	plan_sized(sizing.variant, sizing.items, sizing.fpr, 0, &params);
	state = bloom_state_create(aggctx, &params);
	state->sizing = sizing;
	if (PG_NARGS() > 4)
	{
		text	   *name = DatumGetTextPP(fcinfo->args[4].value);

		state->sizing.variant_text =
			MemoryContextAlloc(state->hdr.eoh_context, VARSIZE_ANY(name));
		memcpy(state->sizing.variant_text, name, VARSIZE_ANY(name));
	}
	return state;
}

/* Whether 'name' is the variant of 'was', comparing bytes before names */
static bool
same_variant(text *name, const AggSizing *was)
{
	if (was->variant_text != NULL &&
		VARSIZE_ANY_EXHDR(name) == VARSIZE_ANY_EXHDR(was->variant_text) &&
		memcmp(VARDATA_ANY(name), VARDATA_ANY(was->variant_text),
			   VARSIZE_ANY_EXHDR(name)) == 0)
		return true;
	return variant_from_text(name) == was->variant;
}

/*
 * Every row of a group must give the sizing arguments its filter was
 * planned from: a parallel plan plans one filter per process, from that
 * process's first row, and combining filters of other shapes fails, so a
 * change that a serial plan ignored would make the outcome depend on the
 * plan.  The variant's name is parsed only when its text differs.
 */
static void
check_sizing(FunctionCallInfo fcinfo, const BloomState *state)
{
	const AggSizing *was = &state->sizing;
	const NullableDatum *args = &fcinfo->args[2];
	int			nsizing = PG_NARGS() - 2;
	AggSizing	now;

	if (nsizing == 0 || !was->known)
		return;
	if (nsizing == 1 ?
		!args[0].isnull && DatumGetFloat8(args[0].value) == was->fpr :
		!args[0].isnull && !args[1].isnull &&
		DatumGetInt64(args[0].value) == was->items &&
		DatumGetFloat8(args[1].value) == was->fpr &&
		(nsizing == 2 ||
		 (!args[2].isnull && same_variant(DatumGetTextPP(args[2].value), was))))
		return;
	sizing_of(args, nsizing, &now);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the sizing arguments of bloomfilter_agg changed between rows of one group"),
			 errdetail("The group's filter was planned for %lld items at a false-positive rate of %g (%s); this row asks for %lld at %g (%s).",
					   (long long) was->items, was->fpr,
					   bf_variant_name(was->variant),
					   (long long) now.items, now.fpr,
					   bf_variant_name(now.variant)),
			 errhint("Pass the same expected_items, false_positive_rate and variant for every row of a group, for instance constants.")));
}

/*
 * bloomfilter_agg(elem [, expected_items] [, false_positive_rate]
 * [, variant]): (state, elem, ...) -> state.  NULL elements are skipped.
 */
Datum
bloomfilter_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx;
	CallCache  *cc = (CallCache *) fcinfo->flinfo->fn_extra;
	ElementHasher *eh;
	BloomState *state;

	/*
	 * Every row but the first: the state this function returned for the
	 * previous row (nodeAgg hands it back as it is) and an element.  Only
	 * this function makes such a state, inside an aggregate.
	 */
	if (likely(cc != NULL && !PG_ARGISNULL(0) && !PG_ARGISNULL(1)) &&
		(state = bloom_state_rw(PG_GETARG_DATUM(0))) != NULL)
	{
		if (PG_NARGS() > 2)
			check_sizing(fcinfo, state);
		filterbuf_add_new_deferred(&state->fb,
								   element_hash(&cc->elem, PG_GETARG_DATUM(1),
												&state->fb.b.view));
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}

	aggctx = aggregate_context(fcinfo, "bloomfilter_agg_trans");

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	cc = call_cache_of(fcinfo);
	eh = element_hasher_for_arg(fcinfo, cc, 1);
	state = PG_ARGISNULL(0) ? new_state(fcinfo, aggctx) :
		current_state(fcinfo, aggctx);
	check_sizing(fcinfo, state);
	filterbuf_add_new_deferred(&state->fb,
							   element_hash(eh, PG_GETARG_DATUM(1),
											&state->fb.b.view));
	PG_RETURN_DATUM(bloom_state_datum(state));
}

/*
 * (state, f) -> state for the union and intersection aggregates, and the
 * combine function of every aggregate.  The first non-NULL filter is copied
 * into a new state; later ones are merged into it in place.  'function' is
 * the SQL name, for the error when called outside an aggregate.
 */
static Datum
merge_trans(FunctionCallInfo fcinfo, const char *function, bool intersect)
{
	MemoryContext aggctx = aggregate_context(fcinfo, function);
	BloomFilter *f;
	BloomState *state;
	bf_filter	vf;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	f = filter_getarg(fcinfo, 1, &vf);
	if (PG_ARGISNULL(0))
		PG_RETURN_DATUM(bloom_state_datum(bloom_state_copy(aggctx, f)));
	state = current_state(fcinfo, aggctx);
	filterbuf_merge(&state->fb, &vf, intersect);
	PG_RETURN_DATUM(bloom_state_datum(state));
}

Datum
bloomfilter_union_trans(PG_FUNCTION_ARGS)
{
	return merge_trans(fcinfo, "bloomfilter_union_trans", false);
}

Datum
bloomfilter_intersect_trans(PG_FUNCTION_ARGS)
{
	return merge_trans(fcinfo, "bloomfilter_intersect_trans", true);
}
