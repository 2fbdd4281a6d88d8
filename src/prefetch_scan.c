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
 * The join scan is the same scan testing automatic join filters
 * (src/join_filter/) in place of a sequential scan that is a probe site: the
 * filters come from the hash joins' build nodes, complete or not when a row
 * reaches its turn (rows pass untested until they are), the keys are hashed
 * as the probe node hashes them (ahead of the row's turn where that calls no
 * SQL function), and the tests come after every qual of the scan, as the
 * probe node above the scan would make them.
 *
 * The direction of calls (custom_scan.h declares both ends): this file
 * calls down into the join filters' probe API (join_probe_*, probe.c) and
 * nothing else of theirs; the join filters call into this file only to
 * construct the join scan's plan (join_scan_for, from placement.c).  Which
 * quals may be tested ahead of a row's turn is loud.c's
 * expression_is_loud.
 */
#include "bloomfilter.h"
#include "custom_scan.h"

#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "commands/explain.h"
#include BF_EXPLAIN_FORMAT_H
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

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

/* (the ring's places wrap by a mask, not a division) */
StaticAssertDecl((PREFETCH_NEAR & (PREFETCH_NEAR - 1)) == 0 &&
				 (PREFETCH_FAR & (PREFETCH_FAR - 1)) == 0,
				 "read-ahead depths must be powers of two");

bool		prefetch_scan_enabled = true;	/* bloomfilter.prefetch_scan */
static set_rel_pathlist_hook_type prev_pathlist_hook = NULL;

typedef struct PrefetchScanState
{
	CustomScanState css;
	Expr	   *clause;			/* the filter test, for EXPLAIN */
	ExprState  *filter_expr;	/* the filter, evaluated once per scan */
	ExprState  *ahead;			/* quals before the test, tested as a row is
								 * read ahead (they cannot fail or be seen),
								 * or NULL */
	ExprState  *in_turn;		/* the rest of them, tested at the row's
								 * turn, or NULL */
	AttrNumber	elem_attno;		/* the element's column */
	ElementHasher hasher;
	MemoryContext hash_cxt;		/* a detoasted element, reset per row */
	bool		have_filter;	/* filter evaluated for this scan */
	bool		filter_null;	/* ... and NULL: no row passes */
	FilterBuf	filter;			/* aligned copy of the filter */
	TableScanDesc scan;
	bool		eof;
	int			depth;			/* rows read ahead, for this filter */
	TupleTableSlot *ring[PREFETCH_RING];
	/* each row's hash, its halves apart (see hash_row) */
	uint64		hash_lo[PREFETCH_RING];
	uint64		hash_hi[PREFETCH_RING];
	bool		elem_null[PREFETCH_RING];
	int			head;
	int			count;
	double		removed;		/* rows the filter test refused */
	double		removed_ahead;	/* rows 'ahead' refused */
	double		removed_in_turn;	/* rows 'in_turn' refused */
	/* the join scan: its join filters, or NULL */
	JoinProbe  *join;
	bool		join_hash_ahead;	/* the first filter's hash taken ahead */
} PrefetchScanState;

/* The method tables, at the end of the file */
static const CustomPathMethods path_methods;
static const CustomExecMethods exec_methods;
static const CustomScanKind scan_kind;
static const CustomExecMethods join_exec_methods;
static const CustomScanKind join_scan_kind;

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

/* Whether a table is stored by the heap access method, which the scan reads */
static bool
is_heap_table(Oid relid)
{
	Relation	rel = table_open(relid, NoLock);	/* the planner's lock */
	bool		heap = rel->rd_rel->relam == HEAP_TABLE_AM_OID;

	table_close(rel, NoLock);
	return heap;
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
		!is_heap_table(rte->relid))
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

/*
 * The join scan in place of sequential scan 'plan', a probe site under
 * 'probe' (a join probe node, whose tests name columns of the scan's
 * output): or NULL where it cannot stand, for a table the scan cannot read
 * or a key that is not a column of the table returned as it is.  It runs
 * the scan's quals in their order, the leading silent ones as a row is read
 * ahead, and then the probe's tests; custom_private = (silent quals, the
 * probe's tests with the keys as the table's columns), custom_exprs = (a
 * list of key Vars per test, for EXPLAIN; the quals).
 */
