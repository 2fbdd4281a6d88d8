/*
 * join_filter.c
 *		Automatic Bloom join filters: a hash join's build side fills a Bloom
 *		filter of its keys, and the scans that feed the join's probe side drop
 *		the rows whose key is surely absent, before any join in between.
 *
 * A planner_hook post-processes the finished plan (doc/join-filters-design.md
 * gives the reasons and the PostgreSQL sources this follows).  For each Hash
 * Join that may drop probe rows (inner, semi, right, right anti, right semi:
 * never a preserved side, never an anti join's outer side) it
 *   - puts a "join build" node between the Hash and its child: it passes the
 *	   child's rows on unchanged and adds each row's keys (the Hash's own key
 *	   expressions) to the filter; at the child's end the filter is complete;
 *   - follows the join's probe keys down through the nodes that pass a
 *	   column on unchanged (joins of any kind, sorts, materializations,
 *	   appends, subquery scans, other hashes) to the nodes that produce them,
 *	   normally base scans, and puts a "join probe" node above each of them:
 *	   it passes the rows on that may have a partner and drops the others;
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
 * Until the filter is complete it passes every row: a hash join may read a
 * first probe row before it builds (to skip the build when the probe side
 * is empty), and a rescan starts the build again.  A Hash whose subtree
 * depends on executor parameters is left alone (the join may rebuild it
 * after it reads a probe row), and so are probe sites across a Gather (the
 * workers do not see the slot).  Under a Parallel Hash each process adds
 * its part to one filter in the parallel query's shared memory (see
 * finish_build).  A postgres_fdw probe scan gets the test in its remote
 * query (see "postgres_fdw" below).
 *
 * bloomfilter.join_filter: off; on (where the planner's estimates say the
 * filter pays, and a probe site stops testing a filter that removes too few
 * rows); always (every join that can take one; for tests).
 */
#include "bloomfilter.h"
#include "custom_scan.h"

#include "access/hash.h"
#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "access/genam.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/dependency.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "commands/defrem.h"
#include "catalog/pg_class_d.h"
#include "foreign/foreign.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parse_oper.h"
#include "utils/fmgroids.h"
#include "access/transam.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#include BF_EXPLAIN_FORMAT_H
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/nodeCustom.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
#include "utils/uuid.h"
#include "utils/varlena.h"

#include <math.h>

int			join_filter_mode = JOIN_FILTER_ON;	/* bloomfilter.join_filter */

static planner_hook_type prev_planner_hook = NULL;

/* The seed of the key hashes (any value: only build and probe must agree) */
#define JF_SEED		UINT64CONST(0x5bd1e9955bd1e995)

/* The planned false-positive rate (the first of filter_shapes) */
#define JF_FPR		0.01

/*
 * Keys beyond which a filter is not worth testing: eight times its planned
 * capacity (a filter planned for 1 % then answers "maybe" for most keys)
 */
#define JF_OVERFULL	8

/*
 * The run-time guard (bloomfilter.join_filter = on): a probe site tests a
 * filter in windows of JF_WINDOW rows; after a window in which it removed
 * less than JF_MIN_REMOVED of them it passes the next JF_REST windows
 * untested, then tries again.
 */
#define JF_WINDOW		4096
#define JF_MIN_REMOVED	0.2
#define JF_REST			16

/*
 * The planner's side of the decision: a filter is placed when the join is
 * expected to keep at most JF_MAX_MATCH of its probe rows, when the rows it
 * should remove outweigh the cost of building and testing it, and when at
 * least JF_MIN_REMOVED_ROWS rows are expected to go.
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

/*
 * Whether keys hashed by 'proc' (a family's extended hash) under
 * 'collation' go by the element code; sets the key type and its kind
 */
