/*
 * selectivity.c
 *		Restriction selectivity of  filter @> column  and  column <@ filter.
 *
 * Without an estimator the planner assumes a fixed fraction of rows pass a
 * membership test, which misleads join planning exactly where filters are
 * used to cut rows early.  When the filter is known at planning time (a
 * constant) the fraction follows from the filter itself: of the column's d
 * distinct values about min(n, d) are members (n the filter's estimated
 * distinct items), and the rest pass with the filter's false-positive rate
 * p, so  sel = (m + p (d - m)) / d  with m = min(n, d).  When the filter is
 * only known at run time (a parameter, a subquery) the planner gets a
 * middling default.
 */
#include "bloomfilter.h"

#include <math.h>

#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

PG_FUNCTION_INFO_V1(bloomfilter_contsel);

/* Unknown filter: half the rows, as for other opaque boolean operators */
#define DEFAULT_SELECTIVITY 0.5

/*
 * Is 'type' (or the base type of a domain) this extension's bloomfilter?
 * (Also for EXPLAIN: custom_scan.c.)
 * The estimator may be attached to any operator by a superuser, so a
 * constant is read as a filter only when its type is the one whose input
 * function is this library's bloomfilter_in and whose values are varlenas.
 */
bool
type_is_bloomfilter(Oid type)
{
	Oid			base = getBaseType(type);
	int16		typlen;
	bool		typbyval;
	char		typalign,
				delim;
	Oid			ioparam,
				input;
	FmgrInfo	finfo;

	get_type_io_data(base, IOFunc_input, &typlen, &typbyval, &typalign,
					 &delim, &ioparam, &input);
	if (typlen != -1 || typbyval || !OidIsValid(input))
		return false;
	fmgr_info(input, &finfo);
	return finfo.fn_addr == bloomfilter_in;
}

Datum
bloomfilter_contsel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	bool		isdefault;
	double		ndistinct,
				members,
				sel;
	bf_filter	f;
	bf_fill_stats fill;
	Const	   *c;
	Oid			left,
				right;
	char	   *name;
	bool		filter_on_left;

	if (!get_restriction_variable(root, args, varRelid,
								  &vardata, &other, &varonleft))
		PG_RETURN_FLOAT8(DEFAULT_SELECTIVITY);

	/*
	 * Only "filter constant @> element column" (or its commutator) can be
	 * estimated: when the column holds the filters, the constant is an
	 * element, and nothing is known about the filters.
	 */
	op_input_types(operator, &left, &right);
	name = get_opname(operator);
	filter_on_left = name && strcmp(name, "@>") == 0;
	if (!IsA(other, Const) || ((Const *) other)->constisnull ||
		varonleft == filter_on_left ||
		exprType(other) != (filter_on_left ? left : right) ||
		!type_is_bloomfilter(exprType(other)))
	{
		ReleaseVariableStats(vardata);
		PG_RETURN_FLOAT8(DEFAULT_SELECTIVITY);
	}
	c = (Const *) other;
	ndistinct = get_variable_numdistinct(&vardata, &isdefault);
	ReleaseVariableStats(vardata);

	filter_open(pg_detoast_datum((struct varlena *) DatumGetPointer(c->constvalue)),
					 &f);
	bf_fill(&f, &fill, yield_for_interrupts, NULL);
	if (!(ndistinct >= 1) || isnan(fill.estimated_items))
		PG_RETURN_FLOAT8(DEFAULT_SELECTIVITY);
	members = Min(fill.estimated_items, ndistinct);
	sel = (members + fill.fpr * (ndistinct - members)) / ndistinct;
	CLAMP_PROBABILITY(sel);
	PG_RETURN_FLOAT8(sel);
}
