/*
 * agg_scan.c
 *		bloomfilter_agg without the aggregate machinery's per-row work.
 *
 * An Agg node spends on every input row an expression step that gathers
 * the arguments, a transition call through fmgr and a reset of the per-row
 * memory: about as much as hashing the element and setting its bits.  For
 * a query whose aggregates are all bloomfilter_agg and that has no GROUP
 * BY, this custom scan takes the Agg's place: it pulls the rows from the
 * same input plan and hashes and adds each element itself, through the
 * same deferred adds (prefetching each element's block a few rows ahead)
 * as the transition function, then returns the one row the Agg would have
 * returned, HAVING and projection included.  The filters are byte for byte
 * those of the Agg.
 *
 * create_upper_paths_hook offers it beside each plain Agg path whose
 * aggregates qualify, at that path's cost less a little: the complete
 * aggregate, and the partial one of a parallel plan, below the Gather (the
 * workers hand their filters to the leader's scan through shared memory,
 * see AggShared, and Finalize Aggregate takes the one it returns).  It
 * does not take aggregates with FILTER, ORDER BY, DISTINCT, volatile
 * arguments or subqueries in their arguments; those stay with the Agg.
 *
 * The library must be loaded before the planner makes grouping paths: the
 * transition functions' planner support function (bloomfilter_agg_support)
 * is called while the aggregates are costed, which loads it.  SET
 * bloomfilter.agg_scan = off turns the scan off.
 */
#include "bloomfilter.h"
#include "custom_scan.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "catalog/pg_aggregate.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/plancat.h"
#include "optimizer/planmain.h"
#include "optimizer/planner.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "storage/condition_variable.h"
#include "storage/dsm.h"
#include "storage/spin.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/wait_event.h"

PG_FUNCTION_INFO_V1(bloomfilter_agg_support);

bool		agg_scan_enabled = true;	/* bloomfilter.agg_scan (module.c) */
static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

/* One bloomfilter_agg of the scan */
typedef struct BloomAgg
{
	int			column;			/* its place in the scan tuple (0-based) */
	AttrNumber	elem_attno;		/* the element is this input column, */
	ExprState  *elem_expr;		/* or this expression */
	List	   *sizing;			/* ExprStates of the sizing arguments */
	Oid			elem_type;
	Oid			elem_collation;
	ElementHasher hasher;		/* set up with the filter, on the first
								 * non-NULL element, as the Agg does */
	bool		started;		/* a non-NULL element came: fb is the filter */
	FilterBuf	fb;
} BloomAgg;

/*
 * Where the participants of a parallel aggregate meet (the DSM the Gather
 * sets up).  Each worker copies its filters into a segment of its own and
 * posts the segment here; the leader merges them into its filters and says
 * so, and then the workers let their segments go.  So the Gather carries
 * one filter, the leader's, instead of one per participant through its
 * tuple queues.
 */
typedef struct AggShared
{
	slock_t		mutex;
	ConditionVariable cv;
	int			posted;			/* workers that posted */
	bool		merged;			/* the leader has merged every post */
	int			nslots;
	dsm_handle	posts[FLEXIBLE_ARRAY_MEMBER];	/* DSM_HANDLE_INVALID: none */
} AggShared;

typedef struct AggScanState
{
	CustomScanState css;
	PlanState  *input;
	int			naggs;
	BloomAgg   *aggs;
	MemoryContext filters;		/* the filters' memory, emptied by a rescan */
	bool		reset_rows;		/* evaluating or hashing may leave garbage */
	bool		done;			/* the row was returned */
	AggShared  *shared;			/* a parallel aggregate's meeting place */
	ParallelContext *pcxt;		/* the leader's: the workers launched */
} AggScanState;

static void forget_filters(AggScanState *as);

/* The method tables, at the end of the file */
static const CustomPathMethods path_methods;
static const CustomScanKind scan_kind;

/*
 * The planner support function of bloomfilter_agg's transition functions.
 * It answers no request (the functions' COST stands); being called while
 * the planner costs the aggregate loads this library, and with it the hook
 * below, before the grouping paths are made.
 */
Datum
bloomfilter_agg_support(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(NULL);
}

/* ----------------------------------------------------------------------
 * Planning
 * ---------------------------------------------------------------------- */

/*
 * Whether the arguments after the element are fixed for the query: the
 * scan evaluates them once, where the Agg evaluates them on every row (and
 * would raise any error they raise, even on rows with a NULL element)
 */
