/*
 * loud.c
 *		Whether evaluating an expression may fail or be seen by anyone: what
 *		decides which quals a scan may test ahead of a row's turn, and below
 *		which nodes a join filter may drop rows.
 *
 * Owns expression_is_loud and support_function_is_quiet (declared in
 * custom_scan.h).  Called by the prefetching scan (prefetch_scan.c), the
 * join scan (join_scan.c) and the join filters (join_filter/trace.c and
 * placement.c); calls only PostgreSQL's catalog look-ups.
 */
#include "custom_scan.h"

#include "access/transam.h"
#include "catalog/pg_proc.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"

/* A function a silent qual may not call: one that may fail or be seen */
static bool
loud_function(Oid funcid, void *context)
{
	return !get_func_leakproof(funcid) ||
		func_volatile(funcid) == PROVOLATILE_VOLATILE;
}

/*
 * Whether evaluating 'node' could fail or be observed, for any row: true
 * unless it is made only of columns, constants, boolean logic, NULL tests,
 * relabellings and calls of leakproof functions that are not volatile.  A
 * parameter is loud too where 'context' (a LoudParams) is NULL: an executor
 * parameter may run an initplan, and an external one may raise an error (a
 * PL/pgSQL record not yet assigned); else only the initplans' outputs in it.
 */
static bool
loud_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_List:
		case T_TargetEntry:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_RelabelType:
			break;
		case T_Param:
			{
				const LoudParams *lp = context;
				Param	   *param = (Param *) node;

				if (lp == NULL ||
					(param->paramkind == PARAM_EXEC &&
					 bms_is_member(param->paramid, lp->initplan_params)))
					return true;
			}
			break;
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *saop = (ScalarArrayOpExpr *) node;

				/* a hashed  x IN (...)  calls its hash functions as well */
				if ((OidIsValid(saop->hashfuncid) &&
					 loud_function(saop->hashfuncid, NULL)) ||
					(OidIsValid(saop->negfuncid) &&
					 loud_function(saop->negfuncid, NULL)))
					return true;
			}
			/* FALLTHROUGH */
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			if (check_functions_in_node(node, loud_function, NULL))
				return true;
			break;
		default:
			return true;
	}
	return expression_tree_walker(node, loud_walker, context);
}

bool
expression_is_loud(Node *node, const LoudParams *params)
{
	return loud_walker(node, (void *) params);
}

/*
 * Whether a support function that a plan node calls per row (a hash
 * function, a sort comparator, a join's equality) is quiet: PostgreSQL's
 * own (they neither fail on a valid value nor have effects) or leakproof,
 * and not volatile
 */
bool
support_function_is_quiet(Oid funcid)
{
	return (funcid < FirstNormalObjectId || get_func_leakproof(funcid)) &&
		func_volatile(funcid) != PROVOLATILE_VOLATILE;
}
