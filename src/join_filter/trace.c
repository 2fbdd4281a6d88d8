/*
 * trace.c
 *		Following a hash join's probe key down the probe side to the plan
 *		nodes that make it, the places a probe may stand.
 *
 * Owns trace_column (the sites of a key column, and what a row costs on
 * its way up from them to the join: row_cost, probe_cost), what a filter
 * saves in those units (filter_net_saving) and the tests of
 * whether a node or a subtree may run for fewer rows without anyone seeing
 * (node_is_quiet, subtree_is_quiet).
 *
 * Calls expression_is_loud and support_function_is_quiet (custom_scan.h);
 * nothing else of the join filters.
 */
#include "join_filter_int.h"

#include "miscadmin.h"
#include "optimizer/cost.h"
#include "utils/lsyscache.h"

/*
 * What one probe row costs the hash join 'join', in units of a probe of a
 * small in-memory table (about 30 ns here): more the larger the table, as
 * its buckets and tuples leave the caches, and writing and reading the row
 * again for the share of it that spills.  Measured with a 2,000,000-row
 * probe side and no match (doc/join-filters-design.md): 1 unit for 200
 * build rows, 2.4 for 10,000 (520 kB), 10 for 100,000 (5 MB), 20 and more
 * past that; the steps below stay under those figures.  For a table of
 * 'rows' rows of 'width' bytes:
 */
double
table_probe_cost(double rows, int width)
{
	double		bytes = rows * (width + 48);
	double		limit = (double) get_hash_memory_limit();
	double		cost;

	if (bytes <= JF_CACHE_BYTES / 4)
		cost = 1.0;
	else if (bytes <= JF_CACHE_BYTES)
		cost = 2.0;
	else if (bytes <= 16 * JF_CACHE_BYTES)
		cost = 6.0;
	else
		cost = 10.0;
	if (bytes > limit)
		cost += 10.0 * (1.0 - limit / bytes);
	return cost;
}

/* ... for the hash join 'join' */
double
probe_cost(HashJoin *join)
{
	Plan	   *inner = outerPlan(innerPlan(join));

	return table_probe_cost(inner->plan_rows, inner->plan_width);
}

/*
 * What testing a row costs at a site, in the units of probe_cost: hashing
 * its key and reading the filter's block, prefetched a few rows ahead.
 * Measured with probe_cost's figures: 0.6 of a unit for a filter of a few
 * kilobytes, about 1 for one of 120 kB.
 */
static double
filter_test_cost(double filter_bytes)
{
	if (filter_bytes <= 32 * 1024.0)
		return 0.6;
	if (filter_bytes <= JF_CACHE_BYTES)
		return 1.0;
	return 2.0;
}

/*
 * What a filter should save less what it costs, in probe_cost's units, from
 * the estimates, or 0 when it should not be placed at all: the join keeps a
 * fraction 'm' of its 'probe_rows' probe rows; the rows it drops each save
 * 'work' / (the probe rows) on their way up (the work of the nodes between
 * the sites and the join, and the join's own probe: what placement.c's
 * filter_pays and paths.c count); against a test of each of the
 * 'site_rows' rows where the filter stands (filter_test_cost) and 0.3 of a
 * unit per build row added; less a margin of a tenth of a unit per row
 * tested for the estimates' errors.  A filter is placed where this is
 * positive, and where it removes JF_MIN_REMOVED_ROWS rows at its sites or
 * keeps as many from the join (a few site rows that a join between
 * multiplies count as the rows they would become).
 */
double
filter_net_saving(double m, double site_rows, double probe_rows, double work,
				  double build_rows, double filter_bytes)
{
	double		gone = (1.0 - m) * (1.0 - JF_FPR);

	if (m > JF_MAX_MATCH ||
		Max(site_rows, probe_rows) * gone < JF_MIN_REMOVED_ROWS)
		return 0.0;
	return Max(gone * work - filter_test_cost(filter_bytes) * site_rows -
			   0.3 * build_rows - 0.1 * site_rows, 0.0);
}