static bool
sizing_args_fixed(List *args)
{
	ListCell   *lc;

	for_each_from(lc, args, 1)
	{
		Node	   *arg = (Node *) lfirst_node(TargetEntry, lc)->expr;

		if (!IsA(arg, Const) &&
			!(IsA(arg, Param) && ((Param *) arg)->paramkind == PARAM_EXTERN))
			return false;
	}
	return true;
}

/* Whether this aggregate call can be computed by the scan */
static bool
aggref_qualifies(Aggref *aggref, AggSplit split)
{
	HeapTuple	tuple;
	Form_pg_aggregate agg;
	Oid			transfn,
				transtype;
	bool		plain;
	FmgrInfo	finfo;

	if (aggref->aggsplit != split || aggref->aggorder != NIL ||
		aggref->aggdistinct != NIL || aggref->aggfilter != NULL ||
		aggref->aggdirectargs != NIL || aggref->aggstar ||
		aggref->agglevelsup != 0 || aggref->aggkind != AGGKIND_NORMAL ||
		aggref->args == NIL ||
		contain_volatile_functions((Node *) aggref->args) ||
		contain_subplans((Node *) aggref->args) ||
		!sizing_args_fixed(aggref->args))
		return false;
	tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggref->aggfnoid));
	if (!HeapTupleIsValid(tuple))
		return false;
	agg = (Form_pg_aggregate) GETSTRUCT(tuple);
	transfn = agg->aggtransfn;
	transtype = agg->aggtranstype;
	/* the result is the state: no final function, no initial value */
	plain = !OidIsValid(agg->aggfinalfn) &&
		heap_attisnull(tuple, Anum_pg_aggregate_agginitval, NULL);
	ReleaseSysCache(tuple);
	if (!plain || !OidIsValid(transfn) ||
		exprType((Node *) linitial_node(TargetEntry, aggref->args)->expr) ==
		transtype)				/* a filter of filters: the Agg says no */
		return false;
	fmgr_info(transfn, &finfo);
	return finfo.fn_addr == bloomfilter_agg_trans;
}

/*
 * The distinct aggregate calls of a plain Agg path when they all qualify,
 * else NIL
 */
static List *
qualifying_aggrefs(AggPath *apath)
{
	List	   *found;
	List	   *aggrefs = NIL;
	ListCell   *lc;

	found = pull_var_clause((Node *) list_make2(apath->path.pathtarget->exprs,
												apath->qual),
							PVC_INCLUDE_AGGREGATES | PVC_RECURSE_WINDOWFUNCS |
							PVC_INCLUDE_PLACEHOLDERS);
	foreach(lc, found)
	{
		Node	   *node = lfirst(lc);

		if (!IsA(node, Aggref) ||
			!aggref_qualifies((Aggref *) node, apath->aggsplit))
			return NIL;
		aggrefs = list_append_unique(aggrefs, node);
	}
	return aggrefs;
}

/* A scan in place of the Agg path 'apath', if its aggregates qualify */
static CustomPath *
agg_scan_path(AggPath *apath, AggSplit split)
{
	CustomPath *cpath;
	List	   *aggrefs;
	Cost		saved;

	if (apath->aggstrategy != AGG_PLAIN || apath->aggsplit != split ||
		apath->groupClause != NIL || apath->path.param_info != NULL)
		return NULL;
	aggrefs = qualifying_aggrefs(apath);
	if (aggrefs == NIL)
		return NULL;

	/* no argument step, fmgr call or memory reset per row */
	saved = 0.5 * cpu_operator_cost * apath->subpath->rows;
	cpath = custom_path_like(&apath->path, &path_methods);
	/* (the partial one meets the other participants: see AggShared) */
	cpath->path.parallel_aware = split == AGGSPLIT_INITIAL_SERIAL;
	cpath->path.startup_cost = Max(apath->path.startup_cost - saved,
								   apath->subpath->total_cost);
	cpath->path.total_cost = cpath->path.startup_cost +
		(apath->path.total_cost - apath->path.startup_cost);
	cpath->custom_paths = list_make1(apath->subpath);
	cpath->custom_private = list_make2(aggrefs, apath->qual);
	return cpath;
}

/*
 * The scan in place of a parallel aggregate's Partial Aggregate: the same
 * Finalize Aggregate over the same Gather, the scan below it
 */
