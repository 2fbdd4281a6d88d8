/*
 * prefetch_scan.c
 *		A sequential scan that tests a Bloom filter a few rows ahead.
 *
 * WHERE f @> col, with f the same for the whole scan (a constant, or a
 * scalar subquery run once), costs one cache miss per row: the executor
 * needs each row's answer before it reads the next row, so a plain qual
 * cannot overlap one row's miss with the work of the next.  This custom
 * scan can: it reads rows a few ahead of the one it returns,
 * hashes each row's element as it is read and prefetches the block the
 * test will touch, and tests the row when it leaves the queue, by which
 * time the block has arrived.  Quals the planner orders before the filter
 * test are tested as each row is read (only the rows they pass are
 * hashed); the quals after it, the projection and everything else are
 * those of a sequential scan.
 *
 * set_rel_pathlist_hook offers it for a table whose restriction list has
 * such a clause, at a little less than the sequential scan's cost; the
 * clause then leaves the plan's qual and the scan evaluates it.  The
 * operator's restriction estimator lives in this library, so the library
 * is loaded before the planner looks for paths.  SET bloomfilter.prefetch_scan
 * = off turns it off.
 */
#include "bloomfilter.h"

#include "access/relscan.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "miscadmin.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "commands/explain.h"

/* Slots of the ring of rows read ahead: the most rows read ahead */
#define PREFETCH_RING	16

/*
 * Rows read ahead: enough to cover a miss at this scan's pace (some 70 ns a
 * row).  Measured side by side, 4 to 8 rows cost less than 16 or 32 with a
 * filter that the last-level cache holds; a larger one misses to DRAM and
 * gains from 16.
 */
#define PREFETCH_NEAR	8
#define PREFETCH_FAR	PREFETCH_RING
#define PREFETCH_FAR_BYTES	(32 * 1024 * 1024)

extern Datum bloomfilter_contains(PG_FUNCTION_ARGS);
extern Datum bloomfilter_contained(PG_FUNCTION_ARGS);

static bool prefetch_scan_enabled = true;
static set_rel_pathlist_hook_type prev_pathlist_hook = NULL;

typedef struct PrefetchScanState
{
	CustomScanState css;
	Expr	   *clause;			/* the filter test, for EXPLAIN */
	ExprState  *filter_expr;	/* the filter, evaluated once per scan */
	ExprState  *elem_expr;		/* the element, per row */
	ExprState  *before;			/* quals tested before the filter, or NULL */
	AttrNumber	elem_attno;		/* or the column it is, when it is one */
	ElementHasher hasher;
	bool		have_filter;	/* filter evaluated for this scan */
	bool		filter_null;	/* ... and NULL: no row passes */
	FilterBuf	filter;			/* aligned copy of the filter */
	TableScanDesc scan;
	TupleTableSlot *fetched;	/* what the table AM returns a row in */
	bool		own_headers;	/* heap slots: rows straight into the ring */
	bool		eof;
	int			depth;			/* rows read ahead, for this filter */
	TupleTableSlot *ring[PREFETCH_RING];
	/* each row's hash, its halves apart (see read_ahead) */
	uint64		hash_lo[PREFETCH_RING];
	uint64		hash_hi[PREFETCH_RING];
	bool		elem_null[PREFETCH_RING];
	int			head;
	int			count;
	double		removed;		/* rows the filter test refused */
	double		removed_first;	/* rows 'before' refused */
} PrefetchScanState;

static Plan *plan_prefetch_path(PlannerInfo *root, RelOptInfo *rel,
								CustomPath *best_path, List *tlist,
								List *clauses, List *custom_plans);
static Node *create_prefetch_state(CustomScan *cscan);
static void begin_prefetch_scan(CustomScanState *node, EState *estate,
								int eflags);
static TupleTableSlot *exec_prefetch_scan(CustomScanState *node);
static void end_prefetch_scan(CustomScanState *node);
static void rescan_prefetch_scan(CustomScanState *node);
static void explain_prefetch_scan(CustomScanState *node, List *ancestors,
								  ExplainState *es);
static Size estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						   void *coordinate);
static void reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
							 void *coordinate);
static void initialize_worker(CustomScanState *node, shm_toc *toc,
							  void *coordinate);

static const CustomPathMethods path_methods = {
	.CustomName = "bloomfilter prefetch",
	.PlanCustomPath = plan_prefetch_path,
};

static const CustomScanMethods scan_methods = {
	.CustomName = "bloomfilter prefetch",
	.CreateCustomScanState = create_prefetch_state,
};

