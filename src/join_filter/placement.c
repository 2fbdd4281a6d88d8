/*
 * placement.c
 *		Automatic Bloom join filters, the planner's side: a planner_hook that
 *		post-processes the finished plan.
 *
 * For each Hash Join that may drop probe rows (inner, semi, right, right
 * anti, right semi: never a preserved side, never an anti join's outer
 * side) it
 *   - puts a "join build" node (build.c) between the Hash and its child: it
 *	   passes the child's rows on unchanged and adds each row's keys (the
 *	   Hash's own key expressions) to the filter; at the child's end the
 *	   filter is complete;
 *   - follows the join's probe keys down through the nodes that pass a
 *	   column on unchanged (trace.c) to the nodes that produce them,
 *	   normally base scans, and puts a "join probe" node (probe.c) above each
 *	   of them: it passes the rows on that may have a partner and drops the
 *	   others; a probe node over a sequential scan then gives way to the join
 *	   scan (join_scan.c);
 *   - links the two through an executor parameter slot of its own, which
 *	   holds the filter (a pointer, in this process's executor state only).
 *
 * A row that the filter drops is one that the join would discard: its keys
 * (which reach the join unchanged) hash, with the hash function of the join
 * operator's hash operator family and the join's collation, to a value the
 * build side never had, and that family's hash functions agree on equal
 * values whatever the types (int4 = int8, numeric 1.0 = 1.00, float -0 = 0,
 * a nondeterministic collation).  A NULL key never matches a strict
 * operator.  Rows derived from a dropped row further up carry its key, or a
 * NULL key where an outer join lost it, and the join discards them too.
 *
 * A Hash whose subtree depends on executor parameters is left alone (the
 * join may rebuild it after it reads a probe row), and so are probe sites
 * across a Gather (the workers do not see the slot).  A postgres_fdw probe
 * scan gets the test in its remote query (fdw.c).
 *
 * bloomfilter.join_filter: off; on (where the planner's estimates say the
 * filter pays, and a probe site stops testing a filter that removes too few
 * rows); always (every join that can take one; for tests).
 *
 * Owns the candidates (consider_join), the cost decision (filter_pays, on
 * trace.c's filter_net_saving),
 * the placement of the nodes, the hooks (join_filter_init).  Calls every
 * other file of the folder, through join_filter_int.h; none calls it.
 */
#include "join_filter_int.h"

#include "access/hash.h"
#include "access/transam.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

int			join_filter_mode = JOIN_FILTER_ON;	/* bloomfilter.join_filter */

static planner_hook_type prev_planner_hook = NULL;

/*
 * The hash support function (HASHEXTENDED_PROC) of a built-in hash operator
 * family of opno for 'type', or InvalidOid.  Only built-in families: their
 * hash functions neither call user code nor fail on a valid value.
 */
static Oid
hash_proc_for(Oid opno, Oid type)
{
	CatCList   *catlist = SearchSysCacheList1(AMOPOPID, ObjectIdGetDatum(opno));
	Oid			result = InvalidOid;

	for (int i = 0; i < catlist->n_members && !OidIsValid(result); i++)
	{
		Form_pg_amop aform = (Form_pg_amop) GETSTRUCT(&catlist->members[i]->tuple);

		if (aform->amopmethod != HASH_AM_OID ||
			aform->amopstrategy != HTEqualStrategyNumber ||
			aform->amopfamily >= FirstNormalObjectId)
			continue;
		result = get_opfamily_proc(aform->amopfamily, type, type,
								   HASHEXTENDED_PROC);
		if (OidIsValid(result) && result >= FirstNormalObjectId)
			result = InvalidOid;
	}
	ReleaseSysCacheList(catlist);
	return result;
}

/* Join types whose unmatched probe (outer) rows never reach the output */
static bool
drops_unmatched_outer(JoinType jointype)
{
	switch (jointype)
	{
		case JOIN_INNER:
		case JOIN_SEMI:
		case JOIN_RIGHT:
			return true;
		default:
			return BF_JOIN_RIGHT_ONLY(jointype);
	}
}

/* The expected fraction of probe rows with a partner, from the estimates */
static double
match_fraction(HashJoin *join)
{
	double		outer_rows = outerPlan(join)->plan_rows;
	double		m;

	if (outer_rows <= 0)
		return 1.0;
	m = join->join.plan.plan_rows / outer_rows;
	return Min(Max(m, 0.0), 1.0);
}

