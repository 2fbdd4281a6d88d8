/*
 * build.c
 *		The join build node: a pass-through node between a Hash and its child
 *		that adds each row's keys to the join filter.
 *
 * Until the filter is complete the probes pass every row: a hash join may
 * read a first probe row before it builds (to skip the build when the probe
 * side is empty), and a rescan starts the build again.  Under a Parallel
 * Hash each process adds its part to one filter in the parallel query's
 * shared memory (see finish_build).  With postgres_fdw probe scans it also
 * builds the keys as a bloomfilter value for the remote query (fdw.c).
 *
 * Owns JoinFilter's life (building, complete, overfull, shared) and the
 * build node's methods.  Calls keys.c and node.c; probe.c reads the filter
 * it publishes (and shared_verdict).
 */
#include "join_filter_int.h"

#include "executor/executor.h"
#include "executor/nodeCustom.h"
#include "miscadmin.h"

#include <math.h>

static const CustomExecMethods build_exec;

/*
 * Keys beyond which a filter is not worth testing: eight times its planned
 * capacity (a filter planned for 1 % then answers "maybe" for most keys)
 */
#define JF_OVERFULL	8

struct BuildState;
static void publish_value(struct BuildState *bs, bool ready);
static void merge_shared(JoinFilter *jf);

/* ----------------------------------------------------------------------
 * The build node
 * ---------------------------------------------------------------------- */

typedef struct BuildState
{
	CustomScanState css;
	JoinFilter *filter;
	/* postgres_fdw: the keys as a bloomfilter value, the remote parameters */
	List	   *fdw_params;		/* their ids (ints), or NIL */
	ElementHasher elem;
	bf_params	value_params;
	FilterBuf	value;
	bool		value_allocated;
	bool		finished;		/* the child's end was seen since the (re)start */
	int			nkeys;
	List	   *key_exprs;		/* ExprState per key */
	KeyHash    *hash;
	Datum	   *values;
	bool	   *isnull;
} BuildState;