/*
 * The cost of a row passed up to a node of kind 'tag' from its outer (or
 * only) child or from its inner child, in probe_cost's units, for every kind
 * but a hash join's probe (probe_cost): what trace_column counts on a plan
 * and paths.c on a path.  A Hash's add, a sort or a merge join's step cost
 * about a probe of a small table, a nested loop's outer row its inner scan
 * (two), a materialized row half
 */
double
node_row_cost(NodeTag tag, bool from_outer)
{
	switch (tag)
	{
		case T_NestLoop:
			return from_outer ? 2.0 : 1.0;
		case T_MergeJoin:
		case T_Hash:
		case T_Sort:
		case T_IncrementalSort:
			return 1.0;
		case T_Material:
			return 0.5;
		default:
			return 0.0;
	}
}

/* The cost of a row that 'child' passes up to 'plan' (see Trace) */
static double
row_cost(Plan *plan, Plan *child)
{
	if (IsA(plan, HashJoin))
		return child == outerPlan(plan) ? probe_cost((HashJoin *) plan) : 0.0;
	return node_row_cost(nodeTag(plan), child == outerPlan(plan));
}


/* Whether every expression in 'list' is silent (expression_is_loud) */
static bool
quiet(List *exprs, const LoudParams *loud)
{
	return !expression_is_loud((Node *) exprs, loud);
}

/* Whether the support functions of every operator in 'ops' are quiet */
static bool
quiet_operators(const Oid *ops, int nops)
{
	for (int i = 0; i < nops; i++)
		if (!support_function_is_quiet(get_opcode(ops[i])))
			return false;
	return true;
}

/*
 * Whether the clauses of a hash or merge join, equalities of a hash or
 * btree operator family, are quiet: the operators' functions (and hash
 * functions) quiet, their arguments silent
 */
static bool
quiet_join_clauses(List *clauses, bool hashed, const LoudParams *loud)
{
	ListCell   *lc;

	foreach(lc, clauses)
	{
		OpExpr	   *op = lfirst(lc);
		RegProcedure left,
					right;

		if (!IsA(op, OpExpr) || !quiet(op->args, loud) ||
			!support_function_is_quiet(get_opcode(op->opno)))
			return false;
		if (hashed &&
			(!get_op_hash_functions(op->opno, &left, &right) ||
			 !support_function_is_quiet(left) ||
			 !support_function_is_quiet(right)))
			return false;
	}
	return true;
}

/*
 * The children of 'plan' beside lefttree and righttree: an Append's, a
 * bitmap AND's or OR's, a subquery scan's subplan, and those of this
 * library's own custom scans (others may run theirs in ways this file does
 * not know)
 */
List *
other_children(Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_Append:
			return ((Append *) plan)->appendplans;
		case T_MergeAppend:
			return ((MergeAppend *) plan)->mergeplans;
		case T_BitmapAnd:
			return ((BitmapAnd *) plan)->bitmapplans;
		case T_BitmapOr:
			return ((BitmapOr *) plan)->bitmapplans;
		case T_SubqueryScan:
			return list_make1(((SubqueryScan *) plan)->subplan);
		case T_CustomScan:
			if (strncmp(((CustomScan *) plan)->methods->CustomName,
						"bloomfilter ", 12) == 0)
				return ((CustomScan *) plan)->custom_plans;
			return NIL;
		default:
			return NIL;
	}
}

/*
 * Whether what 'plan' computes for each row it reads can neither fail nor
 * be seen: its own expressions (target list, quals, join clauses, hash
 * keys) silent, its support functions quiet, no initplan; for the kinds of
 * node a key may be followed through
 */
