/*
 * join_filter_int.h
 *		What the files of the join filters (src/join_filter/) share, and
 *		nothing the rest of the library needs.
 *
 * The join filters in brief (doc/DEVELOPER.md has the path of a call, and
 * doc/join-filters-design.md the reasoning): a planner_hook post-processes
 * the finished plan, putting a "join build" node under a Hash Join's Hash,
 * which fills a Bloom filter of the build side's keys, and a "join probe"
 * node (or the join scan, in place of a sequential scan) where the join's
 * probe keys are made, which drops the rows whose key the filter rules out.
 * The two are linked by an executor parameter slot that holds the filter.
 *
 * The files, each calling only those below it:
 *
 *	 placement.c  the planner_hook: candidates, the cost decision, placement
 *	 paths.c	  the join paths that count a filter in their cost
 *	 fdw.c		  postgres_fdw: the test shipped in the remote query
 *	 trace.c	  following a probe key down to where it is made; quietness;
 *				  what a filter costs and saves
 *	 probe.c	  the probe tests, the run-time guard, the probe node
 *	 build.c	  the build node, the shared filter of a Parallel Hash
 *	 node.c		  what both nodes share: pass-through execution, EXPLAIN names
 *	 keys.c		  how a key hashes (both sides alike), the filter's shape
 *
 * Nothing in this folder is called from outside it but through custom_scan.h
 * (the probe API, for the join scan) and bloomfilter.h (join_filter_init).
 * The setting bloomfilter.join_filter (join_filter_mode) is defined in
 * placement.c, with the hooks, and read by build.c, probe.c and fdw.c too.
 */
#ifndef BLOOMFILTER_JOIN_FILTER_INT_H
#define BLOOMFILTER_JOIN_FILTER_INT_H

#include "bloomfilter.h"
#include "custom_scan.h"

#include "commands/explain.h"
#include BF_EXPLAIN_FORMAT_H
#include "common/hashfn.h"
#include "nodes/extensible.h"
#include "nodes/plannodes.h"
#include "port/atomics.h"

/* The seed of the key hashes (any value: only build and probe must agree) */
#define JF_SEED		UINT64CONST(0x5bd1e9955bd1e995)

/* The planned false-positive rate (the first of filter_shapes) */
#define JF_FPR		0.01

/*
 * The planner's side of the decision (placement.c's filter_pays, and the
 * paths of paths.c): a filter is placed when the join is expected to keep
 * at most JF_MAX_MATCH of its probe rows, when the rows it should remove
 * outweigh the cost of building and testing it, and when at least
 * JF_MIN_REMOVED_ROWS rows are expected to go (at the sites, or from the
 * join's probe side).
 */
#define JF_MAX_MATCH		0.7
#define JF_MIN_REMOVED_ROWS	1000.0

/* ----------------------------------------------------------------------
 * The filter, shared by a build node and its probe sites
 * ---------------------------------------------------------------------- */

typedef enum JoinFilterState
{
	JF_BUILDING,				/* not complete: pass every row */
	JF_READY,					/* complete: test */
	JF_OVERFILLED,				/* complete but overfull: pass every row */
	JF_OFF,						/* bloomfilter.join_filter = off when a cached
								 * plan runs: not built, every row passes */
	JF_MERGED					/* a Parallel Hash's: this process's keys are
								 * in the shared filter; the verdict of all
								 * participants is read at the first probe */
} JoinFilterState;

/*
 * What a Parallel Hash's participants decide together, in the shared
 * memory before the filter's bytes: whether any of them gave up on the
 * filter (too many keys for it), and the keys all of them added
 */
typedef struct SharedFilterControl
{
	pg_atomic_uint32 abandoned;
#ifndef PG_HAVE_ATOMIC_U64_SIMULATION
	pg_atomic_uint64 keys;
#endif
} SharedFilterControl;

typedef struct JoinFilter
{
	JoinFilterState state;
	bool		no_budget;		/* too large for this work_mem: never built */
	bool		allocated;		/* fb holds the bits */
	bf_params	params;			/* the planned shape */
	double		planned;		/* ... for this many keys */
	FilterBuf	fb;				/* this process's keys */
	double		keys;			/* keys added since the last (re)start */
	MemoryContext mcxt;
	/* what the probes test once READY: fb's view, or the shared one */
	const bf_filter *view;
	/* a Parallel Hash's: every participant's keys, in dynamic shared memory */
	SharedFilterControl *control;	/* NULL when serial */
	unsigned char *shared;
	bf_filter	shared_view;
} JoinFilter;