Plan *
join_scan_for(Plan *plan, CustomScan *probe, List *rtable)
{
	Index		scanrelid = ((Scan *) plan)->scanrelid;
	RangeTblEntry *rte;
	CustomScan *cscan;
	List	   *tests = NIL,
			   *key_vars = NIL;
	int			ahead = 0;
	ListCell   *lc;

	if (!prefetch_scan_enabled || !IsA(plan, SeqScan))
		return NULL;
	/*
	 * The scan projects only the rows that pass the filters, which the probe
	 * node tests after the sequential scan projected every row: so only a
	 * projection that can neither fail nor be seen (a subquery's nextval(),
	 * or 1 / x, is run for every row that passes the quals)
	 */
	foreach(lc, plan->targetlist)
	{
		if (expression_is_loud((Node *) lfirst_node(TargetEntry, lc)->expr,
							   NULL))
			return NULL;
	}
	rte = rt_fetch(scanrelid, rtable);
	if (rte->rtekind != RTE_RELATION ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
		!is_heap_table(rte->relid))
		return NULL;
	foreach(lc, probe->custom_private)
	{
		List	   *test = lfirst(lc);
		List	   *mine = list_make2(copyObject(linitial(test)),
									  copyObject(lsecond(test)));
		List	   *vars = NIL;
		ListCell   *lk;

		for_each_from(lk, test, 2)
		{
			List	   *key = lfirst(lk);
			TargetEntry *tle = list_nth_node(TargetEntry, plan->targetlist,
											 intVal(linitial(key)) - 1);
			Expr	   *e = tle->expr;

			while (IsA(e, RelabelType))
				e = ((RelabelType *) e)->arg;
			if (!IsA(e, Var) || ((Var *) e)->varno != scanrelid ||
				((Var *) e)->varattno <= 0)
				return NULL;
			mine = lappend(mine, list_make3(makeInteger(((Var *) e)->varattno),
											copyObject(lsecond(key)),
											copyObject(lthird(key))));
			vars = lappend(vars, copyObject(e));
		}
		tests = lappend(tests, mine);
		key_vars = lappend(key_vars, vars);
	}
	foreach(lc, plan->qual)
	{
		if (expression_is_loud(lfirst(lc), NULL))
			break;
		ahead++;
	}

	cscan = makeNode(CustomScan);
	/* the scan's plan fields (costs, target list, node id, parameters) */
	cscan->scan = *(Scan *) plan;
	NodeSetTag(cscan, T_CustomScan);
	cscan->scan.plan.qual = NIL;
	cscan->scan.plan.plan_rows = probe->scan.plan.plan_rows;
	cscan->flags = 0;
	cscan->custom_relids = bms_make_singleton(scanrelid);
	cscan->custom_private = list_make2(makeInteger(ahead), tests);
	cscan->custom_exprs = list_make2(key_vars, plan->qual);
	cscan->methods = &join_scan_kind.methods;
	return &cscan->scan.plan;
}

/* ----------------------------------------------------------------------
 * Execution
 * ---------------------------------------------------------------------- */

/*
 * What both scans start alike: the ring, the quals before the test
 * ('before', of which the first 'ahead' are tested as a row is read ahead)
 */
static void
begin_ring(PrefetchScanState *ps, EState *estate, List *before, int ahead)
{
	CustomScanState *node = &ps->css;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
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

	ps->ahead = ExecInitQual(list_truncate(list_copy(before), ahead),
							 &node->ss.ps);
	ps->in_turn = ExecInitQual(list_copy_tail(before, ahead), &node->ss.ps);
	ps->depth = PREFETCH_NEAR;
	ps->hash_cxt = AllocSetContextCreate(estate->es_query_cxt,
										 "bloomfilter prefetch row",
										 ALLOCSET_DEFAULT_SIZES);
	/* heap slots: each keeps its own copy of the tuple header (read_row) */
	for (i = 0; i < PREFETCH_RING; i++)
		ps->ring[i] = table_slot_create(rel, &estate->es_tupleTable);
	Assert(ps->ring[0]->tts_ops == &TTSOpsBufferHeapTuple);
}

