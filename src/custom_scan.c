/*
 * custom_scan.c
 *		What the custom scans build alike: the path that stands in for one of
 *		PostgreSQL's and the plan node (the aggregate scan, agg_scan.c, and the
 *		prefetching scan, prefetch_scan.c), the state node (those two and the
 *		join scan, join_scan.c), and EXPLAIN's text of an expression that holds
 *		a constant filter (the prefetching scan and the join scan).
 *
 * Calls only PostgreSQL and, to describe a filter, filter_open and the
 * core's bf_describe; called by the scans.
 */
#include "bloomfilter.h"
#include "custom_scan.h"

#include "commands/explain.h"
#include BF_EXPLAIN_FORMAT_H
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/nodes.h"
#include "utils/ruleutils.h"

/*
 * A path for 'methods' that stands where 'like' would: its relation,
 * target, rows, costs and parallel settings, no ordering, projecting.  The
 * caller adjusts what its scan changes (costs, parallel awareness) and adds
 * its own fields.
 */
CustomPath *
custom_path_like(const Path *like, const CustomPathMethods *methods)
{
	CustomPath *cpath = makeNode(CustomPath);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = like->parent;
	cpath->path.pathtarget = like->pathtarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = like->parallel_aware;
	cpath->path.parallel_safe = like->parallel_safe;
	cpath->path.parallel_workers = like->parallel_workers;
	cpath->path.rows = like->rows;
	cpath->path.startup_cost = like->startup_cost;
	cpath->path.total_cost = like->total_cost;
	cpath->path.pathkeys = NIL;
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->methods = methods;
	return cpath;
}

/* The plan node of best_path, returning tlist; the caller fills the rest */
CustomScan *
custom_scan_of(const CustomPath *best_path, List *tlist,
			   const CustomScanKind *kind)
{
	CustomScan *cscan = makeNode(CustomScan);

	cscan->scan.plan.targetlist = tlist;
	cscan->flags = best_path->flags;
	cscan->methods = &kind->methods;
	return cscan;
}

/*
 * CreateCustomScanState of every scan: the state node of cscan, zeroed, of
 * the size and with the execution methods its kind gives
 */
Node *
custom_state_new(CustomScan *cscan)
{
	const CustomScanKind *kind = (const CustomScanKind *) cscan->methods;
	CustomScanState *css = palloc0(kind->state_size);

	NodeSetTag(css, T_CustomScanState);
	css->methods = kind->exec;
	css->flags = cscan->flags;
	return (Node *) css;
}

/*
 * EXPLAIN's text of an expression, with each constant filter described in a
 * line rather than printed as its text form (which can run to megabytes):
 * the expression is deparsed with stand-in parameters in their places
 * ($2147483647 down), which the descriptions then replace.
 */
typedef struct StandIns
{
	List	   *filters;		/* the constants, in stand-in order */
} StandIns;

#define STAND_IN_FIRST	PG_INT32_MAX

static Node *
stand_in_mutator(Node *node, StandIns *si)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Const) && !((Const *) node)->constisnull &&
		type_is_bloomfilter(((Const *) node)->consttype))
	{
		Param	   *p = makeNode(Param);

		p->paramkind = PARAM_EXTERN;
		p->paramid = STAND_IN_FIRST - list_length(si->filters);
		p->paramtype = ((Const *) node)->consttype;
		p->paramtypmod = -1;
		p->location = -1;
		si->filters = lappend(si->filters, node);
		return (Node *) p;
	}
	return expression_tree_mutator(node, stand_in_mutator, si);
}

char *
deparse_describing_filters(Node *expr, List *context, bool verbose)
{
	StandIns	si = {NIL};
	Node	   *copy = stand_in_mutator(expr, &si);
	char	   *text = deparse_expression(copy, context, verbose, false);
	ListCell   *lc;

	foreach(lc, si.filters)
	{
		char		mark[16];
		char		what[256];
		char	   *at;
		bf_filter	view;

		snprintf(mark, sizeof(mark), "$%d",
				 STAND_IN_FIRST - foreach_current_index(lc));
		at = strstr(text, mark);
		if (at == NULL)			/* not printed: nothing to replace */
			continue;
		filter_open((struct varlena *)
					PG_DETOAST_DATUM(((Const *) lfirst(lc))->constvalue),
					&view);
		bf_describe(&view, what, sizeof(what));
		text = psprintf("%.*s<bloomfilter: %s; " UINT64_FORMAT " items added, "
						UINT64_FORMAT " bytes>%s",
						(int) (at - text), text, what, (uint64) view.items,
						(uint64) (BF_HEADER_SIZE + view.payload_bytes),
						at + strlen(mark));
	}
	return text;
}

/* EXPLAIN's line 'label': the quals, ANDed, their filters described */
void
explain_quals(List *quals, const char *label, List *context,
			  ExplainState *es)
{
	if (quals != NIL)
		ExplainPropertyText(label,
							deparse_describing_filters((Node *) make_ands_explicit(quals),
													   context, es->verbose),
							es);
}