static Path *
parallel_agg_scan_path(PlannerInfo *root, RelOptInfo *rel,
					   GroupPathExtraData *extra, AggPath *final)
{
	GatherPath *gather;
	CustomPath *partial;
	double		rows;

	if (final->aggstrategy != AGG_PLAIN ||
		final->aggsplit != AGGSPLIT_FINAL_DESERIAL ||
		final->groupClause != NIL || !extra->partial_costs_set ||
		!IsA(final->subpath, GatherPath))
		return NULL;
	gather = (GatherPath *) final->subpath;
	if (!IsA(gather->subpath, AggPath) ||
		(partial = agg_scan_path((AggPath *) gather->subpath,
								 AGGSPLIT_INITIAL_SERIAL)) == NULL)
		return NULL;
	rows = gather->path.rows;
	gather = create_gather_path(root, gather->path.parent, &partial->path,
								gather->path.pathtarget, NULL, &rows);
	return &create_agg_path(root, rel, &gather->path, final->path.pathtarget,
							AGG_PLAIN, AGGSPLIT_FINAL_DESERIAL, NIL,
							final->qual, &extra->agg_final_costs,
							final->numGroups)->path;
}

/*
 * Offers the scan beside each plain Agg path of the grouping relation,
 * serial or parallel.  (PostgreSQL 15 calls the hook for the complete
 * aggregate only: the parallel alternative is built here whole.)
 */
static void
agg_upper_paths_hook(PlannerInfo *root, UpperRelationKind stage,
					 RelOptInfo *input_rel, RelOptInfo *output_rel,
					 void *extra)
{
	List	   *made = NIL;
	ListCell   *lc;

	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (!agg_scan_enabled || stage != UPPERREL_GROUP_AGG ||
		root->parse->groupingSets != NIL)
		return;
	/* (add_path changes the list being read) */
	foreach(lc, output_rel->pathlist)
	{
		AggPath    *apath = lfirst(lc);
		Path	   *path;

		if (!IsA(apath, AggPath))
			continue;
		path = apath->aggsplit == AGGSPLIT_SIMPLE ?
			(Path *) agg_scan_path(apath, AGGSPLIT_SIMPLE) :
			parallel_agg_scan_path(root, output_rel, extra, apath);
		if (path)
			made = lappend(made, path);
	}
	foreach(lc, made)
		add_path(output_rel, lfirst(lc));
}

/*
 * A sequential scan below an Agg returns the table's own rows (a "physical"
 * targetlist) rather than projecting the few columns the Agg needs; the
 * planner asks exact targetlists of a custom scan's children, so the scan
 * is given the physical one here when all it returns is columns.
 */
static void
scan_whole_rows(PlannerInfo *root, Plan *input)
{
	Index		relid;
	RangeTblEntry *rte;
	List	   *physical;
	ListCell   *lc;

	if (!IsA(input, SeqScan))
		return;
	relid = ((Scan *) input)->scanrelid;
	rte = planner_rt_fetch(relid, root);
	if (rte->rtekind != RTE_RELATION)
		return;
	foreach(lc, input->targetlist)
	{
		Expr	   *expr = lfirst_node(TargetEntry, lc)->expr;

		if (!IsA(expr, Var) || ((Var *) expr)->varno != relid ||
			((Var *) expr)->varattno <= 0)
			return;
	}
	physical = build_physical_tlist(root, find_base_rel(root, relid));
	if (physical != NIL)
		input->targetlist = physical;
}

/*
 * The plan.  The scan tuple (custom_scan_tlist) is the input's columns
 * followed by the aggregates' results: setrefs then makes the aggregates'
 * arguments (custom_exprs, one list per aggregate) read the input row, and
 * the targetlist and the HAVING qual read the results.
 */
static Plan *
plan_agg_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = custom_scan_of(best_path, tlist, &scan_kind);
	Plan	   *input = linitial(custom_plans);
	List	   *aggrefs = linitial(best_path->custom_private);
	List	   *having = lsecond(best_path->custom_private);
	List	   *scan_tlist = NIL;
	List	   *args = NIL;
	ListCell   *lc;

	scan_whole_rows(root, input);
	foreach(lc, input->targetlist)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(lfirst_node(TargetEntry, lc)->expr),
											 list_length(scan_tlist) + 1,
											 NULL, false));
	foreach(lc, aggrefs)
	{
		Aggref	   *aggref = lfirst(lc);

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(aggref),
											 list_length(scan_tlist) + 1,
											 NULL, false));
		args = lappend(args, get_tlist_exprs(aggref->args, false));
	}
	cscan->scan.plan.qual = having;
	cscan->scan.scanrelid = 0;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = args;
	cscan->custom_scan_tlist = scan_tlist;
	/*
	 * custom_private holds nodes only: code that walks plans, Citus's among
	 * them, reads linitial(custom_private) of any CustomScan as a node.
	 */
	cscan->custom_private = list_make1(makeInteger(list_length(input->targetlist)));
	return &cscan->scan.plan;
}