/*
 * Whether the filter pays, from the estimates (filter_net_saving): the rows
 * it should remove each save what they would cost on their way up, the work
 * of the nodes between the sites and the join and the join's own probe
 */
static bool
filter_pays(HashJoin *join, double site_rows, double work,
			const bf_params *params)
{
	return filter_net_saving(match_fraction(join), site_rows,
							 outerPlan(join)->plan_rows,
							 work + probe_cost(join) * outerPlan(join)->plan_rows,
							 outerPlan(innerPlan(join))->plan_rows,
							 (double) params->total_bytes) > 0;
}

/*
 * The keys a filter is planned for: the build side's rows, in all
 * participants of a Parallel Hash (which share one filter)
 */
static double
build_keys(Hash *hash)
{
	return hash->plan.parallel_aware ? hash->rows_total :
		outerPlan(hash)->plan_rows;
}

/*
 * Looks at one hash join; adds a Candidate when it may take a filter (and,
 * unless join_filter = always, when the filter pays)
 */
static void
consider_join(Surgery *s, HashJoin *join)
{
	Hash	   *hash = (Hash *) innerPlan(join);
	List	   *probe_procs = NIL,
			   *build_procs = NIL,
			   *keys = NIL;
	List	   *best_sites = NIL,
			   *best_attnos = NIL;
	double		site_rows = 0.0,
				work = 0.0;
	bool		blocked = false;
	Candidate  *c;
	bf_params	params;
	Bitmapset  *params_used;
	ListCell   *lc,
			   *lo;

	if (!drops_unmatched_outer(join->join.jointype) || !IsA(hash, Hash) ||
#ifdef PG_HAVE_ATOMIC_U64_SIMULATION
		hash->plan.parallel_aware ||
#endif
		list_length(join->hashkeys) != list_length(hash->hashkeys))
		return;

	/*
	 * A build side that depends on executor parameters is not filtered: the
	 * join may rebuild it only after it has read a probe row.  A Parallel
	 * Hash depends on its Gather's rescan parameter, which changes only when
	 * the whole parallel plan starts again, and it never reads a probe row
	 * before it builds.  Under a ModifyTable or LockRows every node depends
	 * on their EvalPlanQual parameter, which changes only in the copy of the
	 * plan that rechecks a row updated concurrently, where no filter is
	 * built (begin_build).
	 */
	params_used = bms_difference(hash->plan.allParam, s->epq_params);
	if (hash->plan.parallel_aware)
		params_used = bms_difference(params_used, s->gather_params);
	if (!bms_is_empty(params_used))
		return;

	/*
	 * The keys that a hash function covers, traced to where their values are
	 * made; a filter tests the keys that reach the same sites as the first
	 * key that reaches any
	 */
	forboth(lc, join->hashkeys, lo, join->hashoperators)
	{
		int			i = foreach_current_index(lc);
		Oid			opno = lfirst_oid(lo);
		Expr	   *outer_key = strip_relabel(lfirst(lc));
		Expr	   *inner_key = list_nth(hash->hashkeys, i);
		Oid			probe_proc,
					build_proc;
		Oid			lefttype,
					righttype;
		Trace		t = {.loud = &s->loud, .loops = 1.0};

		if (!op_strict(opno) || !IsA(outer_key, Var) ||
			((Var *) outer_key)->varno != OUTER_VAR)
			continue;
		op_input_types(opno, &lefttype, &righttype);
		probe_proc = hash_proc_for(opno, lefttype);
		build_proc = hash_proc_for(opno, righttype);
		/* (the build node computes the key again: it must be silent) */
		if (!OidIsValid(probe_proc) || !OidIsValid(build_proc) ||
			!kinds_agree(probe_proc, build_proc,
						 list_nth_oid(join->hashcollations, i)) ||
			exprType((Node *) inner_key) == InvalidOid ||
			expression_is_loud((Node *) inner_key, &s->loud))
			continue;
		if (!trace_column(&join->join.plan.lefttree,
						  ((Var *) outer_key)->varattno, true, 0.0, &t))
			continue;
		if (keys == NIL)
		{
			best_sites = t.sites;
			best_attnos = list_make1(t.attnos);
			site_rows = t.site_rows;
			work = t.work;
			blocked = t.blocked;
		}
		else if (same_sites(t.sites, best_sites))
			best_attnos = lappend(best_attnos, t.attnos);
		else
			continue;
		keys = lappend_int(keys, i);
		probe_procs = lappend_oid(probe_procs, probe_proc);
		build_procs = lappend_oid(build_procs, build_proc);
	}
	if (keys == NIL)
		return;

	if (!plan_filter(build_keys(hash), &params))
		return;

	/*
	 * The estimates say what fraction of probe rows the join keeps by all
	 * its keys; a filter that tests only some of them (the others come from
	 * other scans) may keep nearly every row, which they do not say
	 */
	if (join_filter_mode != JOIN_FILTER_ALWAYS &&
		(list_length(keys) < list_length(join->hashkeys) ||
		 !filter_pays(join, site_rows, work, &params)))
		return;

	c = palloc0(sizeof(Candidate));
	c->join = join;
	c->hash = hash;
	c->keys = keys;
	c->probe_procs = probe_procs;
	c->build_procs = build_procs;
	c->sites = best_sites;
	c->site_attnos = best_attnos;
	c->blocked = blocked;
	c->planned_keys = Max(build_keys(hash), 1024.0);
	s->candidates = lappend(s->candidates, c);
}

