/*
 * keys.c
 *		How a join key hashes, alike on the build and the probe side, and the
 *		shape of the filter the build side's keys fill.
 *
 * Owns KeyHash's set-up (the inline hashing itself, key_hash and hash_keys,
 * is in join_filter_int.h, for the build and probe loops), the rule that
 * both sides of a key column hash equal values alike (kinds_agree), and
 * the filter's size for a number of keys (plan_filter).
 *
 * Calls the element code (element.c) and the core; nothing else of the
 * join filters.
 */
#include "join_filter_int.h"

#include "catalog/pg_proc.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include <math.h>

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
bool
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

void
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

/*
 * Blocked filters at 1 %, 5 % and 10 %: bits per key and hashes, from the
 * blocked model (bloomfilter_optimal_bits at a million keys; README's
 * table).  Sizing a join filter from these costs nothing, where the model
 * itself takes milliseconds, and planning and starting a join must not.
 */
const FilterShape filter_shapes[] = {
	{9.92, 6}, {6.32, 4}, {4.84, 3}
};

/*
 * The filter's shape for 'keys' build keys (at least 1,024): at 1 %, or at
 * a rate up to 10 % that fits the budget (a quarter of the hash table's
 * memory limit), or none (false)
 */
bool
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
