/*
 * prefetch_scan.c
 *		A sequential scan that tests a Bloom filter a few rows ahead.
 *
 * WHERE f @> col, with f the same for the whole scan (a constant, or a
 * scalar subquery run once), costs one cache miss per row: the executor
 * needs each row's answer before it reads the next row, so a plain qual
 * cannot overlap one row's miss with the work of the next.  This custom
 * scan can: it reads rows a few ahead of the one it returns, hashes each
 * row's element as it is read and prefetches the block the test will touch,
 * and tests the row when it leaves the queue, by which time the block has
 * arrived.
 *
 * Reading ahead must not show: with the scan on, a query's rows, errors and
 * side effects are those of the sequential scan, however few of its rows the
 * query takes (LIMIT, EXISTS, a cursor fetched in part, a rescan).  So a row
 * read ahead is only fetched, tested against the quals before the filter
 * test that can neither fail nor be seen (leakproof, not volatile, no
 * subquery or executor parameter), and hashed: the element is a column of a
 * type hashed without calling any SQL function (integers, text, varchar,
 * bytea, char(n), uuid).  Everything else happens at the row's turn, in the
 * plain qual's order: the other quals before the filter test, the filter's
 * own evaluation (on the first row that reaches it), the test, the quals
 * after it and the projection.
 *
 * set_rel_pathlist_hook offers it for a heap table (not an inheritance
 * parent, whose children get their own paths) whose restriction list has
 * such a clause, at a little less than the sequential scan's cost; the
 * clause then leaves the plan's qual and the scan evaluates it.  The
 * operator's restriction estimator lives in this library, so the library
 * is loaded before the planner looks for paths.  SET bloomfilter.prefetch_scan
 * = off turns it off.
 *
 * Owns the scan's path, plan and execution.  The rows are read, tested
 * against the quals and returned by the read-ahead ring (read_ahead.h),
 * which calls this file's ReadAheadOps: hash a row's element, test it, load
 * the filter.  Calls the ring, loud.c (which quals may be tested ahead),
 * custom_scan.c (the path, plan and state nodes, EXPLAIN's text) and the
 * element and filter functions of bloomfilter.h; nothing calls into it but
 * the planner and executor through its methods, and module.c
 * (prefetch_scan_init).  The join scan (join_scan.c) is the same ring
 * testing the automatic join filters.
 */
#include "bloomfilter.h"
#include "custom_scan.h"
#include "read_ahead.h"

#include "catalog/pg_class.h"
#include "commands/explain.h"
#include BF_EXPLAIN_FORMAT_H
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/fmgroids.h"
#include "utils/ruleutils.h"

bool		prefetch_scan_enabled = true;	/* bloomfilter.prefetch_scan */
static set_rel_pathlist_hook_type prev_pathlist_hook = NULL;

typedef struct PrefetchScanState
{
	ReadAheadState ra;			/* the ring; first */
	Expr	   *clause;			/* the filter test, for EXPLAIN */
	ExprState  *filter_expr;	/* the filter, evaluated once per scan */
	AttrNumber	elem_attno;		/* the element's column */
	ElementHasher hasher;
	FilterBuf	filter;			/* aligned copy of the filter */
} PrefetchScanState;

/* The method tables and the ring's ops, below */
static const CustomPathMethods path_methods;
static const CustomExecMethods exec_methods;
static const CustomScanKind scan_kind;
static const ReadAheadOps prefetch_ops;

/* ----------------------------------------------------------------------
 * Planning
 * ---------------------------------------------------------------------- */

/*
 * The column an element is, or NULL: a Var of the scanned table, seen
 * through a binary-compatible relabelling (varchar or a domain as text), a
 * widening integer cast (integers of every width hash alike) or char(n)
 * cast to text (its rtrim gives the bytes that hashing the char(n) value
 * itself takes).  Only a type whose hash calls no SQL function (its bytes,
 * as element.c takes them) qualifies.
 */