static void
begin_prefetch_scan(CustomScanState *node, EState *estate, int eflags)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Var		   *elem = lsecond_node(Var, cscan->custom_exprs);

	begin_ring(ps, estate, list_copy_tail(cscan->custom_exprs, 3),
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
 * The join scan: its filters are there from the start (if not complete),
 * and a row is read ahead from the first
 */
static void
begin_join_scan(CustomScanState *node, EState *estate, int eflags)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	begin_ring(ps, estate, lsecond(cscan->custom_exprs),
			   intVal(linitial(cscan->custom_private)));
	ps->join = join_probe_begin(lsecond(cscan->custom_private), estate);
	join_probe_heap_rows(ps->join, RelationGetDescr(node->ss.ss_currentRelation));
	ps->join_hash_ahead = join_probe_hashes_ahead(ps->join);
	ps->have_filter = true;
}

/*
 * The filter of this scan, evaluated and copied once, when the first row
 * reaches the filter test, as the plain qual evaluates it
 */
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
	 * The ring is empty here (rows are read ahead only once the filter is
	 * known): its first 'depth' slots are used, so that a near filter's scan
	 * cycles through fewer slots (and fewer cache lines) too.
	 */
	Assert(ps->count == 0);
	ps->head = 0;
	ps->depth = !ps->filter_null &&
		ps->filter.b.view.payload_bytes > PREFETCH_FAR_BYTES ?
		PREFETCH_FAR : PREFETCH_NEAR;
}

/*
 * The next row of the table into 'slot', or false at its end.  The heap AM
 * returns each row as a reference to the tuple header in its scan
 * descriptor, which the next row overwrites: a ring slot keeps a copy of
 * that header (the buffer stays pinned by the slot).
 */
static inline bool
read_row(PrefetchScanState *ps, TupleTableSlot *slot)
{
	HeapTupleTableSlot *hslot = (HeapTupleTableSlot *) slot;

	if (!table_scan_getnextslot(ps->scan, ForwardScanDirection, slot))
		return false;
	if (hslot->tuple != &hslot->tupdata)
	{
		hslot->tupdata = *hslot->tuple;
		hslot->tuple = &hslot->tupdata;
	}
	return true;
}

/* Whether the row in 'slot' passes 'qual' (NULL: no qual) */
static inline bool
passes(PrefetchScanState *ps, ExprState *qual, TupleTableSlot *slot,
	   double *removed)
{
	ExprContext *econtext = ps->css.ss.ps.ps_ExprContext;
	bool		pass;

	if (qual == NULL)
		return true;
	econtext->ecxt_scantuple = slot;
	pass = ExecQual(qual, econtext);
	ResetExprContext(econtext);
	if (!pass)
	{
		(*removed)++;
		/* the join scan's "Rows Removed by Filter", summed over workers */
		if (ps->join)
			InstrCountFiltered2(&ps->css.ss.ps, 1);
	}
	return pass;
}

/*
 * Hashes the element of the row in 'slot' into ring place 'at' and
 * prefetches its block.  The column's value is read, detoasted if need be
 * (in a context reset before the next row) and hashed; no SQL function runs.
 */
static inline void
hash_row(PrefetchScanState *ps, TupleTableSlot *slot, int at)
{
	Datum		d;
	MemoryContext old;
	bf_hash		h = {0};

	if (ps->join)
	{
		if (!ps->join_hash_ahead)
			return;				/* at the row's turn */
		old = MemoryContextSwitchTo(ps->hash_cxt);
		ps->elem_null[at] = !join_probe_hash(ps->join, slot, &h);
		MemoryContextSwitchTo(old);
		if (!ps->hash_cxt->isReset)
			MemoryContextReset(ps->hash_cxt);
		ps->hash_lo[at] = h.lo;
		ps->hash_hi[at] = h.hi;
		return;
	}
	d = slot_getattr(slot, ps->elem_attno, &ps->elem_null[at]);
	if (ps->elem_null[at])
		return;
	old = MemoryContextSwitchTo(ps->hash_cxt);
	h = element_hash(&ps->hasher, d, &ps->filter.b.view);
	MemoryContextSwitchTo(old);
	if (!ps->hash_cxt->isReset)
		MemoryContextReset(ps->hash_cxt);

	/*
	 * Kept as two arrays: compilers copy a bf_hash just returned in two
	 * registers as one 16-byte load of the two 8-byte halves they had
	 * stored, a load that waits for the stores to retire.
	 */
	ps->hash_lo[at] = h.lo;
	ps->hash_hi[at] = h.hi;
	bf_prefetch(&ps->filter.b.view, h);
}

/*
 * Whether the row in 'slot', hashed in ring place 'at', probably passes:
 * its element is in the filter, or (the join scan) it may have a partner
 * in every join filter
 */
