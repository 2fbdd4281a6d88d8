/*
 * probe.c
 *		The probe side of the join filters: the tests of a probe site, the
 *		run-time guard, and the join probe node, a pass-through node that
 *		drops the rows a filter rules out.
 *
 * Owns JoinProbe, the probe API of custom_scan.h, which the probe node and
 * the join scan (join_scan.c) use alike.  Calls keys.c, node.c and
 * build.c's shared_verdict; reads the filter through the slot the build
 * node filled.
 */
#include "join_filter_int.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"

static const CustomExecMethods probe_exec;

/*
 * The run-time guard (bloomfilter.join_filter = on): a probe site tests a
 * filter in windows of JF_WINDOW rows; after a window in which it removed
 * less than JF_MIN_REMOVED of them it passes the next JF_REST windows
 * untested, then tries again.
 */
#define JF_WINDOW		4096
#define JF_MIN_REMOVED	0.2
#define JF_REST			16


/* ----------------------------------------------------------------------
 * The probe side: the filters a probe site tests, by the probe node above
 * any plan node and by the join scan (join_scan.c) in place of a
 * sequential scan
 * ---------------------------------------------------------------------- */

typedef struct ProbeTest
{
	int			paramid;
	JoinFilter *filter;			/* NULL until found */
	bool		looked;			/* filter looked up */
	int			nkeys;
	AttrNumber *attnos;
	KeyHash    *hash;
	Datum	   *values;
	bool	   *isnull;
	/* the guard */
	uint32		window_tested;
	uint32		window_removed;
	uint32		resting;		/* windows left to pass untested */
	uint64		stops;			/* times the guard stopped testing */
} ProbeTest;

struct JoinProbe
{
	EState	   *estate;
	/*
	 * Where the rows are heap tuples (the join scan's) and the first filter
	 * has one key, of fixed length at a fixed offset: that offset in a tuple
	 * without NULLs (-1: none), so that a row the first filter drops is
	 * never deformed
	 */
	int			first_off;
	int16		first_len;
	bool		first_byval;
	int			ntests;
	ProbeTest  *tests;			/* the most selective first */
	bool		guard;
};

/*
 * The tests of a probe site: a list per filter of (paramid, filter number,
 * (attno, hash proc, collation) per key), attno a column of the rows tested
 */
JoinProbe *
join_probe_begin(List *tests, EState *estate)
{
	JoinProbe  *jp = palloc0(sizeof(JoinProbe));
	ListCell   *lc;

	jp->estate = estate;
	jp->first_off = -1;
	jp->ntests = list_length(tests);
	jp->tests = palloc0(sizeof(ProbeTest) * jp->ntests);
	jp->guard = join_filter_mode != JOIN_FILTER_ALWAYS;
	foreach(lc, tests)
	{
		ProbeTest  *t = &jp->tests[foreach_current_index(lc)];
		List	   *test = lfirst(lc);
		ListCell   *lk;

		t->paramid = intVal(linitial(test));
		t->nkeys = list_length(test) - 2;
		t->attnos = palloc(sizeof(AttrNumber) * t->nkeys);
		t->hash = palloc0(sizeof(KeyHash) * t->nkeys);
		t->values = palloc(sizeof(Datum) * t->nkeys);
		t->isnull = palloc(sizeof(bool) * t->nkeys);
		for_each_from(lk, test, 2)
		{
			List	   *key = lfirst(lk);
			int			k = foreach_current_index(lk) - 2;

			t->attnos[k] = (AttrNumber) intVal(linitial(key));
			key_hash_init(&t->hash[k], NodeOid(lsecond(key)),
						  NodeOid(lthird(key)), estate->es_query_cxt);
		}
	}
	return jp;
}

/*
 * The filter of test t if it is complete and being tested now, else NULL.
 * The build node set the slot up when the plan started (every node starts
 * before any runs); a parallel worker's slot is zero (no filter).
 */
static inline JoinFilter *
filter_in_use(JoinProbe *jp, ProbeTest *t)
{
	if (!t->looked)
	{
		t->filter = (JoinFilter *)
			DatumGetPointer(filter_param(jp->estate, t->paramid)->value);
		t->looked = true;
	}
	if (t->filter == NULL)
		return NULL;

	/*
	 * A Parallel Hash's filter: at this process's first probe every
	 * participant that built has merged its keys (see merge_shared), this
	 * one too if it built; one that arrived after the build never ran its
	 * build node, and tests the shared filter all the same
	 */
	if (unlikely(t->filter->state == JF_MERGED ||
				 (t->filter->state == JF_BUILDING && t->filter->shared)))
		shared_verdict(t->filter);
	return t->filter->state == JF_READY ? t->filter : NULL;
}