static Var *
element_column(Expr *elem)
{
	ElementKind kind,
				inner;
	Var		   *var;

	/* the type the clause hashes, which the plain qual would hash */
	if (!element_plain_kind(exprType((Node *) elem), &kind))
		return NULL;
	for (;;)
	{
		Expr	   *arg;
		Oid			funcid = InvalidOid;

		if (IsA(elem, RelabelType))
			arg = ((RelabelType *) elem)->arg;
		else if (IsA(elem, FuncExpr) &&
				 list_length(((FuncExpr *) elem)->args) == 1 &&
				 (((FuncExpr *) elem)->funcid == F_TEXT_BPCHAR ||
				  ((FuncExpr *) elem)->funcid == F_INT4_INT2 ||
				  ((FuncExpr *) elem)->funcid == F_INT8_INT2 ||
				  ((FuncExpr *) elem)->funcid == F_INT8_INT4))
		{
			funcid = ((FuncExpr *) elem)->funcid;
			arg = linitial(((FuncExpr *) elem)->args);
		}
		else
			break;

		/*
		 * Only through a cast after which the value hashes as before:
		 * int4 relabelled as oid, or text as char(n), hashes otherwise
		 */
		if (!element_plain_kind(exprType((Node *) arg), &inner) ||
			(inner != kind && funcid != F_TEXT_BPCHAR))
			return NULL;
		kind = inner;
		elem = arg;
	}
	if (!IsA(elem, Var))
		return NULL;
	var = (Var *) elem;
	if (var->varattno <= 0 || var->varlevelsup != 0)
		return NULL;
	return var;
}

/*
 * If 'clause' is  filter @> elem  or  elem <@ filter  with one of this
 * library's functions, a filter fixed for the scan (no Vars, nothing
 * volatile, no subplan run per row) and an element that is a column
 * element_column takes, sets *filter and *elem (the column).
 */
static bool
match_clause(Expr *clause, Expr **filter, Var **elem)
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
	if (contain_var_clause((Node *) *filter) ||
		contain_volatile_functions((Node *) *filter) ||
		contain_subplans((Node *) *filter))
		return false;
	*elem = element_column((Expr *) list_nth(op->args, 1 - filter_arg));
	return *elem != NULL;
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
		Expr	   *filter;
		Var		   *elem;

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
	CustomPath *cpath = custom_path_like(seq, &path_methods);

	cpath->path.parallel_aware = workers > 0;
	cpath->path.parallel_safe = workers > 0;
	cpath->path.total_cost = seq->total_cost -
		0.5 * cpu_operator_cost * seq->rows;
	if (workers > 0)
		add_partial_path(rel, &cpath->path);
	else
		add_path(rel, &cpath->path);
}

/*
 * Offers the scan for a plain table scanned on its own: not for an
 * inheritance parent or partitioned table (rte->inh: the hook sees the
 * appendrel itself after its children, which get paths of their own), a
 * foreign table, a sample scan or a table of another access method.
 */
static void
add_prefetch_path(PlannerInfo *root, RelOptInfo *rel, Index rti,
				  RangeTblEntry *rte)
{
	int			workers;

	if (!prefetch_scan_enabled ||
		(rel->reloptkind != RELOPT_BASEREL &&
		 rel->reloptkind != RELOPT_OTHER_MEMBER_REL) ||
		rte->rtekind != RTE_RELATION || rte->inh ||
		rte->tablesample != NULL ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
		rel->lateral_relids != NULL || find_clause(rel) == NULL ||
		!read_ahead_can_read(rte->relid))
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
 * The plan: the scan's own clause goes to custom_exprs (filter, element
 * column, the whole clause for EXPLAIN), followed by the clauses the planner
 * orders before it (cheaper ones), of which custom_private (an Integer node)
 * counts those tested as a row is read ahead: the leading ones that are
 * silent.  The clauses after it stay in the qual.
 */