static const CustomExecMethods exec_methods = {
	.CustomName = "bloomfilter prefetch",
	.BeginCustomScan = begin_prefetch_scan,
	.ExecCustomScan = exec_prefetch_scan,
	.EndCustomScan = end_prefetch_scan,
	.ReScanCustomScan = rescan_prefetch_scan,
	.EstimateDSMCustomScan = estimate_dsm,
	.InitializeDSMCustomScan = initialize_dsm,
	.ReInitializeDSMCustomScan = reinitialize_dsm,
	.InitializeWorkerCustomScan = initialize_worker,
	.ExplainCustomScan = explain_prefetch_scan,
};

/* ----------------------------------------------------------------------
 * Planning
 * ---------------------------------------------------------------------- */

/*
 * If 'clause' is  filter @> elem  or  elem <@ filter  with one of this
 * library's functions, a filter fixed for the scan (no Vars, nothing
 * volatile, no subplan run per row) and an element that is not itself a
 * filter, sets *filter and *elem.
 */
static bool
match_clause(Expr *clause, Expr **filter, Expr **elem)
{
	OpExpr	   *op;
	FmgrInfo	finfo;
	int			filter_arg;

	if (!IsA(clause, OpExpr))
		return false;
	op = (OpExpr *) clause;
	if (list_length(op->args) != 2)
		return false;
	set_opfuncid(op);			/* clauses the planner made may lack it */
	fmgr_info(op->opfuncid, &finfo);
	if (finfo.fn_addr == bloomfilter_contains)
		filter_arg = 0;
	else if (finfo.fn_addr == bloomfilter_contained)
		filter_arg = 1;
	else
		return false;
	*filter = (Expr *) list_nth(op->args, filter_arg);
	*elem = (Expr *) list_nth(op->args, 1 - filter_arg);
	if (contain_var_clause((Node *) *filter) ||
		contain_volatile_functions((Node *) *filter) ||
		contain_subplans((Node *) *filter) ||
		contain_volatile_functions((Node *) *elem) ||
		contain_subplans((Node *) *elem) ||
		exprType((Node *) *elem) == exprType((Node *) *filter))
		return false;
	return true;
}

/*
 * The first clause the scan can take over, or NULL.  None when the table
 * has security quals (row-level security, a security-barrier view): the
 * scan tests its clause first, and bloomfilter_contains is not leakproof.
 */
static RestrictInfo *
find_clause(RelOptInfo *rel)
{
	ListCell   *lc;

	foreach(lc, rel->baserestrictinfo)
	{
		if (lfirst_node(RestrictInfo, lc)->security_level > 0)
			return NULL;
	}
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		Expr	   *filter,
				   *elem;

		if (!rinfo->pseudoconstant &&
			match_clause(rinfo->clause, &filter, &elem))
			return rinfo;
	}
	return NULL;
}

/*
 * A path of the scan at a sequential scan's cost less a little (the misses
 * overlap): serial, or parallel-aware over 'workers' workers
 */
static void
add_path_like_seqscan(PlannerInfo *root, RelOptInfo *rel, int workers)
{
	Path	   *seq = create_seqscan_path(root, rel, NULL, workers);
	CustomPath *cpath = makeNode(CustomPath);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = rel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = workers > 0;
	cpath->path.parallel_safe = workers > 0;
	cpath->path.parallel_workers = workers;
	cpath->path.rows = seq->rows;
	cpath->path.startup_cost = seq->startup_cost;
	cpath->path.total_cost = seq->total_cost -
		0.5 * cpu_operator_cost * seq->rows;
	cpath->path.pathkeys = NIL;
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->methods = &path_methods;
	if (workers > 0)
		add_partial_path(rel, &cpath->path);
	else
		add_path(rel, &cpath->path);
}

static void
add_prefetch_path(PlannerInfo *root, RelOptInfo *rel, Index rti,
				  RangeTblEntry *rte)
{
	int			workers;

	if (!prefetch_scan_enabled ||
		(rel->reloptkind != RELOPT_BASEREL &&
		 rel->reloptkind != RELOPT_OTHER_MEMBER_REL) ||
		rte->rtekind != RTE_RELATION || rte->tablesample != NULL ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
		rel->lateral_relids != NULL || find_clause(rel) == NULL)
		return;

	add_path_like_seqscan(root, rel, 0);
	/* and a parallel one where the planner would consider a parallel seq scan */
	if (rel->consider_parallel && rel->lateral_relids == NULL)
	{
		workers = compute_parallel_worker(rel, rel->pages, -1,
										  max_parallel_workers_per_gather);
		if (workers > 0)
			add_path_like_seqscan(root, rel, workers);
	}
}