static bool
key_hashed_directly(Oid proc, Oid collation, Oid *type, ElementKind *kind)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(proc));
	bool		direct = false;

	if (!HeapTupleIsValid(tuple))
		return false;
	if (((Form_pg_proc) GETSTRUCT(tuple))->pronargs >= 1)
	{
		*type = ((Form_pg_proc) GETSTRUCT(tuple))->proargtypes.values[0];
		direct = element_direct_kind(*type, collation, kind);
	}
	ReleaseSysCache(tuple);
	return direct;
}

/*
 * Whether the two sides of a key column, hashed by procs a and b of one
 * family, hash equal values alike: both by the family's own functions
 * (which the family guarantees), or both by the element code as one type,
 * as integers of any width or as floats of either width.  Not so where one
 * side would go by the element code and the other by the family (text_ops
 * holds name: text = name would hash text's bytes by XXH3 and name's by
 * hash_any).
 */
static bool
kinds_agree(Oid a, Oid b, Oid collation)
{
	Oid			ta = InvalidOid,
				tb = InvalidOid;
	ElementKind ka,
				kb;
	bool		da = key_hashed_directly(a, collation, &ta, &ka);
	bool		db = key_hashed_directly(b, collation, &tb, &kb);

	if (!da || !db)
		return da == db;
	if (getBaseType(ta) == getBaseType(tb))
		return true;
	return (ka == ELEM_INTEGER && kb == ELEM_INTEGER) ||
		((ka == ELEM_FLOAT4 || ka == ELEM_FLOAT8) &&
		 (kb == ELEM_FLOAT4 || kb == ELEM_FLOAT8));
}

static void
key_hash_init(KeyHash *kh, Oid proc, Oid collation, MemoryContext mcxt)
{
	Oid			type;
	ElementKind kind;

	fmgr_info_cxt(proc, &kh->proc, mcxt);
	kh->collation = collation;
	kh->direct = key_hashed_directly(proc, collation, &type, &kind);
	if (kh->direct)
		element_hasher_init(&kh->elem, type, collation, mcxt);
}

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

static const CustomScanKind build_kind;
static const CustomScanKind probe_kind;
static const CustomExecMethods build_exec;
static const CustomExecMethods probe_exec;

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
	LoudParams	loud;			/* the parameters initplans set */
	List	   *candidates;
	int			next_node_id;
	int			filters;
} Surgery;