/* ----------------------------------------------------------------------
 * Execution
 * ---------------------------------------------------------------------- */

static void
begin_agg_scan(CustomScanState *node, EState *estate, int eflags)
{
	AggScanState *as = (AggScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	int			first_column = intVal(linitial(cscan->custom_private));
	PlanState  *ps = &node->ss.ps;
	bool		fixed = ps->scanopsfixed;
	ListCell   *lc;
	ElementKind kind;

	as->input = ExecInitNode(linitial(cscan->custom_plans), estate, eflags);
	node->custom_ps = list_make1(as->input);
	as->filters = AllocSetContextCreate(estate->es_query_cxt,
										"bloomfilter agg",
										ALLOCSET_DEFAULT_SIZES);
	as->naggs = list_length(cscan->custom_exprs);
	as->aggs = palloc0(sizeof(BloomAgg) * as->naggs);

	/*
	 * The arguments are evaluated on the input's rows, not on this node's
	 * virtual scan slot: compile them for a slot of any kind.
	 */
	ps->scanopsfixed = false;
	foreach(lc, cscan->custom_exprs)
	{
		BloomAgg   *agg = &as->aggs[foreach_current_index(lc)];
		List	   *args = lfirst(lc);
		Expr	   *elem = linitial(args);

		agg->column = first_column + foreach_current_index(lc);
		if (IsA(elem, Var) && ((Var *) elem)->varno == INDEX_VAR &&
			((Var *) elem)->varattno > 0)
			agg->elem_attno = ((Var *) elem)->varattno;
		else
			agg->elem_expr = ExecInitExpr(elem, ps);
		agg->sizing = ExecInitExprList(list_delete_first(list_copy(args)), ps);
		agg->elem_collation = exprCollation((Node *) elem);
		/* as the aggregate hashes it: by its type before a relabelling */
		while (is_implicit_relabel((Node *) elem))
			elem = ((RelabelType *) elem)->arg;
		agg->elem_type = exprType((Node *) elem);
		/* (the plain kinds free what they allocate) */
		if (agg->elem_expr || !element_plain_kind(agg->elem_type, &kind))
			as->reset_rows = true;
	}
	ps->scanopsfixed = fixed;
}

/* The filter of 'agg', planned from its sizing arguments on this row */
static void
start_filter(AggScanState *as, BloomAgg *agg, ExprContext *econtext)
{
	int			nsizing = list_length(agg->sizing);
	NullableDatum sizing[3];
	bf_params	params;
	ListCell   *lc;

	Assert(nsizing <= lengthof(sizing));
	element_hasher_init(&agg->hasher, agg->elem_type, agg->elem_collation,
						as->css.ss.ps.state->es_query_cxt);
	foreach(lc, agg->sizing)
		sizing[foreach_current_index(lc)].value =
			ExecEvalExpr(lfirst(lc), econtext,
						 &sizing[foreach_current_index(lc)].isnull);
	agg_plan_params(sizing, nsizing, &params);
	filterbuf_create(&agg->fb, as->filters, &params);
	agg->started = true;
}

/* Every input row into the filters */
static void
consume_input(AggScanState *as)
{
	ExprContext *econtext = as->css.ss.ps.ps_ExprContext;
	MemoryContext rowcxt = econtext->ecxt_per_tuple_memory;

	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(as->input);
		MemoryContext oldcxt;
		int			i;

		if (TupIsNull(slot))
			break;
		CHECK_FOR_INTERRUPTS();
		/* hashing may allocate (a detoasted element, a send function) */
		oldcxt = MemoryContextSwitchTo(rowcxt);
		econtext->ecxt_scantuple = slot;
		for (i = 0; i < as->naggs; i++)
		{
			BloomAgg   *agg = &as->aggs[i];
			bool		isnull;
			Datum		d;

			d = agg->elem_attno > 0 ?
				slot_getattr(slot, agg->elem_attno, &isnull) :
				ExecEvalExpr(agg->elem_expr, econtext, &isnull);
			if (isnull)
				continue;
			if (unlikely(!agg->started))
				start_filter(as, agg, econtext);
			filterbuf_add_new_deferred(&agg->fb,
									   element_hash(&agg->hasher, d,
													&agg->fb.b.view));
		}
		MemoryContextSwitchTo(oldcxt);
		if (as->reset_rows)
			MemoryContextReset(rowcxt);
	}
}