/*
 * One key column's hash function, with the join's collation.  A key the
 * element code hashes without calling a SQL function (integers of every
 * width alike, numeric, floats, text, varchar and char(n) under a
 * deterministic collation, bytea, uuid, dates and timestamps, interval,
 * inet: element_direct_kind) is hashed as a stored filter of hash scheme 2
 * hashes it, with the join filters' seed, so that = and the filter agree
 * as they do for stored filters; every other key by its hash operator
 * family's extended hash function, through fmgr.  Both sides of one key
 * column hash alike (kinds_agree).
 */
typedef struct KeyHash
{
	bool		direct;			/* by the element code */
	ElementHasher elem;			/* (when direct) */
	FmgrInfo	proc;			/* HASHEXTENDED_PROC of the opfamily */
	Oid			collation;
} KeyHash;

/* Two halves from one 64-bit hash (a murmur3 finalizer for the second) */
static inline bf_hash
split_hash(uint64 h)
{
	bf_hash		out = {.lo = h};

	out.hi = bf_fmix64(h);
	return out;
}

/*
 * A key's hash: integers and strings inline, the other kinds of the
 * element code through it, the rest by the family's function
 */
static pg_attribute_always_inline bf_hash
key_hash(const KeyHash *kh, Datum value)
{
	if (likely(kh->direct))
	{
		switch (kh->elem.kind)
		{
			case ELEM_INTEGER:
				return bf_hash_integer(kh->elem.typlen == 2 ? DatumGetInt16(value) :
									   kh->elem.typlen == 4 ? DatumGetInt32(value) :
									   DatumGetInt64(value), JF_SEED);
			case ELEM_BYTES:
				{
					struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));

					return bf_hash_bytes(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
										 JF_SEED);
				}
			default:
				return element_hash_any((ElementHasher *) &kh->elem, value,
										JF_SEED);
		}
	}
	return split_hash(DatumGetUInt64(FunctionCall2Coll((FmgrInfo *) &kh->proc,
													   kh->collation, value,
													   UInt64GetDatum(JF_SEED))));
}

/*
 * The hash of a row's keys as the filter takes it, or false when a key is
 * NULL (the row matches nothing)
 */
static pg_attribute_always_inline bool
hash_keys(const KeyHash *kh, int nkeys, const Datum *values,
		  const bool *isnull, bf_hash *h)
{
	uint64		acc = 0;

	if (nkeys == 1)
	{
		if (isnull[0])
			return false;
		*h = key_hash(&kh[0], values[0]);
		return true;
	}
	for (int i = 0; i < nkeys; i++)
	{
		if (isnull[i])
			return false;
		acc = hash_combine64(acc, key_hash(&kh[i], values[i]).lo);
	}
	*h = split_hash(acc);
	return true;
}

/* keys.c */
extern bool kinds_agree(Oid a, Oid b, Oid collation);
extern void key_hash_init(KeyHash *kh, Oid proc, Oid collation,
						  MemoryContext mcxt);

/*
 * Blocked filters at 1 %, 5 % and 10 %: bits per key and hashes (keys.c;
 * the first is JF_FPR's)
 */
typedef struct FilterShape
{
	double		bits_per_key;
	uint32		hashes;
} FilterShape;

extern const FilterShape filter_shapes[3];
extern bool plan_filter(double keys, bf_params *params);

/* ----------------------------------------------------------------------
 * What the plan nodes carry (custom_private, as lists of Integer and
 * String nodes, so that parallel workers read them back)
 * ---------------------------------------------------------------------- */

/*
 * build node: custom_private = (paramid, filter number, planned keys,
 * (hash proc, collation) per key), custom_exprs = the Hash's key
 * expressions (OUTER_VAR over the child's rows).
 *
 * probe node: custom_private = one list per filter tested, (paramid,
 * filter number, (attno, hash proc, collation) per key); custom_exprs = a
 * list per filter of Var(OUTER_VAR, attno), for EXPLAIN.
 */
#define OidNode(oid)	makeInteger((int) (oid))
#define NodeOid(node)	((Oid) intVal(node))

/*
 * build.c, probe.c: the two nodes' kinds (placement.c and fdw.c know the
 * nodes by their methods)
 */
extern const CustomScanKind join_build_kind;
extern const CustomScanKind join_probe_kind;