static void
begin_build(CustomScanState *node, EState *estate, int eflags)
{
	BuildState *bs = (BuildState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *private = cscan->custom_private;
	int			paramid = intVal(linitial(private));
	double		planned = strtod(strVal(lthird(private)), NULL);
	JoinFilter *jf;
	ListCell   *lc;

	begin_pass_through(node, estate, eflags);
	bs->nkeys = list_length(cscan->custom_exprs);
	bs->key_exprs = ExecInitExprList(cscan->custom_exprs, &node->ss.ps);
	bs->hash = palloc0(sizeof(KeyHash) * bs->nkeys);
	bs->values = palloc(sizeof(Datum) * bs->nkeys);
	bs->isnull = palloc(sizeof(bool) * bs->nkeys);
	for_each_from(lc, private, 4)
	{
		List	   *key = lfirst(lc);

		key_hash_init(&bs->hash[foreach_current_index(lc) - 4],
					  NodeOid(linitial(key)), NodeOid(lsecond(key)),
					  estate->es_query_cxt);
	}
	if (lfourth(private) != NIL)
	{
		List	   *fdw = lfourth(private);

		/* (shippable keys have deterministic collations) */
		element_hasher_init(&bs->elem, NodeOid(linitial(fdw)), InvalidOid,
							estate->es_query_cxt);
		for_each_from(lc, fdw, 1)
			bs->fdw_params = lappend_int(bs->fdw_params, intVal(lfirst(lc)));
		if (bf_plan_bits(BF_BLOCKED,
						 (uint64) ceil(Max(planned, 1024.0) * filter_shapes[0].bits_per_key),
						 filter_shapes[0].hashes, 0, &bs->value_params) != BF_OK)
			bs->fdw_params = NIL;

		/*
		 * Hash scheme 1, which a remote server of release 1.1 reads too;
		 * its header says so, and the remote @> hashes by it
		 */
		bs->value_params.scheme = BF_HASH_XXH3_128;
	}
	publish_value(bs, false);

	jf = palloc0(sizeof(JoinFilter));
	jf->state = JF_BUILDING;
	jf->mcxt = estate->es_query_cxt;
	jf->planned = Max(planned, 1024.0);
	if (!plan_filter(planned, &jf->params))
	{
		jf->no_budget = true;	/* work_mem went down since planning */
		jf->state = JF_OVERFILLED;
	}
	bs->filter = jf;

	/*
	 * A cached plan obeys join_filter = off: nothing is built, the probes
	 * find no filter and a remote scan gets none.  Nor is one built in the
	 * copy of the plan that rechecks a row updated concurrently
	 * (EvalPlanQual, under a ModifyTable or LockRows), which reads one row
	 * of each table and starts again for each row it rechecks, with changed
	 * parameters that may make the join read a probe row before it builds.
	 * The copy's parameter slots start with the values of the plan it
	 * rechecks for: the slot must say that this copy has no filter.
	 */
	if (join_filter_mode == JOIN_FILTER_OFF || estate->es_epq_active != NULL)
	{
		jf->state = JF_OFF;
		filter_param(estate, paramid)->value = (Datum) 0;
	}
	else
		filter_param(estate, paramid)->value = PointerGetDatum(jf);
	filter_param(estate, paramid)->isnull = false;
}

/*
 * The remote parameters: the keys as a bloomfilter value once complete,
 * NULL (every remote row passes) until then
 */
static void
publish_value(BuildState *bs, bool ready)
{
	EState	   *estate = bs->css.ss.ps.state;
	ListCell   *lc;

	foreach(lc, bs->fdw_params)
	{
		ParamExecData *prm = filter_param(estate, lfirst_int(lc));

		prm->isnull = !ready || !bs->value_allocated;
		prm->value = prm->isnull ? (Datum) 0 :
			PointerGetDatum(filterbuf_flat(&bs->value));
	}
}

static void
restart_filter(BuildState *bs)
{
	JoinFilter *jf = bs->filter;

	bs->finished = false;
	publish_value(bs, false);
	if (jf->state == JF_OFF)
		return;
	if (bs->value_allocated)
	{
		memset(bs->value.b.view.payload, 0, bs->value_params.payload_bytes);
		bs->value.b.view.items = 0;
		bs->value.pending.count = 0;
	}
	if (jf->no_budget)
		return;
	if (jf->allocated)
	{
		memset(jf->fb.b.view.payload, 0, jf->params.payload_bytes);
		jf->fb.b.view.items = 0;
		jf->fb.pending.count = 0;
	}
	jf->keys = 0;
	jf->state = JF_BUILDING;
}

/*
 * The child's rows are all in: the filter is READY, or OVERFILLED if it
 * got too many keys.  Under a Parallel Hash this process instead hands its
 * part to the shared filter (merge_shared) and reads the verdict of all
 * participants at its first probe (shared_verdict).
 */
static void
finish_build(BuildState *bs)
{
	JoinFilter *jf = bs->filter;

	if (bs->value_allocated)
		filterbuf_flush(&bs->value);
	publish_value(bs, jf->state == JF_BUILDING);
	if (jf->shared)
	{
		merge_shared(jf);
		return;
	}
	if (jf->state != JF_BUILDING)
		return;
	/* no key at all: an empty filter, which every probe row fails */
	if (!jf->allocated)
	{
		filterbuf_create(&jf->fb, jf->mcxt, &jf->params);
		jf->allocated = true;
	}
	filterbuf_flush(&jf->fb);
	jf->view = &jf->fb.b.view;
	jf->state = JF_READY;
}

/*
 * A Parallel Hash participant's end of the build: it ORs its keys into the
 * shared filter and adds their count, or, if it gave up on the filter
 * (overfull, or no budget), marks the shared filter abandoned.  Every
 * participant that reads build rows does this before it arrives at the
 * hash join's build barrier, and no process reads a probe row before that
 * barrier (a parallel hash join never reads one before it builds), so the
 * verdict each reads at its first probe is that of every participant.
 * One that joins the hash join after the build never builds: its filter
 * stays BUILDING until its first probe, which takes the same verdict
 * (nothing of its own to add).
 */
static void
merge_shared(JoinFilter *jf)
{
	if (jf->state != JF_BUILDING)
		pg_atomic_write_u32(&jf->control->abandoned, 1);
#ifndef PG_HAVE_ATOMIC_U64_SIMULATION
	else
	{
		pg_atomic_uint64 *all = (pg_atomic_uint64 *) jf->shared_view.payload;

		if (jf->allocated)
		{
			const uint64 *mine = (const uint64 *) jf->fb.b.view.payload;
			Size		nwords = jf->params.payload_bytes / sizeof(uint64);

			filterbuf_flush(&jf->fb);
			for (Size i = 0; i < nwords; i++)
				if (mine[i] != 0)
					pg_atomic_fetch_or_u64(&all[i], mine[i]);
		}
		pg_atomic_fetch_add_u64(&jf->control->keys, (uint64) jf->keys);
	}
#endif
	jf->view = &jf->shared_view;
	jf->state = JF_MERGED;
}

/*
 * At a participant's first probe after its build: the shared filter is
 * tested only if no participant gave up on it and all of them together
 * added no more keys than it holds
 */
void
shared_verdict(JoinFilter *jf)
{
	bool		usable;

	jf->view = &jf->shared_view;
	pg_memory_barrier();
	usable = pg_atomic_read_u32(&jf->control->abandoned) == 0;
#ifndef PG_HAVE_ATOMIC_U64_SIMULATION
	usable = usable && (double) pg_atomic_read_u64(&jf->control->keys) <=
		jf->planned * JF_OVERFULL;
#else
	usable = false;
#endif
	jf->state = usable ? JF_READY : JF_OVERFILLED;
}

static TupleTableSlot *
exec_build(CustomScanState *node)
{
	BuildState *bs = (BuildState *) node;
	JoinFilter *jf = bs->filter;
	PlanState  *child = linitial(node->custom_ps);
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *slot = ExecProcNode(child);
	MemoryContext old;
	ListCell   *lc;
	bf_hash		h;

	if (TupIsNull(slot))
	{
		if (!bs->finished)
			finish_build(bs);
		bs->finished = true;
		return slot;
	}
	if (jf->state != JF_BUILDING)
		return slot;

	if (!jf->allocated)
	{
		filterbuf_create(&jf->fb, jf->mcxt, &jf->params);
		jf->allocated = true;
	}
	ResetExprContext(econtext);
	econtext->ecxt_outertuple = slot;
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	foreach(lc, bs->key_exprs)
	{
		int			i = foreach_current_index(lc);

		bs->values[i] = ExecEvalExpr(lfirst(lc), econtext, &bs->isnull[i]);
	}
	if (bs->fdw_params != NIL && !bs->isnull[0])
	{
		if (!bs->value_allocated)
		{
			filterbuf_create(&bs->value, jf->mcxt, &bs->value_params);
			bs->value_allocated = true;
		}
		filterbuf_add_new_deferred(&bs->value,
								   element_hash(&bs->elem, bs->values[0],
												&bs->value.b.view));
	}
	if (hash_keys(bs->hash, bs->nkeys, bs->values, bs->isnull, &h))
	{
		filterbuf_add_deferred(&jf->fb, h);
		if (++jf->keys > jf->planned * JF_OVERFULL)
		{
			jf->state = JF_OVERFILLED;
			/* (the others may stop adding too) */
			if (jf->control)
				pg_atomic_write_u32(&jf->control->abandoned, 1);
		}
		else if (jf->control && ((uint64) jf->keys & 1023) == 0 &&
				 pg_atomic_read_u32(&jf->control->abandoned) != 0)
			jf->state = JF_OVERFILLED;
	}
	MemoryContextSwitchTo(old);
	return slot;
}

static void
rescan_build(CustomScanState *node)
{
	restart_filter((BuildState *) node);
	rescan_child(node);
}

/*
 * A Parallel Hash's shared filter: its control (SharedFilterControl) on a
 * cache line of its own, then the filter's bytes, the payload on a cache
 * line, in the parallel query's dynamic shared memory.  Without it (the
 * plan run without workers: no shared memory) each process builds alone,
 * as a serial one, and so does the hash table.
 */
static Size
estimate_dsm_build(CustomScanState *node, ParallelContext *pcxt)
{
	JoinFilter *jf = ((BuildState *) node)->filter;

	return jf->no_budget ? 0 : jf->params.total_bytes + 3 * PG_CACHE_LINE_SIZE;
}

static void
attach_shared(JoinFilter *jf, void *coordinate, bool init)
{
	SharedFilterControl *control = (SharedFilterControl *)
		TYPEALIGN(PG_CACHE_LINE_SIZE, coordinate);
	unsigned char *buf = (unsigned char *) control + PG_CACHE_LINE_SIZE;

	StaticAssertStmt(sizeof(SharedFilterControl) <= PG_CACHE_LINE_SIZE,
					 "the shared control takes one cache line");
	if (jf->no_budget || coordinate == NULL)
		return;
	if (init)
	{
#ifndef PG_HAVE_ATOMIC_U64_SIMULATION
		pg_atomic_uint64 *words;
#endif

		pg_atomic_init_u32(&control->abandoned, 0);
		bf_init(&jf->params, buf);
#ifndef PG_HAVE_ATOMIC_U64_SIMULATION
		pg_atomic_init_u64(&control->keys, 0);
		words = (pg_atomic_uint64 *) (buf + BF_HEADER_SIZE);
		for (Size i = 0; i < jf->params.payload_bytes / sizeof(uint64); i++)
			pg_atomic_init_u64(&words[i], 0);
#endif
	}
	if (bf_open(buf, jf->params.total_bytes, &jf->shared_view) != BF_OK)
		elog(ERROR, "bloomfilter: shared join filter damaged");
	jf->control = control;
	jf->shared = buf;
}

static void
initialize_dsm_build(CustomScanState *node, ParallelContext *pcxt,
					 void *coordinate)
{
	attach_shared(((BuildState *) node)->filter, coordinate, true);
}

static void
reinitialize_dsm_build(CustomScanState *node, ParallelContext *pcxt,
					   void *coordinate)
{
	attach_shared(((BuildState *) node)->filter, coordinate, true);
}

static void
initialize_worker_build(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	attach_shared(((BuildState *) node)->filter, coordinate, false);
}


static void
explain_build(CustomScanState *node, List *ancestors, ExplainState *es)
{
	BuildState *bs = (BuildState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	JoinFilter *jf = bs->filter;

	ExplainPropertyText("Bloom Join Filter",
						psprintf("%s (%s)",
								 filter_name(intVal(lsecond(cscan->custom_private))),
								 deparse_keys(cscan->custom_exprs, node,
											  ancestors, es)),
						es);
	if (es->verbose)
	{
		ExplainPropertyInteger("Planned Keys", NULL,
							   (int64) jf->planned, es);
		ExplainPropertyInteger("Filter Size", "kB",
							   (int64) ((jf->params.total_bytes + 1023) / 1024),
							   es);
	}
	if (bs->fdw_params != NIL)
		ExplainPropertyBool("Sent to Remote Scan", true, es);
	if (es->analyze)
		ExplainPropertyText("Filter State",
							jf->state == JF_READY || jf->state == JF_MERGED ? "complete" :
							jf->state == JF_OVERFILLED ? "overfull, not tested" :
							jf->state == JF_OFF ? "off (bloomfilter.join_filter)" :
							"not complete", es);
}


/* ----------------------------------------------------------------------
 * Method tables
 * ---------------------------------------------------------------------- */

const CustomScanKind join_build_kind = {
	.methods = {
		.CustomName = "bloomfilter join build",
		.CreateCustomScanState = custom_state_new,
	},
	.state_size = sizeof(BuildState), .exec = &build_exec,
};

static const CustomExecMethods build_exec = {
	.CustomName = "bloomfilter join build",
	.BeginCustomScan = begin_build, .ExecCustomScan = exec_build,
	.EndCustomScan = end_pass_through, .ReScanCustomScan = rescan_build,
	.ExplainCustomScan = explain_build,
	/* under a Parallel Hash: the shared filter */
	.EstimateDSMCustomScan = estimate_dsm_build,
	.InitializeDSMCustomScan = initialize_dsm_build,
	.ReInitializeDSMCustomScan = reinitialize_dsm_build,
	.InitializeWorkerCustomScan = initialize_worker_build,
};