static Plan *
plan_prefetch_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = custom_scan_of(best_path, tlist, &scan_kind);
	RestrictInfo *mine = find_clause(rel);
	List	   *before = NIL,
			   *after = NIL;
	bool		seen = false;
	bool		silent = true;
	int			ahead = 0;
	ListCell   *lc;
	Expr	   *filter;
	Var		   *elem;

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
		else if (!rinfo->pseudoconstant)
		{
			before = lappend(before, rinfo);
			silent = silent &&
				!expression_is_loud((Node *) rinfo->clause, NULL);
			if (silent)
				ahead++;
		}
	}
	cscan->scan.scanrelid = rel->relid;
	cscan->custom_private = list_make1(makeInteger(ahead));
	cscan->custom_exprs = list_concat(list_make3(filter, elem, mine->clause),
									  extract_actual_clauses(before, false));
	cscan->scan.plan.qual = extract_actual_clauses(after, false);
	return &cscan->scan.plan;
}

/* ----------------------------------------------------------------------
 * Execution
 * ---------------------------------------------------------------------- */

static void
begin_prefetch_scan(CustomScanState *node, EState *estate, int eflags)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Var		   *elem = lsecond_node(Var, cscan->custom_exprs);

	read_ahead_begin(&ps->ra, &prefetch_ops, estate,
					 list_copy_tail(cscan->custom_exprs, 3),
					 intVal(linitial(cscan->custom_private)));
	ps->filter_expr = ExecInitExpr(linitial(cscan->custom_exprs), &node->ss.ps);
	ps->elem_attno = elem->varattno;
	ps->clause = lthird(cscan->custom_exprs);
	/* the collation @> compares under */
	element_hasher_init(&ps->hasher, elem->vartype,
						exprInputCollation((Node *) ps->clause),
						estate->es_query_cxt);
}

/*
 * The ring's load: the filter of this scan, evaluated and copied once, when
 * the first row reaches the filter test, as the plain qual evaluates it
 */
static bool
load_filter(ReadAheadState *ra, Size *bytes)
{
	PrefetchScanState *ps = (PrefetchScanState *) ra;
	ExprContext *econtext = ra->css.ss.ps.ps_ExprContext;
	MemoryContext mcxt = ra->css.ss.ps.state->es_query_cxt;
	Datum		d;
	bool		isnull;

	filterbuf_free(&ps->filter);
	d = ExecEvalExprSwitchContext(ps->filter_expr, econtext, &isnull);
	if (!isnull)
	{
		filterbuf_load(&ps->filter, mcxt,
					   (struct varlena *) DatumGetPointer(d));
		*bytes = ps->filter.b.view.payload_bytes;
	}
	ResetExprContext(econtext);
	return !isnull;
}

/*
 * The ring's hash: the element of the row in 'slot' into ring place 'at',
 * its block prefetched.  The column's value is read, detoasted if need be
 * (in the ring's row context) and hashed; no SQL function runs.
 */
static inline void
hash_element(ReadAheadState *ra, TupleTableSlot *slot, int at)
{
	PrefetchScanState *ps = (PrefetchScanState *) ra;
	Datum		d;
	MemoryContext old;
	bf_hash		h;

	d = slot_getattr(slot, ps->elem_attno, &ra->hash_null[at]);
	if (ra->hash_null[at])
		return;
	old = MemoryContextSwitchTo(ra->row_cxt);
	h = element_hash(&ps->hasher, d, &ps->filter.b.view);
	MemoryContextSwitchTo(old);
	read_ahead_reset_row(ra);
	ra->hash_lo[at] = h.lo;
	ra->hash_hi[at] = h.hi;
	bf_prefetch(&ps->filter.b.view, h);
}

/* The ring's test: whether the row's element is (probably) in the filter */
static inline bool
test_element(ReadAheadState *ra, TupleTableSlot *slot, int at)
{
	PrefetchScanState *ps = (PrefetchScanState *) ra;
	bf_hash		h;

	if (ra->hash_null[at])
		return false;
	h.lo = ra->hash_lo[at];
	h.hi = ra->hash_hi[at];
	return bf_contains(&ps->filter.b.view, h);
}

