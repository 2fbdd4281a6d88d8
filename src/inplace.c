/*
 * inplace.c
 *		Adding to a PL/pgSQL variable's filter without copying it.
 *
 * PL/pgSQL evaluates  f := f || x  or  f := bloomfilter_add(f, x)  by
 * handing the function the variable's value and storing the result back.
 * A function may not modify its input, so each add copies the whole
 * filter: 0.1 s for a 100 MB filter.  From PostgreSQL 18 a function's
 * planner support function may answer SupportRequestModifyInPlace: "the
 * call may modify its first argument".  PL/pgSQL then passes a read-write
 * pointer to the variable's expanded object, and the function adds to it
 * and returns it.
 *
 * So on 18: the first add of such a loop copies the filter once into an
 * expanded object (a BloomState, as the aggregates use) and returns it;
 * PL/pgSQL keeps it as the variable's value; every later add modifies it
 * in place.  An add that fails leaves the object as it was: the element
 * is hashed and a growing variant's next stage is sized before anything
 * is written, the core's adds and removes change nothing when they refuse,
 * and a new stage is built beside the old one and swapped in at the end.
 *
 * Before 18 the support function answers nothing and nothing changes.
 */
#include "bloomfilter.h"

#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "utils/guc.h"

PG_FUNCTION_INFO_V1(bloomfilter_modify_support);

/* Whole-filter copies made by add and remove in this backend (tests) */
static int64 filter_copies;
static char *filter_copies_unused;

static const char *
show_filter_copies(void)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), INT64_FORMAT, filter_copies);
	return buf;
}

/* A hidden, read-only setting: SHOW bloomfilter.debug_filter_copies */
void
inplace_init(void)
{
	DefineCustomStringVariable("bloomfilter.debug_filter_copies",
							   "Whole-filter copies made by bloomfilter_add, || and bloomfilter_remove in this session (for tests).",
							   NULL, &filter_copies_unused, "", PGC_INTERNAL,
							   GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE |
							   GUC_DISALLOW_IN_FILE,
							   NULL, NULL, show_filter_copies);
}

/* Counts one copy of a filter by an add or a remove */
void
inplace_count_copy(void)
{
	filter_copies++;
}

#if BF_HAVE_MODIFY_IN_PLACE
/* Does the expression refer to the PARAM_EXTERN parameter 'paramid'? */
static bool
refers_to_param(Node *node, void *context)
{
	int			paramid = *(int *) context;

	if (node == NULL)
		return false;
	if (IsA(node, Param))
	{
		Param	   *p = (Param *) node;

		return p->paramkind == PARAM_EXTERN && p->paramid == paramid;
	}
	return expression_tree_walker(node, refers_to_param, context);
}
#endif

/*
 * bloomfilter_modify_support(internal): the planner support function of
 * bloomfilter_add (every overload, so ||) and bloomfilter_remove.  A call
 * may modify its first argument in place when that argument is the
 * assigned variable itself and the element does not refer to it.
 */
Datum
bloomfilter_modify_support(PG_FUNCTION_ARGS)
{
#if BF_HAVE_MODIFY_IN_PLACE
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestModifyInPlace))
	{
		SupportRequestModifyInPlace *req = (SupportRequestModifyInPlace *) rawreq;
		Node	   *target;

		if (list_length(req->args) != 2)
			PG_RETURN_POINTER(NULL);
		target = linitial(req->args);
		if (IsA(target, Param) &&
			((Param *) target)->paramkind == PARAM_EXTERN &&
			((Param *) target)->paramid == req->paramid &&
			!refers_to_param(lsecond(req->args), &req->paramid))
			PG_RETURN_POINTER(target);
	}
#endif
	PG_RETURN_POINTER(NULL);
}

/*
 * The filter of argument 0 when it may be modified in place: a read-write
 * pointer to one of our expanded objects, which only PL/pgSQL, told so by
 * the support function, hands over.  Else NULL.
 */
BloomState *
inplace_target(FunctionCallInfo fcinfo, CallCache *cc)
{
	BloomState *state;

	if (!BF_HAVE_MODIFY_IN_PLACE)
		return NULL;
	state = bloom_state_rw(PG_GETARG_DATUM(0));
	if (state)
	{
		filterbuf_flush(&state->fb);
		cc->inplace = INPLACE_WORKS;
	}
	return state;
}

/*
 * Should this call, which copies the filter, return the copy as an
 * expanded object that the next call can change in place?  Only on 18,
 * only where argument 0 is a parameter of the statement (a PL/pgSQL
 * variable, say), and only while the call site gets its results back
 * read-write: an expanded result that is stored or returned instead is
 * flattened, one more copy, so a call site where the last expanded result
 * did not come back (INSERT ... VALUES (f || x) in a loop) returns plain
 * values from then on.
 */
bool
inplace_wanted(FunctionCallInfo fcinfo, CallCache *cc)
{
	Node	   *arg;

	if (!BF_HAVE_MODIFY_IN_PLACE || cc->inplace == INPLACE_USELESS)
		return false;
	if (cc->inplace == INPLACE_TRIED)
	{
		cc->inplace = INPLACE_USELESS;
		return false;
	}
	arg = call_arg_expr(fcinfo->flinfo, 0);
	if (arg == NULL || !IsA(arg, Param) ||
		((Param *) arg)->paramkind != PARAM_EXTERN)
		return false;
	cc->inplace = INPLACE_TRIED;
	return true;
}