static inline bool
in_filter(PrefetchScanState *ps, TupleTableSlot *slot, int at)
{
	bf_hash		h;

	h.lo = ps->hash_lo[at];
	h.hi = ps->hash_hi[at];
	if (ps->join)
	{
		MemoryContext old = MemoryContextSwitchTo(ps->hash_cxt);
		bool		pass;

		pass = join_probe_passes(ps->join, slot,
								 ps->join_hash_ahead ? &h : NULL,
								 ps->elem_null[at]);
		MemoryContextSwitchTo(old);
		if (!ps->hash_cxt->isReset)
			MemoryContextReset(ps->hash_cxt);
		return pass;
	}
	if (ps->elem_null[at])
		return false;
	return bf_contains(&ps->filter.b.view, h);
}

/* A row the filter test refused */
static inline void
refused(PrefetchScanState *ps)
{
	ps->removed++;
	/* the join scan's "Rows Removed by Bloom Join Filter", summed over workers */
	if (ps->join)
		InstrCountFiltered1(&ps->css.ss.ps, 1);
}

/*
 * Reads one row into the ring's next place, hashing and prefetching it:
 * what may happen ahead of the row's turn.  False at the end of the table.
 */
static bool
read_ahead(PrefetchScanState *ps)
{
	int			at = (ps->head + ps->count) & (ps->depth - 1);
	TupleTableSlot *slot = ps->ring[at];

	do
	{
		if (!read_row(ps, slot))
			return false;
		CHECK_FOR_INTERRUPTS();
	} while (!passes(ps, ps->ahead, slot, &ps->removed_ahead));
	hash_row(ps, slot, at);
	ps->count++;
	return true;
}

/*
 * The row returned, made the scan's current row: WHERE CURRENT OF
 * (execCurrentOf) reads the row a cursor stands on from ss_ScanTupleSlot,
 * so that pointer follows the ring slot returned (every ring slot is of
 * the table's own type, as the scan slot is).
 */
static inline TupleTableSlot *
current_row(ScanState *ss, TupleTableSlot *slot)
{
	ss->ss_ScanTupleSlot = slot;
	return slot;
}

/*
 * The next row that passes the filter test, for ExecScan.  Until the
 * filter is known (and while it is NULL) rows are read and tested one at a
 * time, so that the filter is evaluated when the plain qual would evaluate
 * it; then they are read ahead.
 */
static TupleTableSlot *
next_row(ScanState *ss)
{
	PrefetchScanState *ps = (PrefetchScanState *) ss;

	if (ps->scan == NULL)
		ps->scan = table_beginscan(ss->ss_currentRelation,
								   ss->ps.state->es_snapshot, 0, NULL);
	for (;;)
	{
		TupleTableSlot *slot;
		int			at;

		if (!ps->have_filter || ps->filter_null)
		{
			/*
			 * A NULL filter passes no row; the plain qual still tests the
			 * quals before it on every row, which matters only for those
			 * tested in turn.
			 */
			if (ps->have_filter && ps->in_turn == NULL)
				return ExecClearTuple(ss->ss_ScanTupleSlot);
			slot = ps->ring[0];
			if (!read_row(ps, slot))
				return ExecClearTuple(ss->ss_ScanTupleSlot);
			CHECK_FOR_INTERRUPTS();
			if (!passes(ps, ps->ahead, slot, &ps->removed_ahead) ||
				!passes(ps, ps->in_turn, slot, &ps->removed_in_turn))
				continue;
			if (!ps->have_filter)
				load_filter(ps);
			if (!ps->filter_null)
			{
				hash_row(ps, slot, 0);
				if (in_filter(ps, slot, 0))
					return current_row(ss, slot);
			}
			refused(ps);
			continue;
		}
		while (!ps->eof && ps->count < ps->depth)
			ps->eof = !read_ahead(ps);
		if (ps->count == 0)
			return ExecClearTuple(ss->ss_ScanTupleSlot);
		at = ps->head;
		ps->head = (ps->head + 1) & (ps->depth - 1);
		ps->count--;
		/* the row's turn */
		if (!passes(ps, ps->in_turn, ps->ring[at], &ps->removed_in_turn))
			continue;
		if (in_filter(ps, ps->ring[at], at))
			return current_row(ss, ps->ring[at]);
		refused(ps);
	}
}