static Expr *
strip_relabel(Expr *e)
{
	while (e && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	return e;
}

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

/*
 * What following a probe key finds: the sites (Plan ** where a probe node
 * goes, and the key's column there) and the work the sites' rows cost on
 * their way up to the join, in units of an in-memory hash probe per row
 * (row_cost), summed over the nodes between each site and the join.
 */
typedef struct Trace
{
	List	   *sites;
	List	   *attnos;
	double		work;
	const LoudParams *loud;		/* the statement's initplan outputs */
} Trace;

/* Bytes past which a hash table or a filter no longer sits in the cache */
#define JF_CACHE_BYTES	(1024.0 * 1024.0)

/*
 * What one probe row costs the hash join 'join', relative to a probe of an
 * in-memory table in the cache: more when the table is past the cache, and
 * writing and reading the row again for the share of it that spills
 */
static double
probe_cost(HashJoin *join)
{
	Plan	   *inner = outerPlan(innerPlan(join));
	double		bytes = inner->plan_rows * (inner->plan_width + 48);
	double		limit = (double) get_hash_memory_limit();
	double		cost = 1.0;

	if (bytes > JF_CACHE_BYTES)
		cost += 2.0;
	if (bytes > limit)
		cost += 10.0 * (1.0 - limit / bytes);
	return cost;
}

/* The cost of a row that 'child' passes up to 'plan' (see Trace) */
static double
row_cost(Plan *plan, Plan *child)
{
	switch (nodeTag(plan))
	{
		case T_HashJoin:
			return child == outerPlan(plan) ? probe_cost((HashJoin *) plan) : 0.0;
		case T_NestLoop:
			return child == outerPlan(plan) ? 2.0 : 1.0;
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
static List *
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
 * Follows output column attno of *slot down to the nodes that produce it,
 * appending a site for each (several under an Append).  A node passes the
 * column on from a child when its target list entry is a plain reference to
 * the child's column and every row it emits with a value of the column
 * comes from a child row with that value: joins, Sort, Material, Hash,
 * Result over a child, Append, MergeAppend, SubqueryScan.  Anything else is
 * itself the site, unless a probe cannot stand above it: a Hash (its join
 * needs it as its direct child), the inner side of a merge join (it is
 * marked and restored), an asynchronous scan (its Append must see it).
 * 'work' is what a row of *slot costs up to the join (see Trace).
 */
static bool
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
		found = trace_column(child, var->varattno, child_may_wrap,
							 work + row_cost(plan, *child) * (*child)->plan_rows,
							 t);
	if (found)
		return true;
	if (!may_wrap || IsA(plan, Hash) || plan->async_capable)
		return false;
	t->sites = lappend(t->sites, slot);
	t->attnos = lappend_int(t->attnos, attno);
	t->work += work;
	return true;
}

static bool
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
 * Blocked filters at 1 %, 5 % and 10 %: bits per key and hashes, from the
 * blocked model (bloomfilter_optimal_bits at a million keys; README's
 * table).  Sizing a join filter from these costs nothing, where the model
 * itself takes milliseconds, and planning and starting a join must not.
 */
static const struct
{
	double		bits_per_key;
	uint32		hashes;
}			filter_shapes[] = {
	{9.92, 6}, {6.32, 4}, {4.84, 3}
};

/*
 * The filter's shape for 'keys' build keys (at least 1,024): at 1 %, or at
 * a rate up to 10 % that fits the budget (a quarter of the hash table's
 * memory limit), or none (false)
 */
static bool
plan_filter(double keys, bf_params *params)
{
	double		budget = (double) get_hash_memory_limit() / 4;
	double		n = Max(Min(keys, (double) PG_INT32_MAX), 1024.0);

	for (int i = 0; i < lengthof(filter_shapes); i++)
	{
		if (bf_plan_bits(BF_BLOCKED,
						 (uint64) ceil(n * filter_shapes[i].bits_per_key),
						 filter_shapes[i].hashes, 0, params) == BF_OK &&
			(double) params->total_bytes <= budget)
			return true;
	}
	return false;
}

/*
 * Whether the filter pays, from the estimates, in units of an in-memory
 * hash probe of a row (row_cost): the rows it should remove each save what
 * they would cost on their way up (the work of the nodes between the sites
 * and the join, and the join's own probe), against a test of every row at
 * the sites (one unit, two for a filter past the cache) and an add per
 * build row.  A join whose most selective join is already the first a row
 * meets, with small tables, gains nothing: the planner put it there.
 */
static bool
filter_pays(HashJoin *join, List *sites, double work,
			const bf_params *params)
{
	double		m = match_fraction(join);
	double		probe_rows = 0;
	double		build_rows = outerPlan(innerPlan(join))->plan_rows;
	double		test = (double) params->total_bytes > JF_CACHE_BYTES ? 2.0 : 1.0;
	double		gone,
				saved;
	ListCell   *lc;

	if (m > JF_MAX_MATCH)
		return false;
	foreach(lc, sites)
		probe_rows += (*(Plan **) lfirst(lc))->plan_rows;
	gone = (1.0 - m) * (1.0 - JF_FPR);
	if (probe_rows * gone < JF_MIN_REMOVED_ROWS)
		return false;
	saved = gone * (work + probe_cost(join) * outerPlan(join)->plan_rows);
	return saved - test * probe_rows - 0.3 * build_rows > 0.1 * probe_rows;
}

/* ----------------------------------------------------------------------
 * postgres_fdw: the test shipped in the remote query
 *
 * When a postgres_fdw foreign table's server lists this extension in its
 * "extensions" option, set_rel_pathlist_hook adds to the table's
 * restrictions, for each column it is hash-joined on, the clause
 *     ($p IS NULL OR $p @> column)
 * with $p a placeholder parameter of type bloomfilter.  postgres_fdw ships
 * it in the remote query as it ships a hand-written filter test, $p as one
 * of the remote query's parameters.  The planner_hook then replaces $p in
 * the scan's parameter list, either by an executor parameter of its own,
 * wired to the build node of a hash join whose probe key is that column,
 * which publishes the build side's keys as a bloomfilter value once they
 * are all in, or by NULL.  The clause changes no estimate (its selectivity is
 * 1), and until the filter is complete $p is NULL: every row passes.
 * ---------------------------------------------------------------------- */

/*
 * The placeholders' numbers: an external parameter (postgres_fdw ships
 * those, and the planner's own bookkeeping of executor parameters, which
 * runs after set_rel_pathlist_hook, ignores them) that no query has
 */
#define JF_FDW_PARAM_BASE	1000000000

typedef struct FdwParam
{
	int			paramid;
	Index		relid;
	AttrNumber	attno;
	Oid			type;			/* the column's */
} FdwParam;

static set_rel_pathlist_hook_type prev_pathlist_hook = NULL;
static List *fdw_params = NIL;	/* FdwParams of the statement in planning */
static Oid	filter_type = InvalidOid;	/* bloomfilter's type, once looked up */
static bool filter_type_known = false;	/* ... in this planning */
/*
 * Plannings under way that join_filter_planner will post-process: a
 * placeholder is added only then (the library may be loaded in the middle
 * of a planning, by the first call of one of its functions, or another
 * planner_hook may bypass this one; a placeholder left in a plan would
 * fail at run time)
 */
static int	planning_depth = 0;
static Oid	filter_nsp = InvalidOid;	/* ... and its schema */
static Oid	filter_ext = InvalidOid;	/* ... and the extension */

/* The type bloomfilter in this database, or InvalidOid; sets filter_nsp */
static Oid
find_filter_type(void)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			type = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber,
				F_NAMEEQ, CStringGetDatum("bloomfilter"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		filter_nsp = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
		filter_ext = ((Form_pg_extension) GETSTRUCT(tuple))->oid;
		type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
							   CStringGetDatum("bloomfilter"),
							   ObjectIdGetDatum(filter_nsp));
		/* (the extension's own, which no one else can have made) */
		if (OidIsValid(type) &&
			getExtensionOfObject(TypeRelationId, type) != filter_ext)
			type = InvalidOid;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return type;
}

/* Whether rel is a postgres_fdw table whose server lists this extension */
static bool
ships_filters(RelOptInfo *rel)
{
	ForeignServer *server = GetForeignServer(rel->serverid);
	ForeignDataWrapper *fdw = GetForeignDataWrapper(server->fdwid);
	char	   *handler = get_func_name(fdw->fdwhandler);
	ListCell   *lc;

	if (handler == NULL || strcmp(handler, "postgres_fdw_handler") != 0)
		return false;
	foreach(lc, server->options)
	{
		DefElem    *def = lfirst(lc);
		List	   *names = NIL;

		if (strcmp(def->defname, "extensions") == 0 &&
			SplitIdentifierString(pstrdup(defGetString(def)), ',', &names))
		{
			ListCell   *ln;

			foreach(ln, names)
				if (strcmp(lfirst(ln), "bloomfilter") == 0)
					return true;
		}
	}
	return false;
}

/*
 * Whether a join key of 'type' compared with collation 'collation' may be
 * tested with @>: a value the extension hashes without calling SQL code
 * (integers of every width alike, text and varchar, bytea, uuid), with a
 * deterministic collation (equal strings are equal bytes)
 */
static bool
shippable_key(Oid type, Oid collation, ElementKind *kind)
{
	if (!element_plain_kind(type, kind) || *kind == ELEM_BPCHAR)
		return false;
	return *kind != ELEM_BYTES || !OidIsValid(collation) ||
		get_collation_isdeterministic(collation);
}

/*
 * The extension's own operator  bloomfilter @> T  for a column of 'type'
 * (varchar: the one for text), or InvalidOid.  Looked up by its argument
 * types in the extension's schema and then required to be a member of the
 * extension: anyone who may create objects in that schema may create an
 * operator of the same name, which postgres_fdw would not ship.
 */
static Oid
contains_operator(Oid type)
{
	Oid			right = getBaseType(type);
	Oid			opno;

	if (right == VARCHAROID)
		right = TEXTOID;
	opno = GetSysCacheOid4(OPERNAMENSP, Anum_pg_operator_oid,
						   CStringGetDatum("@>"),
						   ObjectIdGetDatum(filter_type),
						   ObjectIdGetDatum(right),
						   ObjectIdGetDatum(filter_nsp));
	if (!OidIsValid(opno) ||
		getExtensionOfObject(OperatorRelationId, opno) != filter_ext)
		return InvalidOid;
	return opno;
}

/* The FdwParam of rel's column attno, made (with its clause) if new */
static void
add_fdw_clause(PlannerInfo *root, RelOptInfo *rel, Var *col, Index level)
{
	ListCell   *lc;
	Param	   *param;
	Oid			opno;
	Expr	   *clause;
	RestrictInfo *rinfo;
	FdwParam   *fp;

	foreach(lc, fdw_params)
	{
		fp = lfirst(lc);
		if (fp->relid == rel->relid && fp->attno == col->varattno)
			return;
	}
	opno = contains_operator(col->vartype);
	if (!OidIsValid(opno))
		return;

	param = makeNode(Param);
	param->paramkind = PARAM_EXTERN;
	param->paramid = JF_FDW_PARAM_BASE + list_length(fdw_params);
	param->paramtype = filter_type;
	param->paramtypmod = -1;
	param->paramcollid = InvalidOid;
	param->location = -1;
	{
		NullTest   *isnull = makeNode(NullTest);
		OpExpr	   *test;
		Expr	   *arg = (Expr *) copyObject(col);

		isnull->arg = (Expr *) param;
		isnull->nulltesttype = IS_NULL;
		isnull->argisrow = false;
		isnull->location = -1;
		/* (a varchar column is tested as text, which it is) */
		if (getBaseType(col->vartype) == VARCHAROID)
			arg = (Expr *) makeRelabelType(arg, TEXTOID, -1,
										   col->varcollid,
										   COERCE_IMPLICIT_CAST);
		test = (OpExpr *) make_opclause(opno, BOOLOID, false, (Expr *) param,
										arg, InvalidOid, InvalidOid);
		set_opfuncid(test);
		clause = make_orclause(list_make2(isnull, test));
	}
	rinfo = make_simple_restrictinfo(root, clause);
	rinfo->security_level = level;
	rinfo->norm_selec = 1.0;
	rinfo->outer_selec = 1.0;
	rel->baserestrictinfo = lappend(rel->baserestrictinfo, rinfo);

	fp = palloc(sizeof(FdwParam));
	fp->paramid = param->paramid;
	fp->relid = rel->relid;
	fp->attno = col->varattno;
	fp->type = col->vartype;
	fdw_params = lappend(fdw_params, fp);
}

/*
 * set_rel_pathlist_hook: the speculative clauses of a postgres_fdw table,
 * one per column that a hash-joinable clause compares with other tables
 */
static void
fdw_pathlist_hook(PlannerInfo *root, RelOptInfo *rel, Index rti,
				  RangeTblEntry *rte)
{
	ListCell   *lc;

	if (prev_pathlist_hook)
		prev_pathlist_hook(root, rel, rti, rte);
	if (planning_depth == 0 ||
		join_filter_mode == JOIN_FILTER_OFF || rte->rtekind != RTE_RELATION ||
		rte->relkind != RELKIND_FOREIGN_TABLE || !OidIsValid(rel->serverid))
		return;
	if (!filter_type_known)
	{
		filter_type = find_filter_type();
		filter_type_known = true;
	}
	if (!OidIsValid(filter_type) || !ships_filters(rel))
		return;
	/* equalities between tables are equivalence classes ... */
	foreach(lc, root->eq_classes)
	{
		EquivalenceClass *ec = lfirst(lc);
		ListCell   *lm;
		ElementKind kind;

		if (ec->ec_has_const || ec->ec_broken ||
			!bms_is_member(rel->relid, ec->ec_relids) ||
			bms_num_members(ec->ec_relids) < 2)
			continue;
		foreach(lm, ec->ec_members)
		{
			EquivalenceMember *em = lfirst(lm);
			Var		   *col = (Var *) strip_relabel(em->em_expr);

			if (IsA(col, Var) && col->varno == rel->relid &&
				col->varattno > 0 && col->varlevelsup == 0 &&
				shippable_key(col->vartype, ec->ec_collation, &kind))
				add_fdw_clause(root, rel, col, 0);
		}
	}
	/* ... the others (outer joins' conditions) are join clauses */
	foreach(lc, rel->joininfo)
	{
		RestrictInfo *ri = lfirst(lc);
		OpExpr	   *op = (OpExpr *) ri->clause;
		ElementKind kind;

		if (!OidIsValid(ri->hashjoinoperator) || !IsA(op, OpExpr) ||
			list_length(op->args) != 2)
			continue;
		for (int side = 0; side < 2; side++)
		{
			Var		   *col = (Var *) strip_relabel(list_nth(op->args, side));

			if (IsA(col, Var) && col->varno == rel->relid &&
				col->varattno > 0 && col->varlevelsup == 0 &&
				shippable_key(col->vartype, op->inputcollid, &kind))
				add_fdw_clause(root, rel, col, ri->security_level);
		}
	}
}

/* The FdwParam of paramid, or NULL */
static FdwParam *
fdw_param_of(int paramid)
{
	ListCell   *lc;

	foreach(lc, fdw_params)
		if (((FdwParam *) lfirst(lc))->paramid == paramid)
			return lfirst(lc);
	return NULL;
}

/*
 * Wires candidate c to the remote parameter of each of its sites that is
 * a postgres_fdw scan carrying one for the key's column, when c has one key
 * that @> tests with the join's equality
 */
static void
wire_fdw_params(Surgery *s, Candidate *c)
{
	ListCell   *ls;
	int			k;
	Expr	   *inner_key;
	Oid			collation;
	ElementKind inner_kind,
				outer_kind;

	if (fdw_params == NIL || list_length(c->keys) != 1)
		return;
	k = linitial_int(c->keys);
	inner_key = list_nth(c->hash->hashkeys, k);
	collation = list_nth_oid(c->join->hashcollations, k);
	if (!shippable_key(exprType((Node *) inner_key), collation, &inner_kind))
		return;
	foreach(ls, c->sites)
	{
		Plan	   *site = *(Plan **) lfirst(ls);
		AttrNumber	attno = list_nth_int(linitial(c->site_attnos),
										 foreach_current_index(ls));
		TargetEntry *tle;
		Var		   *col;
		ListCell   *le;

		/* (the probe node placed over it) */
		if (IsA(site, CustomScan) &&
			((CustomScan *) site)->methods == &probe_kind.methods)
			site = linitial(((CustomScan *) site)->custom_plans);
		if (!IsA(site, ForeignScan) || ((Scan *) site)->scanrelid == 0)
			continue;
		tle = list_nth_node(TargetEntry, site->targetlist, attno - 1);
		col = (Var *) strip_relabel(tle->expr);
		if (!IsA(col, Var) || col->varno != ((Scan *) site)->scanrelid)
			continue;
		foreach(le, ((ForeignScan *) site)->fdw_exprs)
		{
			Param	   *p = lfirst(le);
			FdwParam   *fp;

			if (!IsA(p, Param) || p->paramkind != PARAM_EXTERN ||
				(fp = fdw_param_of(p->paramid)) == NULL ||
				fp->attno != col->varattno ||
				!shippable_key(fp->type, collation, &outer_kind) ||
				outer_kind != inner_kind)
				continue;
			p = copyObject(p);
			p->paramkind = PARAM_EXEC;
			p->paramid = list_length(s->stmt->paramExecTypes);
			s->stmt->paramExecTypes = lappend_oid(s->stmt->paramExecTypes,
												  p->paramtype);
			lfirst(le) = p;
			c->fdw_params = lappend_int(c->fdw_params, p->paramid);
			c->fdw_elem_type = exprType((Node *) inner_key);
		}
	}
}

/* A NULL in place of every placeholder in an expression */
static Node *
null_placeholders(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXTERN &&
		fdw_param_of(((Param *) node)->paramid) != NULL)
		return (Node *) makeNullConst(((Param *) node)->paramtype, -1,
									  InvalidOid);
	return expression_tree_mutator(node, null_placeholders, context);
}