/*
 * A worker's end of a parallel aggregate: its filters into a segment of its
 * own, posted, kept until the leader has merged them; the worker then
 * returns NULLs.  (Only when the leader runs the plan too: otherwise every
 * participant returns its filters through the Gather.)
 */
static void
post_filters(AggScanState *as)
{
	AggShared  *sh = as->shared;
	dsm_segment *seg = NULL;
	dsm_handle	handle = DSM_HANDLE_INVALID;
	Size		size = MAXALIGN(sizeof(uint64) * as->naggs);
	int			slot,
				i;

	for (i = 0; i < as->naggs; i++)
	{
		if (as->aggs[i].started)
		{
			filterbuf_flush(&as->aggs[i].fb);
			size = add_size(size, MAXALIGN(VARSIZE(filterbuf_flat(&as->aggs[i].fb))));
		}
	}
	if (size > MAXALIGN(sizeof(uint64) * as->naggs))
	{
		uint64	   *lens;
		char	   *at;

		seg = dsm_create(size, 0);
		lens = dsm_segment_address(seg);
		at = (char *) lens + MAXALIGN(sizeof(uint64) * as->naggs);
		for (i = 0; i < as->naggs; i++)
		{
			BloomAgg   *agg = &as->aggs[i];

			lens[i] = agg->started ? VARSIZE(filterbuf_flat(&agg->fb)) : 0;
			if (lens[i])
			{
				memcpy(at, filterbuf_flat(&agg->fb), lens[i]);
				at += MAXALIGN(lens[i]);
			}
		}
		handle = dsm_segment_handle(seg);
	}

	SpinLockAcquire(&sh->mutex);
	slot = sh->posted < sh->nslots ? sh->posted++ : -1;
	if (slot >= 0)
		sh->posts[slot] = handle;
	SpinLockRelease(&sh->mutex);
	if (slot < 0)
		elog(ERROR, "more bloomfilter agg workers than planned");
	ConditionVariableBroadcast(&sh->cv);

	if (seg)
	{
		ConditionVariablePrepareToSleep(&sh->cv);
		for (;;)
		{
			bool		merged;

			SpinLockAcquire(&sh->mutex);
			merged = sh->merged;
			SpinLockRelease(&sh->mutex);
			if (merged)
				break;
			ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
		}
		ConditionVariableCancelSleep();
		dsm_detach(seg);
	}
	forget_filters(as);
}

/* The workers' filters merged into the leader's */
static void
merge_one(AggScanState *as, const char *post)
{
	const uint64 *lens = (const uint64 *) post;
	const char *at = post + MAXALIGN(sizeof(uint64) * as->naggs);
	int			i;

	for (i = 0; i < as->naggs; i++)
	{
		BloomAgg   *agg = &as->aggs[i];
		struct varlena *bf = (struct varlena *) at;
		bf_filter	view;

		if (lens[i] == 0)
			continue;
		at += MAXALIGN(lens[i]);
		if (!agg->started)
		{
			filterbuf_copy(&agg->fb, as->filters, bf, true);
			agg->started = true;
			continue;
		}
		filter_open(bf, &view);
		filterbuf_merge(&agg->fb, &view, false);
	}
}

/*
 * The leader's end: waits until every worker it launched has posted (a
 * worker that fails raises its error here), merges, and lets them go
 */