/* node.c: what the build and probe nodes share */
extern PlanState *begin_pass_through(CustomScanState *node, EState *estate,
									 int eflags);
extern void end_pass_through(CustomScanState *node);
extern void rescan_child(CustomScanState *node);
extern char *filter_name(int number);
extern char *deparse_keys(List *exprs, CustomScanState *node, List *ancestors,
						  ExplainState *es);

/* The executor parameter slot that links a build node to its probes */
static inline ParamExecData *
filter_param(EState *estate, int paramid)
{
	return &estate->es_param_exec_vals[paramid];
}

/* build.c: a Parallel Hash's filter, at a participant's first probe */
extern void shared_verdict(JoinFilter *jf);

/* ----------------------------------------------------------------------
 * Planning: the plan surgery
 * ---------------------------------------------------------------------- */

/* One filter to place */
typedef struct Candidate
{
	HashJoin   *join;
	Hash	   *hash;
	List	   *keys;			/* indexes into join->hashkeys, as Integers */
	List	   *probe_procs;	/* per key: hash proc for the probe side */
	List	   *build_procs;	/* ... and for the build side */
	List	   *sites;			/* Plan ** where a probe goes */
	List	   *site_attnos;	/* per key, an int list of the key's
								 * column at each site */
	bool		blocked;		/* a site is below a Hash or a Sort of the
								 * probe side (Trace) */
	double		planned_keys;
	List	   *fdw_params;		/* remote parameters it is sent as (ints) */
	Oid			fdw_elem_type;	/* ... the build key's type, hashed as the
								 * extension's elements */
	int			paramid;
	int			number;			/* bf1, bf2, ... in the statement */
} Candidate;

typedef struct Surgery
{
	PlannedStmt *stmt;
	Bitmapset  *gather_params;	/* the rescan parameters of Gathers */
	Bitmapset  *epq_params;		/* the EvalPlanQual parameters of
								 * ModifyTable and LockRows */
	LoudParams	loud;			/* the parameters initplans set */
	List	   *candidates;
	int			next_node_id;
	int			filters;
} Surgery;

static inline Expr *
strip_relabel(Expr *e)
{
	while (e && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	return e;
}

/*
 * What following a probe key finds: the sites (Plan ** where a probe node
 * goes, and the key's column there), the rows tested there and the work
 * they cost on their way up to the join, in units of an in-memory hash
 * probe per row (row_cost), summed over the nodes between each site and the
 * join; all per run of the join's probe side: a node on the inner side of a
 * nested loop runs once per outer row, and its plan_rows count one run.
 */
typedef struct Trace
{
	List	   *sites;
	List	   *attnos;
	double		site_rows;
	double		work;
	const LoudParams *loud;		/* the statement's initplan outputs */
	double		loops;			/* (while following: runs of the node per
								 * run of the probe side; 1 to start) */
	int			below_blocking; /* (while following: Hash and Sort nodes
								 * passed, which read their whole input when
								 * first asked for a row) */
	bool		blocked;		/* a site is below one */
} Trace;

/* Bytes past which a hash table or a filter no longer sits in the cache */
#define JF_CACHE_BYTES	(1024.0 * 1024.0)

/* trace.c */
extern double table_probe_cost(double rows, int width);
extern double probe_cost(HashJoin *join);
extern double node_row_cost(NodeTag tag, bool from_outer);
extern double filter_net_saving(double m, double site_rows,
								double probe_rows, double work,
								double build_rows, double filter_bytes);
extern List *other_children(Plan *plan);
extern bool trace_column(Plan **slot, AttrNumber attno, bool may_wrap,
						 double work, Trace *t);
extern bool same_sites(List *a, List *b);

/*
 * fdw.c: the placeholders of a planning (begin and end bracket one, which
 * may be nested), and the plan's remote parameters
 */
typedef struct FdwPlanning
{
	List	   *params;
	bool		type_known;
} FdwPlanning;

extern void fdw_planning_begin(FdwPlanning *outer);
extern void fdw_planning_end(const FdwPlanning *outer);
extern bool fdw_placeholders_made(void);
extern void fdw_install_hook(void);
extern void wire_fdw_params(Surgery *s, Candidate *c);
extern void null_unwired(Plan *plan, void *arg);

/* paths.c: the set_join_pathlist_hook */
extern void join_paths_install(void);

#endif							/* BLOOMFILTER_JOIN_FILTER_INT_H */