/* The guard: after each window, stop testing for a while if it removed little */
static void
guard_window(ProbeTest *t)
{
	if (t->resting > 0)
	{
		t->resting--;
		t->window_tested = 0;
		return;
	}
	if (t->window_removed < (uint32) (JF_WINDOW * JF_MIN_REMOVED))
	{
		t->resting = JF_REST;
		t->stops++;
	}
	t->window_tested = 0;
	t->window_removed = 0;
}

/* The hash of the row's keys for test t, or false if one is NULL */
static pg_attribute_always_inline bool
row_hash(ProbeTest *t, TupleTableSlot *slot, bf_hash *h)
{
	if (t->nkeys == 1)
	{
		bool		isnull;
		Datum		value = slot_getattr(slot, t->attnos[0], &isnull);

		if (isnull)
			return false;
		*h = key_hash(&t->hash[0], value);
		return true;
	}
	for (int i = 0; i < t->nkeys; i++)
		t->values[i] = slot_getattr(slot, t->attnos[i], &t->isnull[i]);
	return hash_keys(t->hash, t->nkeys, t->values, t->isnull, h);
}

/*
 * Whether the first filter's keys hash without calling a SQL function
 * (the extension's own hash): then a row may be hashed before its turn
 */
bool
join_probe_hashes_ahead(const JoinProbe *jp)
{
	const ProbeTest *t = &jp->tests[0];

	for (int i = 0; i < t->nkeys; i++)
		if (!t->hash[i].direct)
			return false;
	return true;
}

/*
 * The rows tested will be heap tuples of 'desc' in buffer heap slots: finds
 * the offset of the first filter's key in their data, if it has one key and
 * every column up to it has a fixed length (dropped ones included: they
 * keep their place in the tuple)
 */
void
join_probe_heap_rows(JoinProbe *jp, TupleDesc desc)
{
	ProbeTest  *t = &jp->tests[0];
	int			off = 0;

	if (t->nkeys != 1 || t->attnos[0] > desc->natts)
		return;
	for (int i = 0; i < t->attnos[0]; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attlen <= 0)
			return;
		off = att_align_nominal(off, att->attalign);
		if (i == t->attnos[0] - 1)
		{
			jp->first_off = off;
			jp->first_len = att->attlen;
			jp->first_byval = att->attbyval;
		}
		off += att->attlen;
	}
}

/*
 * The first filter's key of a heap tuple read where join_probe_heap_rows
 * found it: false when the tuple has NULLs or fewer columns (a column added
 * since it was written), where the offset does not hold
 */
static inline bool
heap_key(JoinProbe *jp, TupleTableSlot *slot, Datum *value)
{
	HeapTuple	tuple = ((HeapTupleTableSlot *) slot)->tuple;
	HeapTupleHeader th;

	Assert(TTS_IS_BUFFERTUPLE(slot));
	if (tuple == NULL || HeapTupleHasNulls(tuple))
		return false;
	th = tuple->t_data;
	if (HeapTupleHeaderGetNatts(th) < jp->tests[0].attnos[0])
		return false;
	*value = fetch_att((char *) th + th->t_hoff + jp->first_off,
					   jp->first_byval, jp->first_len);
	return true;
}

/*
 * The first filter's hash of the row in 'slot', its block prefetched; none
 * while the filter is not tested (not complete yet, overfull, or rested by
 * the guard: the row's turn hashes it if it is tested by then).  Detoasted
 * keys are left in the current memory context.
 */
JoinProbeHash
join_probe_hash(JoinProbe *jp, TupleTableSlot *slot, bf_hash *h)
{
	ProbeTest  *t = &jp->tests[0];
	JoinFilter *jf;
	Datum		value;

	if (t->resting > 0 || (jf = filter_in_use(jp, t)) == NULL)
		return JP_LATER;
	if (jp->first_off >= 0 && heap_key(jp, slot, &value))
		*h = key_hash(&t->hash[0], value);
	else if (!row_hash(t, slot, h))
		return JP_NULL;
	bf_prefetch(jf->view, *h);
	return JP_HASHED;
}

/*
 * Whether the row in slot may have a partner by test t; 'known' is its
 * hash if already taken (NULL if not), 'known_null' whether a key was NULL
 */
