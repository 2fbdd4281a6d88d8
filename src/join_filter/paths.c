/*
 * paths.c
 *		Automatic Bloom join filters, the planner's choice: join paths whose
 *		cost counts the filter a hash join would get.
 *
 * Filters are placed on the finished plan (placement.c), so without this
 * the planner never picks a plan because of one.  A set_join_pathlist_hook
 * offers, beside PostgreSQL's own paths of an inner or semi join, a hash
 * join of the two sides' paths, costed by PostgreSQL (initial_cost_hashjoin,
 * create_hashjoin_path) less what the filter it would get should save, as
 * placement.c's cost decision counts it (trace.c's filter_net_saving, from
 * the same estimates): the probe rows that the join would discard go where
 * their key is made, and each saves the work of the joins between there and
 * this join (what join_row_work follows here as trace.c's row_cost follows
 * it on a plan) and the join's own probe (probe_cost: more for a table past
 * the caches).  A unit of those (a probe of a small in-memory hash table)
 * counts as cpu_operator_cost, what PostgreSQL charges for hashing a probe
 * row.  Of the probe side's paths (not parameterized) the one cheapest with
 * its filter's saving is taken; the path never costs less than what the
 * filter cannot remove (KeyPath's floor).  Partial paths are offered as well,
 * as PostgreSQL makes them (a Parallel Hash, and a hash of the whole build
 * side in each process).
 *
 * So a hash join whose build side would filter a large table can win over a
 * merge join or a nested loop of index lookups that PostgreSQL thought
 * cheaper, and a join order that joins such a table early can be chosen.
 * The path is an ordinary hash join path and becomes an ordinary Hash
 * Join: placement.c decides on the finished plan as for any other join and
 * normally places the filter the cost counted on; where it does not (a key
 * it cannot follow to its site, a loud node between), the plan is one that
 * PostgreSQL costed higher, never a wrong one.  The saving is taken off the
 * path's total cost, which EXPLAIN shows.  Only at bloomfilter.join_filter
 * = on (at always every join gets a filter anyway, and the plans are
 * PostgreSQL's, for the tests).
 *
 * Owns the hook (join_paths_install, called by placement.c's
 * join_filter_init).  Calls trace.c (the costs) and keys.c (the filter's
 * size).
 */
#include "join_filter_int.h"

#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"

static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;

/*
 * The hash clauses of a join of outerrel to innerrel (an inner or semi
 * join), as PostgreSQL's own hash join paths take them, each with its
 * outer_is_left set for this pair
 */
static List *
hash_clauses(List *restrictlist, RelOptInfo *outerrel, RelOptInfo *innerrel)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, restrictlist)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (!ri->can_join || !OidIsValid(ri->hashjoinoperator))
			continue;
		if (bms_is_subset(ri->left_relids, outerrel->relids) &&
			bms_is_subset(ri->right_relids, innerrel->relids))
			ri->outer_is_left = true;
		else if (bms_is_subset(ri->left_relids, innerrel->relids) &&
				 bms_is_subset(ri->right_relids, outerrel->relids))
			ri->outer_is_left = false;
		else
			continue;
		result = lappend(result, ri);
	}
	return result;
}

/*
 * The base relation whose column every clause's probe (outer) side is, or
 * 0: a filter tests keys made at one site (placement.c takes no filter for
 * a join some of whose keys come from elsewhere)
 */
static Index
probe_key_rel(List *clauses)
{
	Index		relid = 0;
	ListCell   *lc;

	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		OpExpr	   *op = (OpExpr *) ri->clause;
		Expr	   *key;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			return 0;
		key = strip_relabel(ri->outer_is_left ? linitial(op->args) :
							lsecond(op->args));
		if (!IsA(key, Var) || ((Var *) key)->varlevelsup != 0 ||
			(relid != 0 && ((Var *) key)->varno != (int) relid))
			return 0;
		relid = ((Var *) key)->varno;
	}
	return relid;
}

/*
 * What a row from 'child' costs the join path 'jp', in probe_cost's units,
 * as trace.c's row_cost counts it on the plan the path becomes: a hash
 * join's probe of its table, or the Hash's add; a merge join's step, and
 * the Sort's where it sorts that side; a nested loop's (node_row_cost)
 */
