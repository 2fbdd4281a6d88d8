/*
 * join_scan.c
 *		The join scan: a sequential scan that is a probe site of automatic
 *		join filters, testing them a few rows ahead.
 *
 * The join filters (src/join_filter/) put a probe node over each node that
 * makes a hash join's probe keys; over a sequential scan of a heap table
 * whose keys are columns, this scan takes the pair's place.  It is the
 * read-ahead ring (read_ahead.h) of the prefetching scan testing the join
 * filters instead of one fixed filter: the filters come from the hash
 * joins' build nodes, complete or not when a row reaches its turn (rows
 * pass untested until they are), the keys are hashed as the probe node
 * hashes them (ahead of the row's turn where that calls no SQL function, and
 * then the filter's block is prefetched), and the tests come after every
 * qual of the scan, as the probe node above the scan would make them.  It
 * shows in EXPLAIN as the sequential scan's quals and the probe node's
 * lines.
 *
 * Owns the scan's plan (join_scan_for) and execution.  Calls the ring, the
 * join filters' probe API (join_probe_*, join_filter/probe.c) and nothing
 * else of theirs, loud.c (which quals may be tested ahead) and
 * custom_scan.c.  Called by join_filter/placement.c (join_scan_for, its one
 * call into this file) and module.c (join_scan_init); it never calls the
 * planner side of the join filters.
 */
#include "bloomfilter.h"
#include "custom_scan.h"
#include "read_ahead.h"

#include "catalog/pg_class.h"
#include "commands/explain.h"
#include BF_EXPLAIN_FORMAT_H
#include "nodes/makefuncs.h"
#include "parser/parsetree.h"
#include "utils/ruleutils.h"

typedef struct JoinScanState
{
	ReadAheadState ra;			/* the ring; first */
	JoinProbe  *join;			/* the join filters */
	bool		hash_ahead;		/* the first filter's hash taken ahead */
	bool		hashed[READ_AHEAD_RING];	/* ... for the row at this place */
} JoinScanState;

/* The method tables and the ring's ops, below */
static const CustomExecMethods join_exec_methods;
static const CustomScanKind join_scan_kind;
static const ReadAheadOps join_ops;

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
		!read_ahead_can_read(rte->relid))
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
 * The filters are there from the start (if not complete), and a row is
 * read ahead from the first
 */
static void
begin_join_scan(CustomScanState *node, EState *estate, int eflags)
{
	JoinScanState *js = (JoinScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	read_ahead_begin(&js->ra, &join_ops, estate, lsecond(cscan->custom_exprs),
					 intVal(linitial(cscan->custom_private)));
	js->join = join_probe_begin(lsecond(cscan->custom_private), estate);
	join_probe_heap_rows(js->join,
						 RelationGetDescr(node->ss.ss_currentRelation));
	js->hash_ahead = join_probe_hashes_ahead(js->join);
}

/*
 * The ring's hash: the first filter's keys of the row in 'slot' into ring
 * place 'at', the filter's block prefetched once it is complete; nothing
 * where hashing them calls a SQL function, or while the filter is not
 * tested (then at the row's turn, if it is tested by then)
 */
static inline void
hash_join_keys(ReadAheadState *ra, TupleTableSlot *slot, int at)
{
	JoinScanState *js = (JoinScanState *) ra;
	MemoryContext old;
	bf_hash		h = {0};
	JoinProbeHash got;

	if (!js->hash_ahead)
		return;
	old = MemoryContextSwitchTo(ra->row_cxt);
	got = join_probe_hash(js->join, slot, &h);
	MemoryContextSwitchTo(old);
	read_ahead_reset_row(ra);
	js->hashed[at] = got != JP_LATER;
	ra->hash_null[at] = got == JP_NULL;
	ra->hash_lo[at] = h.lo;
	ra->hash_hi[at] = h.hi;
}

/*
 * The ring's test: whether the row may have a partner by every join
 * filter (the first's hash as hash_join_keys took it)
 */
static inline bool
test_join_filters(ReadAheadState *ra, TupleTableSlot *slot, int at)
{
	JoinScanState *js = (JoinScanState *) ra;
	MemoryContext old = MemoryContextSwitchTo(ra->row_cxt);
	bf_hash		h;
	bool		pass;

	h.lo = ra->hash_lo[at];
	h.hi = ra->hash_hi[at];
	pass = join_probe_passes(js->join, slot,
							 js->hash_ahead && js->hashed[at] ? &h : NULL,
							 ra->hash_null[at]);
	MemoryContextSwitchTo(old);
	read_ahead_reset_row(ra);
	return pass;
}

/*
 * The rows removed are counted as the sequential scan and the probe node
 * count them (the instrumentation's "Rows Removed by Filter" and "... by
 * Bloom Join Filter", summed over workers); EvalPlanQual's recheck leaves
 * the keys to the join above, which tests them itself
 */
static const ReadAheadOps join_ops = {
	.hash = hash_join_keys, .test = test_join_filters, .load = NULL,
	.recheck_tests = false, .counts_in_instrument = true,
};

/* The ring's per-row loop with this scan's ops, for ExecScan */
static TupleTableSlot *
next_row(ScanState *ss)
{
	return read_ahead_next((ReadAheadState *) ss, &join_ops);
}

static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	return read_ahead_recheck((ReadAheadState *) ss, slot, &join_ops);
}

static TupleTableSlot *
exec_join_scan(CustomScanState *node)
{
	return read_ahead_exec(node, next_row, recheck_row);
}

static void
rescan_join_scan(CustomScanState *node)
{
	read_ahead_rescan((ReadAheadState *) node, false);
}

/*
 * The scan's quals, as the sequential scan showed them, and the join
 * filters' lines of the probe node
 */
static void
explain_join_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	JoinScanState *js = (JoinScanState *) node;
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
	join_probe_explain(js->join, node, lsecond(cscan->custom_private),
					   linitial(cscan->custom_exprs), ancestors, es);
}

static const CustomScanKind join_scan_kind = {
	.methods = {
		.CustomName = "bloomfilter join scan",
		.CreateCustomScanState = custom_state_new,
	},
	.state_size = sizeof(JoinScanState), .exec = &join_exec_methods,
};

static const CustomExecMethods join_exec_methods = {
	.CustomName = "bloomfilter join scan",
	.BeginCustomScan = begin_join_scan,
	.ExecCustomScan = exec_join_scan, .EndCustomScan = read_ahead_end,
	.ReScanCustomScan = rescan_join_scan,
	.ExplainCustomScan = explain_join_scan,
	READ_AHEAD_PARALLEL_METHODS,
};

void
join_scan_init(void)
{
	RegisterCustomScanMethods(&join_scan_kind.methods);
}