/* EvalPlanQual: the row again, against the filter */
static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	PrefetchScanState *ps = (PrefetchScanState *) ss;
	double		ignored;

	if (!passes(ps, ps->ahead, slot, &ignored) ||
		!passes(ps, ps->in_turn, slot, &ignored))
		return false;
	/* (the join above the join scan tests the row's keys itself) */
	if (ps->join)
		return true;
	if (!ps->have_filter)
		load_filter(ps);
	if (ps->filter_null)
		return false;
	/* (an EvalPlanQual scan never reads ahead: its ring is unused) */
	Assert(ps->count == 0);
	hash_row(ps, slot, 0);
	return in_filter(ps, slot, 0);
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
	/*
	 * The filter is read again when a parameter it depends on changed, and
	 * when it is an expression (a stable function may answer differently
	 * now, as an index scan evaluates its keys again on each rescan)
	 */
	if (ps->join == NULL &&
		(node->ss.ps.chgParam != NULL ||
		 !(IsA(ps->filter_expr->expr, Const) ||
		   IsA(ps->filter_expr->expr, Param))))
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

static char *
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

static void
explain_quals(List *quals, const char *label, List *context,
			  ExplainState *es)
{
	if (quals != NIL)
		ExplainPropertyText(label,
							deparse_describing_filters((Node *) make_ands_explicit(quals),
													   context, es->verbose),
							es);
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
	ExplainPropertyInteger("Rows Read Ahead", NULL, ps->depth, es);
	/* (a parallel scan's workers keep their counts to themselves) */
	if (es->analyze && !node->ss.ps.plan->parallel_aware &&
		instr && instr->nloops > 0)
	{
		if (ahead > 0)
			ExplainPropertyFloat("Rows Removed by Filter First", NULL,
								 ps->removed_ahead / instr->nloops, 0, es);
		if (list_length(before) > ahead)
			ExplainPropertyFloat("Rows Removed by Filter In Turn", NULL,
								 ps->removed_in_turn / instr->nloops, 0, es);
		ExplainPropertyFloat("Rows Removed by Bloom Filter", NULL,
							 ps->removed / instr->nloops, 0, es);
	}
}

/*
 * The join scan: the scan's quals, as the sequential scan showed them, and
 * the join filters' lines of the probe node
 */
static void
explain_join_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	PrefetchScanState *ps = (PrefetchScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *quals = lsecond(cscan->custom_exprs);
	Instrumentation *instr = node->ss.ps.instrument;

	explain_quals(quals, "Filter",
				  set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan,
										   ancestors),
				  es);
	if (quals != NIL && es->analyze && instr && instr->nloops > 0)
		ExplainPropertyFloat("Rows Removed by Filter", NULL,
							 instr->nfiltered2 / instr->nloops, 0, es);
	join_probe_explain(ps->join, node, lsecond(cscan->custom_private),
					   linitial(cscan->custom_exprs), ancestors, es);
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
	/* parallel query: the participants share one parallel table scan */
	.EstimateDSMCustomScan = estimate_dsm,
	.InitializeDSMCustomScan = initialize_dsm,
	.ReInitializeDSMCustomScan = reinitialize_dsm,
	.InitializeWorkerCustomScan = initialize_worker,
};

static const CustomScanKind join_scan_kind = {
	.methods = {
		.CustomName = "bloomfilter join scan",
		.CreateCustomScanState = custom_state_new,
	},
	.state_size = sizeof(PrefetchScanState), .exec = &join_exec_methods,
};

static const CustomExecMethods join_exec_methods = {
	.CustomName = "bloomfilter join scan",
	.BeginCustomScan = begin_join_scan,
	.ExecCustomScan = exec_prefetch_scan, .EndCustomScan = end_prefetch_scan,
	.ReScanCustomScan = rescan_prefetch_scan,
	.ExplainCustomScan = explain_join_scan,
	.EstimateDSMCustomScan = estimate_dsm,
	.InitializeDSMCustomScan = initialize_dsm,
	.ReInitializeDSMCustomScan = reinitialize_dsm,
	.InitializeWorkerCustomScan = initialize_worker,
};

void
prefetch_scan_init(void)
{
	RegisterCustomScanMethods(&scan_kind.methods);
	RegisterCustomScanMethods(&join_scan_kind.methods);
	prev_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = prefetch_pathlist_hook;
}