/* Every node below 'plan' (and plan), children after parents */
typedef void (*PlanVisitor) (Plan *plan, void *arg);

static void
visit_plan(Plan *plan, PlanVisitor visit, void *arg)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	visit(plan, arg);
	foreach(lc, other_children(plan))
		visit_plan(lfirst(lc), visit, arg);
	if (!IsA(plan, CustomScan))
	{
		visit_plan(plan->lefttree, visit, arg);
		visit_plan(plan->righttree, visit, arg);
	}
}

static void
note_node_id(Plan *plan, void *arg)
{
	Surgery    *s = arg;
	ListCell   *lc;

	s->next_node_id = Max(s->next_node_id, plan->plan_node_id + 1);
	if (IsA(plan, Gather) && ((Gather *) plan)->rescan_param >= 0)
		s->gather_params = bms_add_member(s->gather_params,
										  ((Gather *) plan)->rescan_param);
	if (IsA(plan, GatherMerge) && ((GatherMerge *) plan)->rescan_param >= 0)
		s->gather_params = bms_add_member(s->gather_params,
										  ((GatherMerge *) plan)->rescan_param);
	if (IsA(plan, ModifyTable))
		s->epq_params = bms_add_member(s->epq_params,
									   ((ModifyTable *) plan)->epqParam);
	if (IsA(plan, LockRows))
		s->epq_params = bms_add_member(s->epq_params,
									   ((LockRows *) plan)->epqParam);
	foreach(lc, plan->initPlan)
	{
		ListCell   *lp;

		foreach(lp, lfirst_node(SubPlan, lc)->setParam)
			s->loud.initplan_params =
				bms_add_member((Bitmapset *) s->loud.initplan_params,
							   lfirst_int(lp));
	}
}

static void
note_join(Plan *plan, void *arg)
{
	if (IsA(plan, HashJoin))
		consider_join((Surgery *) arg, (HashJoin *) plan);
}

/* A pass-through node of 'kind' above 'child', as the child's parent sees it */
static CustomScan *
pass_through_node(Surgery *s, Plan *child, const CustomScanKind *kind)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *plan = &cscan->scan.plan;
	ListCell   *lc;

	plan->startup_cost = child->startup_cost;
	plan->total_cost = child->total_cost;
	plan->plan_rows = child->plan_rows;
	plan->plan_width = child->plan_width;
	plan->parallel_aware = false;
	plan->parallel_safe = child->parallel_safe;
	BF_COPY_DISABLED_NODES(plan, child);
	plan->plan_node_id = s->next_node_id++;
	plan->extParam = bms_copy(child->extParam);
	plan->allParam = bms_copy(child->allParam);
	foreach(lc, child->targetlist)
	{
		TargetEntry *tle = lfirst(lc);
		Var		   *var = makeVar(OUTER_VAR, tle->resno,
								  exprType((Node *) tle->expr),
								  exprTypmod((Node *) tle->expr),
								  exprCollation((Node *) tle->expr), 0);

		plan->targetlist = lappend(plan->targetlist,
								   makeTargetEntry((Expr *) var, tle->resno,
												   tle->resname,
												   tle->resjunk));
	}
	/* for EXPLAIN VERBOSE, which finds OUTER_VAR's plan as lefttree */
	plan->lefttree = child;
	cscan->scan.scanrelid = 0;
	cscan->flags = 0;
	cscan->custom_plans = list_make1(child);
	cscan->methods = &kind->methods;
	return cscan;
}