/*
 * A NULL in place of every placeholder that is not a wired remote
 * parameter: in the remote parameters left unwired, and wherever
 * postgres_fdw copied the clause to be run here (the quals it checks
 * locally, the EvalPlanQual recheck of a row updated concurrently), where
 * the clause then holds for every row.  No placeholder may stay in a plan:
 * a PL/pgSQL function's parameter lookup takes its number as an index.
 */
static void
null_unwired(Plan *plan, void *arg)
{
	plan->qual = (List *) null_placeholders((Node *) plan->qual, NULL);
	plan->targetlist = (List *) null_placeholders((Node *) plan->targetlist,
												  NULL);
	if (IsA(plan, ForeignScan))
	{
		ForeignScan *fscan = (ForeignScan *) plan;

		fscan->fdw_exprs = (List *)
			null_placeholders((Node *) fscan->fdw_exprs, NULL);
		fscan->fdw_recheck_quals = (List *)
			null_placeholders((Node *) fscan->fdw_recheck_quals, NULL);
		fscan->fdw_scan_tlist = (List *)
			null_placeholders((Node *) fscan->fdw_scan_tlist, NULL);
	}
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
	double		work = 0.0;
	Candidate  *c;
	bf_params	params;
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
	 * before it builds.
	 */
	if (!bms_is_empty(hash->plan.parallel_aware ?
					  bms_difference(hash->plan.allParam, s->gather_params) :
					  hash->plan.allParam))
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
		Trace		t = {.loud = &s->loud};

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
			work = t.work;
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
	if (join_filter_mode != JOIN_FILTER_ALWAYS &&
		!filter_pays(join, best_sites, work, &params))
		return;

	c = palloc0(sizeof(Candidate));
	c->join = join;
	c->hash = hash;
	c->keys = keys;
	c->probe_procs = probe_procs;
	c->build_procs = build_procs;
	c->sites = best_sites;
	c->site_attnos = best_attnos;
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
			((CustomScan *) *slot)->methods == &probe_kind.methods)
			probe = (CustomScan *) *slot;
		else
		{
			probe = pass_through_node(s, *slot, &probe_kind);
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
	CustomScan *build = pass_through_node(s, outerPlan(c->hash), &build_kind);
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
				((CustomScan *) outer)->methods == &probe_kind.methods)
				outer->startup_cost = Max(outer->startup_cost,
										  c->hash->plan.total_cost);
		}
	}
	if (fdw_params != NIL)
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
				((CustomScan *) *slot)->methods == &probe_kind.methods &&
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
	List	   *outer_params = fdw_params;
	bool		outer_known = filter_type_known;

	/* (the planner plans queries of SQL functions inside this one) */
	fdw_params = NIL;
	filter_type_known = false;
	planning_depth++;
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
		planning_depth--;
		fdw_params = outer_params;
		filter_type_known = outer_known;
	}
	PG_END_TRY();
	return stmt;
}