static double
join_row_work(JoinPath *jp, Path *child)
{
	bool		outer = child == jp->outerjoinpath;

	switch (jp->path.pathtype)
	{
		case T_HashJoin:
			return outer ? table_probe_cost(jp->innerjoinpath->rows,
											jp->innerjoinpath->pathtarget->width) :
				node_row_cost(T_Hash, true);
		case T_MergeJoin:
			return node_row_cost(T_MergeJoin, outer) +
				((outer ? ((MergePath *) jp)->outersortkeys :
				  ((MergePath *) jp)->innersortkeys) != NIL ?
				 node_row_cost(T_Sort, true) : 0.0);
		default:
			return node_row_cost(jp->path.pathtype, outer);
	}
}

/*
 * What following the probe key down a path finds: the rows where the filter
 * would be tested, what they cost on their way up (in probe_cost's units,
 * as trace.c's Trace counts it on a plan) and what the path costs whatever
 * the filter removes
 */
typedef struct KeyPath
{
	double		site_rows;
	double		work;
	Cost		floor;
} KeyPath;

/*
 * Follows the probe key's relation 'relid' down from 'path' through the
 * joins (and materializations and sorts) above it, to the deepest node
 * that makes it, the site.  The work is what a row costs each node on the
 * way (times the rows); the floor, what the filter cannot remove: the
 * site's own cost, and the other side of each join on the way (a nested
 * loop's inner side once).  Each counts the runs of its node per run of
 * 'path' (loops, as trace.c's child_runs counts them): a nested loop's
 * inner side runs once per outer row; the input of a Material, or a hash
 * join's build side, that takes no parameter, once.
 */
static void
follow_key(Path *path, Index relid, KeyPath *kp)
{
	double		loops = 1.0;

	kp->work = 0.0;
	kp->floor = 0.0;
	for (;;)
	{
		JoinPath   *jp;
		Path	   *next;

		switch (path->pathtype)
		{
			case T_HashJoin:
			case T_NestLoop:
			case T_MergeJoin:
				jp = (JoinPath *) path;
				if (bms_is_member(relid, jp->outerjoinpath->parent->relids))
				{
					next = jp->outerjoinpath;
					kp->floor += jp->innerjoinpath->total_cost * loops;
				}
				else if (bms_is_member(relid, jp->innerjoinpath->parent->relids))
				{
					next = jp->innerjoinpath;
					kp->floor += jp->outerjoinpath->total_cost * loops;
					if (path->pathtype == T_NestLoop)
						loops *= Max(jp->outerjoinpath->rows, 1.0);
					else if (path->pathtype == T_HashJoin &&
							 PATH_REQ_OUTER(next) == NULL)
						loops = 1.0;
				}
				else
					next = NULL;
				if (next)
					kp->work += join_row_work(jp, next) * next->rows * loops;
				break;
			case T_Material:
				next = ((MaterialPath *) path)->subpath;
				if (PATH_REQ_OUTER(next) == NULL)
					loops = 1.0;
				kp->work += node_row_cost(T_Material, true) * next->rows * loops;
				break;
			case T_Sort:
				next = ((SortPath *) path)->subpath;
				kp->work += node_row_cost(T_Sort, true) * next->rows * loops;
				break;
			default:
				next = NULL;
				break;
		}
		if (next == NULL)
		{
			kp->site_rows = path->rows * loops;
			kp->floor += path->total_cost * loops;
			return;
		}
		path = next;
	}
}

/*
 * What the filter of a hash join of 'outer' (followed down: kp) to 'inner'
 * should save, net of its cost (filter_net_saving), in PostgreSQL's cost
 * units, with the join keeping a fraction m of the probe rows
 */
static Cost
path_saving(const KeyPath *kp, Path *outer, Path *inner, double m,
			double filter_bytes)
{
	double		work = kp->work +
		table_probe_cost(inner->rows, inner->pathtarget->width) * outer->rows;

	return cpu_operator_cost *
		filter_net_saving(m, kp->site_rows, outer->rows, work, inner->rows,
						  filter_bytes);
}