static Var *
outer_var_of(Plan *plan, AttrNumber attno)
{
	TargetEntry *tle = list_nth_node(TargetEntry, plan->targetlist, attno - 1);

	return makeVar(OUTER_VAR, attno, exprType((Node *) tle->expr),
				   exprTypmod((Node *) tle->expr),
				   exprCollation((Node *) tle->expr), 0);
}

/* The probe sites of c: a probe node above each, or one more test in it */
static void
place_probes(Surgery *s, Candidate *c)
{
	ListCell   *ls;

	foreach(ls, c->sites)
	{
		Plan	  **slot = lfirst(ls);
		int			si = foreach_current_index(ls);
		CustomScan *probe;
		Plan	   *child;
		List	   *test = list_make2(makeInteger(c->paramid),
									  makeInteger(c->number));
		List	   *vars = NIL;
		ListCell   *lk;
		double		m;

		if (IsA(*slot, CustomScan) &&
			((CustomScan *) *slot)->methods == &join_probe_kind.methods)
			probe = (CustomScan *) *slot;
		else
		{
			probe = pass_through_node(s, *slot, &join_probe_kind);
			*slot = &probe->scan.plan;
		}
		child = linitial(probe->custom_plans);
		foreach(lk, c->keys)
		{
			int			k = foreach_current_index(lk);
			AttrNumber	attno = list_nth_int(list_nth(c->site_attnos, k), si);

			test = lappend(test, list_make3(makeInteger(attno),
											OidNode(list_nth_oid(c->probe_procs, k)),
											OidNode(list_nth_oid(c->join->hashcollations,
																 lfirst_int(lk)))));
			vars = lappend(vars, outer_var_of(child, attno));
		}
		probe->custom_private = lappend(probe->custom_private, test);
		probe->custom_exprs = lappend(probe->custom_exprs, vars);
		/* the estimate of the rows that go on */
		m = match_fraction(c->join);
		probe->scan.plan.plan_rows =
			clamp_row_est(probe->scan.plan.plan_rows * (m + (1 - m) * JF_FPR));
	}
}

static void
place_build(Surgery *s, Candidate *c)
{
	CustomScan *build = pass_through_node(s, outerPlan(c->hash), &join_build_kind);
	List	   *fdw = NIL;
	List	   *private;
	ListCell   *lk;

	foreach(lk, c->fdw_params)
		fdw = lappend(fdw, makeInteger(lfirst_int(lk)));
	if (fdw != NIL)
		fdw = lcons(OidNode(c->fdw_elem_type), fdw);
	private = list_make4(makeInteger(c->paramid), makeInteger(c->number),
						 makeString(psprintf("%.0f", c->planned_keys)), fdw);

	foreach(lk, c->keys)
	{
		int			k = foreach_current_index(lk);

		private = lappend(private,
						  list_make2(OidNode(list_nth_oid(c->build_procs, k)),
									 OidNode(list_nth_oid(c->join->hashcollations,
														  lfirst_int(lk)))));
		build->custom_exprs = lappend(build->custom_exprs,
									  copyObject(list_nth(c->hash->hashkeys,
														  lfirst_int(lk))));
	}
	build->custom_private = private;
	/* a Parallel Hash's build node merges the participants' filters */
	build->scan.plan.parallel_aware = c->hash->plan.parallel_aware;
	outerPlan(c->hash) = &build->scan.plan;
}

static int
by_selectivity(const ListCell *a, const ListCell *b)
{
	double		ma = match_fraction(((Candidate *) lfirst(a))->join);
	double		mb = match_fraction(((Candidate *) lfirst(b))->join);

	return ma < mb ? -1 : ma > mb ? 1 : 0;
}