static bool
node_is_quiet(Plan *plan, const LoudParams *loud)
{
	if (plan->initPlan != NIL || !quiet(plan->qual, loud) ||
		!quiet(plan->targetlist, loud))
		return false;
	switch (nodeTag(plan))
	{
		case T_NestLoop:
		case T_MergeJoin:
		case T_HashJoin:
			if (!quiet(((Join *) plan)->joinqual, loud))
				return false;
			if (IsA(plan, HashJoin))
				return quiet_join_clauses(((HashJoin *) plan)->hashclauses, true, loud) &&
					quiet(((HashJoin *) plan)->hashkeys, loud);
			if (IsA(plan, MergeJoin))
				return quiet_join_clauses(((MergeJoin *) plan)->mergeclauses, false, loud);
			return true;
		case T_Hash:
			return quiet(((Hash *) plan)->hashkeys, loud);
		case T_Sort:
			return quiet_operators(((Sort *) plan)->sortOperators,
								   ((Sort *) plan)->numCols);
		case T_IncrementalSort:
			return quiet_operators(((IncrementalSort *) plan)->sort.sortOperators,
								   ((IncrementalSort *) plan)->sort.numCols);
		case T_MergeAppend:
			return quiet_operators(((MergeAppend *) plan)->sortOperators,
								   ((MergeAppend *) plan)->numCols);
		case T_Result:
			return quiet((List *) ((Result *) plan)->resconstantqual, loud);
		case T_Material:
		case T_Append:
		case T_SubqueryScan:
			return true;
		default:
			return false;
	}
}

/*
 * Whether running the subtree 'plan' more or fewer times, or reading more
 * or less of it, can be seen: false unless every node in it is a scan of a
 * table or an index, or a node node_is_quiet knows, with silent expressions
 */
static bool
subtree_is_quiet(Plan *plan, const LoudParams *loud)
{
	ListCell   *lc;

	if (plan == NULL)
		return true;
	if (plan->initPlan != NIL || !quiet(plan->qual, loud) ||
		!quiet(plan->targetlist, loud))
		return false;
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_BitmapAnd:
		case T_BitmapOr:
		case T_Gather:
		case T_GatherMerge:
			break;
		case T_IndexScan:
			if (!quiet(((IndexScan *) plan)->indexqualorig, loud) ||
				!quiet(((IndexScan *) plan)->indexorderbyorig, loud))
				return false;
			break;
		case T_IndexOnlyScan:
			if (!quiet(((IndexOnlyScan *) plan)->recheckqual, loud) ||
				!quiet(((IndexOnlyScan *) plan)->indexorderby, loud))
				return false;
			break;
		case T_BitmapHeapScan:
			if (!quiet(((BitmapHeapScan *) plan)->bitmapqualorig, loud))
				return false;
			break;
		case T_BitmapIndexScan:
			if (!quiet(((BitmapIndexScan *) plan)->indexqualorig, loud))
				return false;
			break;
		default:
			if (!node_is_quiet(plan, loud))
				return false;
			break;
	}
	foreach(lc, other_children(plan))
		if (!subtree_is_quiet(lfirst(lc), loud))
			return false;
	return subtree_is_quiet(plan->lefttree, loud) &&
		subtree_is_quiet(plan->righttree, loud);
}

/*
 * Whether a filter may go below 'plan' into its child 'child' (NULL: every
 * child): the work 'plan' does per row it reads is then the same, whatever
 * rows the filter removed, to anyone watching.  So 'plan' must be quiet,
 * and for a join, the other side, which the join reads more or less of, or
 * rescans, as the rows from 'child' come, quiet as a whole.  A filter above
 * any other node would change the calls of volatile functions, what leaky
 * functions see and whether an error is raised.
 */
static bool
passes_quietly(Plan *plan, Plan *child, const LoudParams *loud)
{
	if (!node_is_quiet(plan, loud))
		return false;
	if (IsA(plan, NestLoop) || IsA(plan, MergeJoin) || IsA(plan, HashJoin))
		return subtree_is_quiet(child == plan->lefttree ? plan->righttree :
								plan->lefttree, loud);
	return true;
}

/*
 * How many times 'child' runs while 'plan' runs 'loops' times: a nested
 * loop's inner side once per outer row; the input of a Material or a Hash
 * once, unless a parameter changes it
 */
