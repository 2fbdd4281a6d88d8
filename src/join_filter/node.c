/*
 * node.c
 *		What the join filters' two plan nodes, the build node (build.c) and
 *		the probe node (probe.c), share.
 *
 * Owns pass-through execution (the node's rows are its child's, in the
 * child's slot) and the names EXPLAIN gives filters and keys.  Calls
 * nothing of the join filters.
 */
#include "join_filter_int.h"

#include "executor/executor.h"
#include "utils/ruleutils.h"

/*
 * Starts the child of a pass-through node, whose rows it hands on as they
 * are: the node's result is the child's slot, of the child's kind and
 * descriptor, which its parent's expressions are compiled for.
 */
PlanState *
begin_pass_through(CustomScanState *node, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	PlanState  *child = ExecInitNode(linitial(cscan->custom_plans), estate,
									 eflags);
	PlanState  *ps = &node->ss.ps;

	node->custom_ps = list_make1(child);
	ps->ps_ResultTupleDesc = ExecGetResultType(child);
	ps->resultops = ExecGetResultSlotOps(child, &ps->resultopsfixed);
	ps->resultopsset = true;
	/* this node's own expressions read the child's rows as OUTER_VAR */
	ps->outeropsset = true;
	ps->outeropsfixed = false;	/* (no outer PlanState to describe them) */
	return child;
}

void
end_pass_through(CustomScanState *node)
{
	ExecEndNode(linitial(node->custom_ps));
}

void
rescan_child(CustomScanState *node)
{
	PlanState  *child = linitial(node->custom_ps);

	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, node->ss.ps.chgParam);
	if (child->chgParam == NULL)
		ExecReScan(child);
}

/* "bf1", the filter's name in EXPLAIN */
char *
filter_name(int number)
{
	return psprintf("bf%d", number);
}

char *
deparse_keys(List *exprs, CustomScanState *node, List *ancestors,
			 ExplainState *es)
{
	List	   *context = set_deparse_context_plan(es->deparse_cxt,
												   node->ss.ps.plan,
												   ancestors);
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, exprs)
		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? ", " : "",
						 deparse_expression(lfirst(lc), context,
											es->verbose ||
											list_length(es->rtable) > 1,
											false));
	return buf.data;
}