/* ----------------------------------------------------------------------
 * Execution: what build and probe nodes share
 * ---------------------------------------------------------------------- */

/*
 * Starts the child of a pass-through node, whose rows it hands on as they
 * are: the node's result is the child's slot, of the child's kind and
 * descriptor, which its parent's expressions are compiled for.
 */
static PlanState *
begin_pass_through(CustomScanState *node, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	PlanState  *child = ExecInitNode(linitial(cscan->custom_plans), estate,
									 eflags);
	PlanState  *ps = &node->ss.ps;

	node->custom_ps = list_make1(child);
	ps->ps_ResultTupleDesc = ExecGetResultType(child);
	ps->resultops = ExecGetResultSlotOps(child, &ps->resultopsfixed);
	ps->resultopsset = true;
	/* this node's own expressions read the child's rows as OUTER_VAR */
	ps->outeropsset = true;
	ps->outeropsfixed = false;	/* (no outer PlanState to describe them) */
	return child;
}

static void
end_pass_through(CustomScanState *node)
{
	ExecEndNode(linitial(node->custom_ps));
}

static void
rescan_child(CustomScanState *node)
{
	PlanState  *child = linitial(node->custom_ps);

	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, node->ss.ps.chgParam);
	if (child->chgParam == NULL)
		ExecReScan(child);
}