static const ReadAheadOps prefetch_ops = {
	.hash = hash_element, .test = test_element, .load = load_filter,
	.recheck_tests = true,
};

/* The ring's per-row loop with this scan's ops, for ExecScan */
static TupleTableSlot *
next_row(ScanState *ss)
{
	return read_ahead_next((ReadAheadState *) ss, &prefetch_ops);
}

static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	return read_ahead_recheck((ReadAheadState *) ss, slot, &prefetch_ops);
}

static TupleTableSlot *
exec_prefetch_scan(CustomScanState *node)
{
	return read_ahead_exec(node, next_row, recheck_row);
}

static void
end_prefetch_scan(CustomScanState *node)
{
	read_ahead_end(node);
	filterbuf_free(&((PrefetchScanState *) node)->filter);
}

/*
 * The filter is read again when a parameter it depends on changed, and
 * when it is an expression (a stable function may answer differently now,
 * as an index scan evaluates its keys again on each rescan)
 */
static void
rescan_prefetch_scan(CustomScanState *node)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;

	read_ahead_rescan(&ps->ra,
					  node->ss.ps.chgParam != NULL ||
					  !(IsA(ps->filter_expr->expr, Const) ||
						IsA(ps->filter_expr->expr, Param)));
}

/*
 * Filter First: the quals tested as rows are read ahead; Filter In Turn:
 * the quals before the filter test that wait for the row's turn.
 */
static void
explain_prefetch_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *before = list_copy_tail(cscan->custom_exprs, 3);
	int			ahead = intVal(linitial(cscan->custom_private));
	Instrumentation *instr = node->ss.ps.instrument;
	List	   *context;

	context = set_deparse_context_plan(es->deparse_cxt,
									   node->ss.ps.plan, ancestors);
	explain_quals(list_truncate(list_copy(before), ahead), "Filter First",
				  context, es);
	explain_quals(list_copy_tail(before, ahead), "Filter In Turn",
				  context, es);
	ExplainPropertyText("Bloom Filter",
						deparse_describing_filters((Node *) ps->clause,
												   context, es->verbose),
						es);
	ExplainPropertyInteger("Rows Read Ahead", NULL, ps->ra.depth, es);
	/* (a parallel scan's workers keep their counts to themselves) */
	if (es->analyze && !node->ss.ps.plan->parallel_aware &&
		instr && instr->nloops > 0)
	{
		if (ahead > 0)
			ExplainPropertyFloat("Rows Removed by Filter First", NULL,
								 ps->ra.removed_ahead / instr->nloops, 0, es);
		if (list_length(before) > ahead)
			ExplainPropertyFloat("Rows Removed by Filter In Turn", NULL,
								 ps->ra.removed_in_turn / instr->nloops, 0, es);
		ExplainPropertyFloat("Rows Removed by Bloom Filter", NULL,
							 ps->ra.removed / instr->nloops, 0, es);
	}
}

static const CustomPathMethods path_methods = {
	.CustomName = "bloomfilter prefetch", .PlanCustomPath = plan_prefetch_path,
};

static const CustomScanKind scan_kind = {
	.methods = {
		.CustomName = "bloomfilter prefetch",
		.CreateCustomScanState = custom_state_new,
	},
	.state_size = sizeof(PrefetchScanState), .exec = &exec_methods,
};

static const CustomExecMethods exec_methods = {
	.CustomName = "bloomfilter prefetch",
	.BeginCustomScan = begin_prefetch_scan,
	.ExecCustomScan = exec_prefetch_scan, .EndCustomScan = end_prefetch_scan,
	.ReScanCustomScan = rescan_prefetch_scan,
	.ExplainCustomScan = explain_prefetch_scan,
	READ_AHEAD_PARALLEL_METHODS,
};

void
prefetch_scan_init(void)
{
	RegisterCustomScanMethods(&scan_kind.methods);
	prev_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = prefetch_pathlist_hook;
}