static void
prefetch_pathlist_hook(PlannerInfo *root, RelOptInfo *rel, Index rti,
					   RangeTblEntry *rte)
{
	if (prev_pathlist_hook)
		prev_pathlist_hook(root, rel, rti, rte);
	add_prefetch_path(root, rel, rti, rte);
}

/*
 * The plan: the scan's own clause goes to custom_exprs (filter, element,
 * the whole clause for EXPLAIN), followed by the clauses the planner orders
 * before it (cheaper ones: the scan tests them as it reads a row, and hashes
 * only the rows that pass); the clauses after it stay in the qual.
 */
static Plan *
plan_prefetch_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	RestrictInfo *mine = find_clause(rel);
	List	   *before = NIL,
			   *after = NIL;
	bool		seen = false;
	ListCell   *lc;
	Expr	   *filter,
			   *elem;

	Assert(mine != NULL);
	(void) match_clause(mine->clause, &filter, &elem);
	/* 'clauses' comes in the order the planner would evaluate them */
	foreach(lc, clauses)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo == mine)
			seen = true;
		else if (seen)
			after = lappend(after, rinfo);
		else
			before = lappend(before, rinfo);
	}
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = extract_actual_clauses(after, false);
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_exprs = list_concat(list_make3(filter, elem, mine->clause),
									  extract_actual_clauses(before, false));
	cscan->methods = &scan_methods;
	return &cscan->scan.plan;
}

/* ----------------------------------------------------------------------
 * Execution
 * ---------------------------------------------------------------------- */

static Node *
create_prefetch_state(CustomScan *cscan)
{
	PrefetchScanState *ps = palloc0(sizeof(PrefetchScanState));

	NodeSetTag(ps, T_CustomScanState);
	ps->css.methods = &exec_methods;
	ps->css.flags = cscan->flags;
	return (Node *) ps;
}

static void
begin_prefetch_scan(CustomScanState *node, EState *estate, int eflags)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	Expr	   *elem = lsecond(cscan->custom_exprs);
	int			i;

	/*
	 * ExecInitCustomScan gave the scan a virtual slot and compiled the qual
	 * and the projection for one.  The rows are returned in the table's own
	 * slots (keeping their ctid, deformed only as far as needed), so the
	 * scan slot and both expressions are made again for that slot type.
	 */
	ExecInitScanTupleSlot(estate, &node->ss, RelationGetDescr(rel),
						  table_slot_callbacks(rel));
	node->ss.ps.qual = ExecInitQual(cscan->scan.plan.qual, &node->ss.ps);
	ExecAssignScanProjectionInfoWithVarno(&node->ss, cscan->scan.scanrelid);

	ps->filter_expr = ExecInitExpr(linitial(cscan->custom_exprs), &node->ss.ps);
	ps->elem_expr = ExecInitExpr(elem, &node->ss.ps);
	if (IsA(elem, Var) && ((Var *) elem)->varattno > 0)
		ps->elem_attno = ((Var *) elem)->varattno;
	ps->clause = lthird(cscan->custom_exprs);
	ps->before = ExecInitQual(list_copy_tail(cscan->custom_exprs, 3),
							  &node->ss.ps);
	ps->depth = PREFETCH_NEAR;
	element_hasher_init(&ps->hasher, exprType((Node *) elem),
						estate->es_query_cxt);
	ps->fetched = table_slot_create(rel, &estate->es_tupleTable);
	ps->own_headers = ps->fetched->tts_ops == &TTSOpsBufferHeapTuple;
	for (i = 0; i < PREFETCH_RING; i++)
		ps->ring[i] = table_slot_create(rel, &estate->es_tupleTable);
}

/* The filter of this scan, evaluated and copied once */
static void
load_filter(PrefetchScanState *ps)
{
	ExprContext *econtext = ps->css.ss.ps.ps_ExprContext;
	MemoryContext mcxt = ps->css.ss.ps.state->es_query_cxt;
	Datum		d;

	filterbuf_free(&ps->filter);
	d = ExecEvalExprSwitchContext(ps->filter_expr, econtext, &ps->filter_null);
	if (!ps->filter_null)
		filterbuf_load(&ps->filter, mcxt, (struct varlena *) DatumGetPointer(d));
	ResetExprContext(econtext);
	ps->have_filter = true;
	/*
	 * The ring is empty here (this runs before the scan's first row): its
	 * first 'depth' slots are used, so that a near filter's scan cycles
	 * through fewer slots (and fewer cache lines) too.
	 */
	Assert(ps->count == 0);
	ps->head = 0;
	ps->depth = !ps->filter_null &&
		ps->filter.view.payload_bytes > PREFETCH_FAR_BYTES ?
		PREFETCH_FAR : PREFETCH_NEAR;
}