static double
child_runs(Plan *plan, Plan *child, double loops)
{
	if (IsA(plan, NestLoop) && child == innerPlan(plan))
		return loops * Max(outerPlan(plan)->plan_rows, 1.0);
	if ((IsA(plan, Material) || IsA(plan, Hash)) &&
		bms_is_empty(plan->allParam))
		return 1.0;
	return loops;
}

/*
 * Follows output column attno of *slot down to the nodes that produce it,
 * appending a site for each (several under an Append).  A node passes the
 * column on from a child when its target list entry is a plain reference to
 * the child's column and every row it emits with a value of the column
 * comes from a child row with that value: joins, Sort, Material, Hash,
 * Result over a child, Append, MergeAppend, SubqueryScan.  Anything else is
 * itself the site, unless a probe cannot stand above it: a Hash (its join
 * needs it as its direct child), the inner side of a merge join (it is
 * marked and restored), an asynchronous scan (its Append must see it).
 * 'work' is what the rows of *slot cost up to the join (see Trace).
 */
bool
trace_column(Plan **slot, AttrNumber attno, bool may_wrap, double work,
			 Trace *t)
{
	Plan	   *plan = *slot;
	TargetEntry *tle;
	Var		   *var;
	Plan	  **child = NULL;
	bool		child_may_wrap = true;
	bool		found = false;

	if (attno < 1 || attno > list_length(plan->targetlist))
		return false;
	tle = list_nth_node(TargetEntry, plan->targetlist, attno - 1);
	var = (Var *) strip_relabel(tle->expr);
	if (var && IsA(var, Var) && var->varattno > 0)
	{
		switch (nodeTag(plan))
		{
			case T_NestLoop:
			case T_MergeJoin:
			case T_HashJoin:
				if (var->varno == OUTER_VAR)
					child = &plan->lefttree;
				else if (var->varno == INNER_VAR)
				{
					child = &plan->righttree;
					child_may_wrap = !IsA(plan, MergeJoin);
				}
				break;
			case T_Hash:
			case T_Sort:
			case T_IncrementalSort:
			case T_Material:
			case T_Result:
				if (var->varno == OUTER_VAR && plan->lefttree)
					child = &plan->lefttree;
				break;
			case T_Append:
			case T_MergeAppend:
				{
					List	   *children = IsA(plan, Append) ?
						((Append *) plan)->appendplans :
						((MergeAppend *) plan)->mergeplans;
					ListCell   *lc;

					if (var->varno != OUTER_VAR ||
						!passes_quietly(plan, NULL, t->loud))
						break;
					foreach(lc, children)
						found |= trace_column((Plan **) &lfirst(lc),
											  var->varattno, true, work, t);
				}
				break;
			case T_SubqueryScan:
				if (var->varno == ((Scan *) plan)->scanrelid)
					child = &((SubqueryScan *) plan)->subplan;
				break;
			default:
				break;
		}
	}
	if (child && passes_quietly(plan, *child, t->loud))
	{
		bool		blocking = IsA(plan, Hash) || IsA(plan, Sort) ||
			IsA(plan, IncrementalSort);
		double		loops = t->loops;
		double		runs = child_runs(plan, *child, loops);

		t->below_blocking += blocking;
		t->loops = runs;
		found = trace_column(child, var->varattno, child_may_wrap,
							 work + row_cost(plan, *child) *
							 (*child)->plan_rows * runs,
							 t);
		t->loops = loops;
		t->below_blocking -= blocking;
	}
	if (found)
		return true;
	if (!may_wrap || IsA(plan, Hash) || plan->async_capable)
		return false;
	t->sites = lappend(t->sites, slot);
	t->attnos = lappend_int(t->attnos, attno);
	t->site_rows += plan->plan_rows * t->loops;
	t->work += work;
	t->blocked |= t->below_blocking > 0;
	return true;
}

bool
same_sites(List *a, List *b)
{
	ListCell   *la,
			   *lb;

	if (list_length(a) != list_length(b))
		return false;
	forboth(la, a, lb, b)
		if (lfirst(la) != lfirst(lb))
			return false;
	return true;
}