static ParamExecData *
filter_param(EState *estate, int paramid)
{
	return &estate->es_param_exec_vals[paramid];
}

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
	 * find no filter and a remote scan gets none
	 */
	if (join_filter_mode == JOIN_FILTER_OFF)
		jf->state = JF_OFF;
	else
	{
		filter_param(estate, paramid)->value = PointerGetDatum(jf);
		filter_param(estate, paramid)->isnull = false;
	}
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
 * stays BUILDING and it tests no row.
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
static void
shared_verdict(JoinFilter *jf)
{
	bool		usable;

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

/* "bf1", the filter's name in EXPLAIN */
static char *
filter_name(int number)
{
	return psprintf("bf%d", number);
}

static char *
deparse_keys(List *exprs, CustomScanState *node, List *ancestors,
			 ExplainState *es)
{
	List	   *context = set_deparse_context_plan(es->deparse_cxt,
												   node->ss.ps.plan,
												   ancestors);
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, exprs)
		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) ? ", " : "",
						 deparse_expression(lfirst(lc), context,
											es->verbose ||
											list_length(es->rtable) > 1,
											false));
	return buf.data;
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
 * The probe side: the filters a probe site tests, by the probe node above
 * any plan node and by the join scan (prefetch_scan.c) in place of a
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
	if (unlikely(t->filter->state == JF_MERGED))
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
 * The first filter's hash of the row in 'slot' (false: a key is NULL), its
 * block prefetched when the filter is complete.  Detoasted keys are left in
 * the current memory context.
 */
bool
join_probe_hash(JoinProbe *jp, TupleTableSlot *slot, bf_hash *h)
{
	ProbeTest  *t = &jp->tests[0];
	JoinFilter *jf;
	Datum		value;

	if (jp->first_off >= 0 && heap_key(jp, slot, &value))
		*h = key_hash(&t->hash[0], value);
	else if (!row_hash(t, slot, h))
		return false;
	jf = filter_in_use(jp, t);
	if (jf != NULL)
		bf_prefetch(jf->view, *h);
	return true;
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

/* ----------------------------------------------------------------------
 * Method tables
 * ---------------------------------------------------------------------- */

static const CustomScanKind build_kind = {
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

static const CustomScanKind probe_kind = {
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

void
join_filter_init(void)
{
	RegisterCustomScanMethods(&build_kind.methods);
	RegisterCustomScanMethods(&probe_kind.methods);
	prev_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = fdw_pathlist_hook;
	prev_planner_hook = planner_hook;
	planner_hook = join_filter_planner;
}