/* Reads one row into the ring's next place, hashing and prefetching it */
static bool
read_ahead(PrefetchScanState *ps)
{
	int			at = (ps->head + ps->count) % ps->depth;
	TupleTableSlot *slot = ps->ring[at];
	ExprContext *econtext = ps->css.ss.ps.ps_ExprContext;
	Datum		d;

	/*
	 * The heap AM returns each row as a reference to the tuple header in its
	 * scan descriptor, which the next row overwrites: a ring slot of the
	 * heap's kind keeps a copy of that header (the buffer stays pinned by
	 * the slot); another AM's row is copied from a slot of its own.
	 */
	TupleTableSlot *in = ps->own_headers ? slot : ps->fetched;

	for (;;)
	{
		if (!table_scan_getnextslot(ps->scan, ForwardScanDirection, in))
			return false;
		if (ps->own_headers)
		{
			HeapTupleTableSlot *hslot = (HeapTupleTableSlot *) slot;

			if (hslot->tuple != &hslot->tupdata)
			{
				hslot->tupdata = *hslot->tuple;
				hslot->tuple = &hslot->tupdata;
			}
		}
		if (ps->before == NULL)
			break;
		/* the cheaper quals first, as the planner ordered them */
		econtext->ecxt_scantuple = in;
		if (ExecQual(ps->before, econtext))
		{
			ResetExprContext(econtext);
			break;
		}
		ResetExprContext(econtext);
		ps->removed_first++;
		CHECK_FOR_INTERRUPTS();
	}
	/* the filter is evaluated when there is a row to test, as a qual is */
	if (!ps->have_filter)
		load_filter(ps);
	if (ps->filter_null)
		return false;			/* no row passes */
	if (!ps->own_headers)
		ExecCopySlot(slot, ps->fetched);
	if (ps->elem_attno > 0)
		d = slot_getattr(slot, ps->elem_attno, &ps->elem_null[at]);
	else
	{
		econtext->ecxt_scantuple = slot;
		d = ExecEvalExprSwitchContext(ps->elem_expr, econtext,
									  &ps->elem_null[at]);
	}
	if (!ps->elem_null[at])
	{
		bf_hash		h = element_hash(&ps->hasher, d, ps->filter.view.seed);

		/*
		 * Kept as two arrays: compilers copy a bf_hash just returned in two
		 * registers as one 16-byte load of the two 8-byte halves they had
		 * stored, a load that waits for the stores to retire.
		 */
		ps->hash_lo[at] = h.lo;
		ps->hash_hi[at] = h.hi;
		bf_prefetch(&ps->filter.view, h);
	}
	if (ps->elem_attno == 0)
		ResetExprContext(econtext);
	ps->count++;
	return true;
}

/* The next row that passes the filter test, for ExecScan */
static TupleTableSlot *
next_row(ScanState *ss)
{
	PrefetchScanState *ps = (PrefetchScanState *) ss;

	if (ps->scan == NULL)
		ps->scan = table_beginscan(ss->ss_currentRelation,
								   ss->ps.state->es_snapshot, 0, NULL);
	for (;;)
	{
		int			at;

		while (!ps->eof && ps->count < ps->depth)
			ps->eof = !read_ahead(ps);
		if (ps->count == 0)
			return ExecClearTuple(ss->ss_ScanTupleSlot);
		at = ps->head;
		ps->head = (ps->head + 1) % ps->depth;
		ps->count--;
		if (!ps->elem_null[at])
		{
			bf_hash		h;

			h.lo = ps->hash_lo[at];
			h.hi = ps->hash_hi[at];
			if (bf_contains(&ps->filter.view, h))
				return ps->ring[at];
		}
		ps->removed++;
		CHECK_FOR_INTERRUPTS();
	}
}

/* EvalPlanQual: the row again, against the filter */
static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	PrefetchScanState *ps = (PrefetchScanState *) ss;
	ExprContext *econtext = ss->ps.ps_ExprContext;
	bool		isnull;
	Datum		d;
	bool		pass;

	econtext->ecxt_scantuple = slot;
	if (ps->before && !ExecQual(ps->before, econtext))
	{
		ResetExprContext(econtext);
		return false;
	}
	if (!ps->have_filter)
		load_filter(ps);
	if (ps->filter_null)
		return false;
	econtext->ecxt_scantuple = slot;
	d = ExecEvalExprSwitchContext(ps->elem_expr, econtext, &isnull);
	pass = !isnull &&
		bf_contains(&ps->filter.view,
					element_hash(&ps->hasher, d, ps->filter.view.seed));
	ResetExprContext(econtext);
	return pass;
}