static inline bool
passes_test(JoinProbe *jp, ProbeTest *t, TupleTableSlot *slot,
			const bf_hash *known, bool known_null)
{
	JoinFilter *jf = filter_in_use(jp, t);
	bf_hash		h;
	bool		pass;

	if (jf == NULL)
		return true;
	if (jp->guard && ++t->window_tested >= JF_WINDOW)
		guard_window(t);
	if (t->resting > 0)
		return true;
	if (known != NULL)
		pass = !known_null && bf_contains(jf->view, *known);
	else
		pass = row_hash(t, slot, &h) && bf_contains(jf->view, h);
	if (!pass)
		t->window_removed++;
	return pass;
}

/*
 * Whether the row in 'slot' passes every filter (each test stops at the
 * first that fails); 'first' and 'first_null' as join_probe_hash gave them
 * for the first filter, or NULL.  Detoasted keys are left in the current
 * memory context.
 */
bool
join_probe_passes(JoinProbe *jp, TupleTableSlot *slot, const bf_hash *first,
				  bool first_null)
{
	for (int i = 0; i < jp->ntests; i++)
		if (!passes_test(jp, &jp->tests[i], slot, i == 0 ? first : NULL,
						 first_null))
			return false;
	return true;
}

/*
 * EXPLAIN of a probe site: its filters and their keys (custom_exprs, a list
 * per filter), and with ANALYZE the rows they removed (the node's
 * instrumentation's nfiltered1, summed over parallel workers) and the
 * filters the guard paused in this process
 */
void
join_probe_explain(JoinProbe *jp, CustomScanState *node, List *tests,
				   List *key_exprs, List *ancestors, ExplainState *es)
{
	StringInfoData buf;
	ListCell   *lc,
			   *le;
	Instrumentation *instr = node->ss.ps.instrument;

	initStringInfo(&buf);
	forboth(lc, tests, le, key_exprs)
		appendStringInfo(&buf, "%s%s (%s)",
						 foreach_current_index(lc) ? ", " : "",
						 filter_name(intVal(lsecond(lfirst(lc)))),
						 deparse_keys(lfirst(le), node, ancestors, es));
	ExplainPropertyText("Bloom Join Filters", buf.data, es);
	if (es->analyze && instr && instr->nloops > 0)
	{
		ExplainPropertyFloat("Rows Removed by Bloom Join Filter", NULL,
							 instr->nfiltered1 / instr->nloops, 0, es);
		for (int i = 0; i < jp->ntests; i++)
			if (jp->tests[i].stops > 0)
				ExplainPropertyText("Bloom Join Filter Paused",
									psprintf("%s, %llu times (it removed too few rows)",
											 filter_name(intVal(lsecond(list_nth(tests, i)))),
											 (unsigned long long) jp->tests[i].stops),
									es);
	}
}

/* The probe node: a pass-through node that drops what fails a filter */
typedef struct ProbeState
{
	CustomScanState css;
	JoinProbe  *jp;
} ProbeState;

static void
begin_probe(CustomScanState *node, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	begin_pass_through(node, estate, eflags);
	((ProbeState *) node)->jp = join_probe_begin(cscan->custom_private, estate);
}

static TupleTableSlot *
exec_probe(CustomScanState *node)
{
	ProbeState *ps = (ProbeState *) node;
	PlanState  *child = linitial(node->custom_ps);
	ExprContext *econtext = node->ss.ps.ps_ExprContext;

	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(child);
		bool		pass;
		MemoryContext old;

		if (TupIsNull(slot))
			return slot;
		/* (a hash function may detoast a key) */
		ResetExprContext(econtext);
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		pass = join_probe_passes(ps->jp, slot, NULL, false);
		MemoryContextSwitchTo(old);
		if (pass)
			return slot;
		if (node->ss.ps.instrument)
			node->ss.ps.instrument->nfiltered1 += 1;
		CHECK_FOR_INTERRUPTS();
	}
}

static void
rescan_probe(CustomScanState *node)
{
	rescan_child(node);
}

static void
explain_probe(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	join_probe_explain(((ProbeState *) node)->jp, node, cscan->custom_private,
					   cscan->custom_exprs, ancestors, es);
}

const CustomScanKind join_probe_kind = {
	.methods = {
		.CustomName = "bloomfilter join probe",
		.CreateCustomScanState = custom_state_new,
	},
	.state_size = sizeof(ProbeState), .exec = &probe_exec,
};

static const CustomExecMethods probe_exec = {
	.CustomName = "bloomfilter join probe",
	.BeginCustomScan = begin_probe, .ExecCustomScan = exec_probe,
	.EndCustomScan = end_pass_through, .ReScanCustomScan = rescan_probe,
	.ExplainCustomScan = explain_probe,
};