static void
add_join_filters(PlannedStmt *stmt)
{
	Surgery		s = {.stmt = stmt};
	ListCell   *lc;

	visit_plan(stmt->planTree, note_node_id, &s);
	foreach(lc, stmt->subplans)
		visit_plan(lfirst(lc), note_node_id, &s);

	/* every candidate found on the plan as the planner made it */
	visit_plan(stmt->planTree, note_join, &s);
	foreach(lc, stmt->subplans)
		visit_plan(lfirst(lc), note_join, &s);

	/*
	 * then the probes (their sites may be below a Hash that gets a build),
	 * the most selective filter first: a probe node tests its filters in
	 * the order they come, and a row stops at the first that fails
	 */
	list_sort(s.candidates, by_selectivity);
	foreach(lc, s.candidates)
	{
		Candidate  *c = lfirst(lc);

		c->number = ++s.filters;
		c->paramid = list_length(stmt->paramExecTypes);
		stmt->paramExecTypes = lappend_oid(stmt->paramExecTypes, INTERNALOID);
		place_probes(&s, c);
	}
	foreach(lc, s.candidates)
	{
		Candidate  *c = lfirst(lc);

		wire_fdw_params(&s, c);
		place_build(&s, c);

		/*
		 * A hash join whose probe side starts for less than its Hash costs
		 * reads a probe row before it builds (to skip the build when there
		 * is none): a Hash or a Sort between it and a site would then read
		 * all of the site's rows before the filter is complete, and they
		 * would all pass.  It builds first instead.
		 */
		if (c->blocked)
			outerPlan(c->join)->startup_cost =
				Max(outerPlan(c->join)->startup_cost, c->hash->plan.total_cost);

		/*
		 * The remote cursor opens on the first probe row, with the filter's
		 * value then: if the join reads one before it builds (to skip the
		 * build when the probe side is empty, which it does when the probe
		 * side costs less to start than the build side to finish), every
		 * remote row comes.  A probe node right below the join says it
		 * starts no sooner than the build finishes.
		 */
		if (c->fdw_params != NIL)
		{
			Plan	   *outer = outerPlan(c->join);

			if (IsA(outer, CustomScan) &&
				((CustomScan *) outer)->methods == &join_probe_kind.methods)
				outer->startup_cost = Max(outer->startup_cost,
										  c->hash->plan.total_cost);
		}
	}
	if (fdw_placeholders_made())
	{
		visit_plan(stmt->planTree, null_unwired, NULL);
		foreach(lc, stmt->subplans)
			visit_plan(lfirst(lc), null_unwired, NULL);
	}

	/*
	 * A probe node over a sequential scan gives way to the join scan, which
	 * tests the same filters as it reads the table, a few rows ahead
	 */
	foreach(lc, s.candidates)
	{
		ListCell   *ls;

		foreach(ls, ((Candidate *) lfirst(lc))->sites)
		{
			Plan	  **slot = lfirst(ls);
			Plan	   *scan;

			if (IsA(*slot, CustomScan) &&
				((CustomScan *) *slot)->methods == &join_probe_kind.methods &&
				(scan = join_scan_for(linitial(((CustomScan *) *slot)->custom_plans),
									  (CustomScan *) *slot, stmt->rtable)) != NULL)
				*slot = scan;
		}
	}
}

static PlannedStmt *
join_filter_planner(Query *parse, const char *query_string, int cursorOptions,
					ParamListInfo boundParams)
{
	PlannedStmt *stmt;
	FdwPlanning outer;

	/* (the planner plans queries of SQL functions inside this one) */
	fdw_planning_begin(&outer);
	PG_TRY();
	{
		if (prev_planner_hook)
			stmt = prev_planner_hook(parse, query_string, cursorOptions,
									 boundParams);
		else
			stmt = standard_planner(parse, query_string, cursorOptions,
									boundParams);
		if (join_filter_mode != JOIN_FILTER_OFF &&
			stmt->commandType != CMD_UTILITY)
			add_join_filters(stmt);
	}
	PG_FINALLY();
	{
		fdw_planning_end(&outer);
	}
	PG_END_TRY();
	return stmt;
}

void
join_filter_init(void)
{
	RegisterCustomScanMethods(&join_build_kind.methods);
	RegisterCustomScanMethods(&join_probe_kind.methods);
	fdw_install_hook();
	join_paths_install();
	prev_planner_hook = planner_hook;
	planner_hook = join_filter_planner;
}