/*
 * count(*) over the scan asks for no column, and the planner does not give
 * a custom scan the table's own targetlist as it gives a sequential scan;
 * rather than project every row into an empty tuple, the scan then returns
 * one empty tuple made once.
 */
static TupleTableSlot *
exec_prefetch_scan(CustomScanState *node)
{
	TupleTableSlot *result = node->ss.ps.ps_ResultTupleSlot;

	if (node->ss.ps.plan->targetlist == NIL && node->ss.ps.qual == NULL &&
		node->ss.ps.state->es_epq_active == NULL)
	{
		TupleTableSlot *row = next_row(&node->ss);

		if (TupIsNull(row))
			return ExecClearTuple(result);
		if (TTS_EMPTY(result))
			ExecStoreVirtualTuple(result);
		return result;
	}
	return ExecScan(&node->ss, next_row, recheck_row);
}

static void
clear_ring(PrefetchScanState *ps)
{
	int			i;

	for (i = 0; i < PREFETCH_RING; i++)
		ExecClearTuple(ps->ring[i]);
	ExecClearTuple(ps->fetched);
	ps->head = 0;
	ps->count = 0;
	ps->eof = false;
}

static void
end_prefetch_scan(CustomScanState *node)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;

	clear_ring(ps);
	if (ps->scan)
		table_endscan(ps->scan);
	ps->scan = NULL;
	filterbuf_free(&ps->filter);
}

static void
rescan_prefetch_scan(CustomScanState *node)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;

	clear_ring(ps);
	if (ps->scan)
		table_rescan(ps->scan, NULL);
	/* a filter that depends on a parameter that changed is read again */
	if (node->ss.ps.chgParam != NULL)
		ps->have_filter = false;
	ExecScanReScan(&node->ss);
}

/*
 * Parallel execution: the table AM's parallel scan hands out blocks to the
 * leader and the workers; each keeps its own read-ahead ring and filter.
 */
static Size
estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return table_parallelscan_estimate(node->ss.ss_currentRelation,
									   node->ss.ps.state->es_snapshot);
}

static void
initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;

	table_parallelscan_initialize(node->ss.ss_currentRelation, coordinate,
								  node->ss.ps.state->es_snapshot);
	ps->scan = table_beginscan_parallel(node->ss.ss_currentRelation,
										coordinate);
}

static void
reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
				 void *coordinate)
{
	table_parallelscan_reinitialize(node->ss.ss_currentRelation, coordinate);
}

static void
initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;

	ps->scan = table_beginscan_parallel(node->ss.ss_currentRelation,
										coordinate);
}

static void
explain_prefetch_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;

	context = set_deparse_context_plan(es->deparse_cxt,
									   node->ss.ps.plan, ancestors);
	if (list_length(cscan->custom_exprs) > 3)
		ExplainPropertyText("Filter First",
							deparse_expression((Node *) make_ands_explicit(list_copy_tail(cscan->custom_exprs, 3)),
											   context, es->verbose, false),
							es);
	ExplainPropertyText("Bloom Filter",
						deparse_expression((Node *) ps->clause, context,
										   es->verbose, false),
						es);
	ExplainPropertyInteger("Rows Read Ahead", NULL, ps->depth, es);
	/* (a parallel scan's workers keep their counts to themselves) */
	if (es->analyze && !node->ss.ps.plan->parallel_aware &&
		node->ss.ps.instrument && node->ss.ps.instrument->nloops > 0)
	{
		if (list_length(cscan->custom_exprs) > 3)
			ExplainPropertyFloat("Rows Removed by Filter First", NULL,
								 ps->removed_first / node->ss.ps.instrument->nloops,
								 0, es);
		ExplainPropertyFloat("Rows Removed by Bloom Filter", NULL,
							 ps->removed / node->ss.ps.instrument->nloops, 0, es);
	}
}

void
prefetch_scan_init(void)
{
	DefineCustomBoolVariable("bloomfilter.prefetch_scan",
							 "Lets a sequential scan test a Bloom filter a few rows ahead.",
							 "A scan whose WHERE clause tests every row against one filter reads rows ahead and prefetches the filter's blocks.",
							 &prefetch_scan_enabled, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	RegisterCustomScanMethods(&scan_methods);
	prev_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = prefetch_pathlist_hook;
}