/*
 * Adds to joinrel the hash join, of the paths in 'outers' to 'inner', that
 * is cheapest with its filter's saving, when a filter saves anything: a
 * partial path (each process reads a part of the probe side, and builds
 * the whole table, or its part of a Parallel Hash's) when 'partial'
 */
static void
offer_hash_join(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
				JoinPathExtraData *extra, List *clauses, List *outers,
				Path *inner, Index relid, double m, bool partial,
				bool parallel_hash)
{
	Path	   *best = NULL;
	Cost		best_saving = 0.0,
				best_cost = 0.0,
				best_floor = 0.0;
	double		build_keys = inner->rows;
	bf_params	params;
	JoinCostWorkspace ws;
	HashPath   *path;
	ListCell   *lc;

	/* (a Parallel Hash's filter holds the keys of all its processes) */
	if (parallel_hash)
		build_keys *= inner->parallel_workers + 1;
	if (!plan_filter(build_keys, &params))
		return;
	foreach(lc, outers)
	{
		Path	   *outer = lfirst(lc);
		KeyPath		kp;
		Cost		saving,
					cost;

		if (PATH_REQ_OUTER(outer) != NULL)
			continue;
		follow_key(outer, relid, &kp);
		saving = path_saving(&kp, outer, inner, m,
							 (double) params.total_bytes);
		cost = Max(outer->total_cost - saving, kp.floor);
		if (saving > 0.0 && (best == NULL || cost < best_cost))
		{
			best = outer;
			best_saving = saving;
			best_cost = cost;
			best_floor = kp.floor;
		}
	}
	if (best == NULL)
		return;

	initial_cost_hashjoin(root, &ws, jointype, clauses, best, inner, extra,
						  parallel_hash);
	path = create_hashjoin_path(root, joinrel, jointype, &ws, extra,
								best, inner, parallel_hash,
								extra->restrictlist, NULL, clauses);
	path->jpath.path.total_cost =
		Max(path->jpath.path.total_cost - best_saving,
			Max(path->jpath.path.startup_cost,
				best_floor + inner->total_cost));
	if (partial)
		add_partial_path(joinrel, (Path *) path);
	else
		add_path(joinrel, (Path *) path);
}

static void
join_paths_hook(PlannerInfo *root, RelOptInfo *joinrel,
				RelOptInfo *outerrel, RelOptInfo *innerrel,
				JoinType jointype, JoinPathExtraData *extra)
{
	Path	   *inner = innerrel->cheapest_total_path;
	List	   *clauses;
	Index		relid;
	double		m;

	if (prev_join_pathlist_hook)
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype,
								extra);
	if (join_filter_mode != JOIN_FILTER_ON ||
		(jointype != JOIN_INNER && jointype != JOIN_SEMI) ||
		inner == NULL || PATH_REQ_OUTER(inner) != NULL ||
		!bms_is_empty(joinrel->lateral_relids) || outerrel->rows <= 0)
		return;

	/* the fraction of probe rows with a partner, as placement.c counts it */
	m = Min(joinrel->rows / outerrel->rows, 1.0);
	if (m > JF_MAX_MATCH)
		return;
	clauses = hash_clauses(extra->restrictlist, outerrel, innerrel);
	if (clauses == NIL || (relid = probe_key_rel(clauses)) == 0)
		return;

	offer_hash_join(root, joinrel, jointype, extra, clauses,
					outerrel->pathlist, inner, relid, m, false, false);

	/*
	 * Partial paths, as PostgreSQL makes them: each process hashes the
	 * cheapest parallel-safe inner path, or its part of the cheapest partial
	 * one into a Parallel Hash
	 */
	if (!joinrel->consider_parallel || outerrel->partial_pathlist == NIL)
		return;
	if (innerrel->partial_pathlist != NIL && enable_parallel_hash)
		offer_hash_join(root, joinrel, jointype, extra, clauses,
						outerrel->partial_pathlist,
						linitial(innerrel->partial_pathlist), relid, m,
						true, true);
	inner = get_cheapest_parallel_safe_total_inner(innerrel->pathlist);
	if (inner != NULL)
		offer_hash_join(root, joinrel, jointype, extra, clauses,
						outerrel->partial_pathlist, inner, relid, m,
						true, false);
}

void
join_paths_install(void)
{
	prev_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = join_paths_hook;
}
