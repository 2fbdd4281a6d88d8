/*
 * custom_scan.c
 *		What the aggregate scan (agg_scan.c) and the prefetching scan
 *		(prefetch_scan.c) build alike: the path that stands in for one of
 *		PostgreSQL's, the plan node and the state node.
 */
#include "custom_scan.h"

#include "nodes/nodes.h"

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
 * CreateCustomScanState of both scans: the state node of cscan, zeroed, of
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