static void
merge_posted(AggScanState *as)
{
	AggShared  *sh = as->shared;
	int			expect = as->pcxt ? as->pcxt->nworkers_launched : 0;
	int			posted,
				i;

	if (expect == 0)
		return;
	WaitForParallelWorkersToAttach(as->pcxt);
	ConditionVariablePrepareToSleep(&sh->cv);
	for (;;)
	{
		SpinLockAcquire(&sh->mutex);
		posted = sh->posted;
		SpinLockRelease(&sh->mutex);
		if (posted >= expect)
			break;
		ConditionVariableSleep(&sh->cv, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();

	for (i = 0; i < posted; i++)
	{
		dsm_segment *seg;

		if (sh->posts[i] == DSM_HANDLE_INVALID)
			continue;
		seg = dsm_attach(sh->posts[i]);
		if (seg == NULL)
			elog(ERROR, "could not map a bloomfilter agg worker's segment");
		merge_one(as, dsm_segment_address(seg));
		dsm_detach(seg);
	}
	SpinLockAcquire(&sh->mutex);
	sh->merged = true;
	SpinLockRelease(&sh->mutex);
	ConditionVariableBroadcast(&sh->cv);
}

static TupleTableSlot *
exec_agg_scan(CustomScanState *node)
{
	AggScanState *as = (AggScanState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *result = node->ss.ss_ScanTupleSlot;
	int			i;

	if (as->done)
		return NULL;
	as->done = true;
	consume_input(as);
	if (as->shared && parallel_leader_participation)
	{
		if (IsParallelWorker())
			post_filters(as);
		else
			merge_posted(as);
	}

	ExecClearTuple(result);
	memset(result->tts_isnull, true,
		   sizeof(bool) * result->tts_tupleDescriptor->natts);
	for (i = 0; i < as->naggs; i++)
	{
		BloomAgg   *agg = &as->aggs[i];

		if (agg->started)
		{
			result->tts_values[agg->column] =
				PointerGetDatum(filterbuf_detach(&agg->fb));
			result->tts_isnull[agg->column] = false;
		}
	}
	ExecStoreVirtualTuple(result);

	econtext->ecxt_scantuple = result;
	if (node->ss.ps.qual && !ExecQual(node->ss.ps.qual, econtext))
		return NULL;
	if (node->ss.ps.ps_ProjInfo)
		return ExecProject(node->ss.ps.ps_ProjInfo);
	return result;
}

static void
forget_filters(AggScanState *as)
{
	int			i;

	for (i = 0; i < as->naggs; i++)
	{
		as->aggs[i].started = false;
		memset(&as->aggs[i].fb, 0, sizeof(FilterBuf));
	}
	MemoryContextReset(as->filters);
}

static void
end_agg_scan(CustomScanState *node)
{
	AggScanState *as = (AggScanState *) node;

	ExecEndNode(as->input);
	forget_filters(as);
}

static void
rescan_agg_scan(CustomScanState *node)
{
	AggScanState *as = (AggScanState *) node;

	ExecClearTuple(node->ss.ss_ScanTupleSlot);
	forget_filters(as);
	as->done = false;
	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(as->input, node->ss.ps.chgParam);
	if (as->input->chgParam == NULL)
		ExecReScan(as->input);
}

static Size
estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return add_size(offsetof(AggShared, posts),
					mul_size(sizeof(dsm_handle), Max(pcxt->nworkers, 1)));
}

static void
reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
				 void *coordinate)
{
	AggShared  *sh = coordinate;

	sh->posted = 0;
	sh->merged = false;
}

static void
initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	AggScanState *as = (AggScanState *) node;
	AggShared  *sh = coordinate;

	SpinLockInit(&sh->mutex);
	ConditionVariableInit(&sh->cv);
	sh->nslots = Max(pcxt->nworkers, 1);
	reinitialize_dsm(node, pcxt, coordinate);
	as->shared = sh;
	as->pcxt = pcxt;
}

static void
initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	((AggScanState *) node)->shared = coordinate;
}

static const CustomPathMethods path_methods = {
	.CustomName = "bloomfilter agg", .PlanCustomPath = plan_agg_path,
};

static const CustomExecMethods exec_methods = {
	.CustomName = "bloomfilter agg",
	.BeginCustomScan = begin_agg_scan, .ExecCustomScan = exec_agg_scan,
	.EndCustomScan = end_agg_scan, .ReScanCustomScan = rescan_agg_scan,
	/* parallel query: the workers' filters meet in the leader */
	.EstimateDSMCustomScan = estimate_dsm, .InitializeDSMCustomScan = initialize_dsm,
	.ReInitializeDSMCustomScan = reinitialize_dsm,
	.InitializeWorkerCustomScan = initialize_worker,
};

static const CustomScanKind scan_kind = {
	.methods = {
		.CustomName = "bloomfilter agg",
		.CreateCustomScanState = custom_state_new,
	},
	.state_size = sizeof(AggScanState), .exec = &exec_methods,
};

void
agg_scan_init(void)
{
	RegisterCustomScanMethods(&scan_kind.methods);
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = agg_upper_paths_hook;
}
