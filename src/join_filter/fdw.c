/*
 * fdw.c
 *		The join filters and postgres_fdw: the test shipped in the remote
 *		query of a foreign table on the probe side.
 *
 * Owns the placeholder clauses a set_rel_pathlist_hook adds to a foreign
 * table's restrictions, their parameters (FdwParam), and wiring them to a
 * build node's remote parameters once the filters are placed, or to NULL.
 *
 * Called by placement.c (the planner_hook brackets each planning with
 * fdw_planning_begin and fdw_planning_end); calls nothing of the join
 * filters but the probe node's kind, to see through it.
 */
#include "join_filter_int.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "catalog/pg_class_d.h"
#include "foreign/foreign.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

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
void
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
			((CustomScan *) site)->methods == &join_probe_kind.methods)
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
void
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
 * A planning begins: no placeholder yet, and the type looked up again (the
 * outer planning's are kept in 'outer')
 */
void
fdw_planning_begin(FdwPlanning *outer)
{
	outer->params = fdw_params;
	outer->type_known = filter_type_known;
	fdw_params = NIL;
	filter_type_known = false;
	planning_depth++;
}

/* ... and ends: the outer planning's placeholders are back */
void
fdw_planning_end(const FdwPlanning *outer)
{
	planning_depth--;
	fdw_params = outer->params;
	filter_type_known = outer->type_known;
}

/* Whether the planning under way added a placeholder */
bool
fdw_placeholders_made(void)
{
	return fdw_params != NIL;
}

void
fdw_install_hook(void)
{
	prev_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = fdw_pathlist_hook;
}
