/*
 * info.c
 *		Inspection: bloomfilter_info and bloomfilter_cardinality.
 */
#include "bloomfilter.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(bloomfilter_info);
PG_FUNCTION_INFO_V1(bloomfilter_cardinality);
PG_FUNCTION_INFO_V1(bloomfilter_hash_scheme);

#define INFO_COLUMNS 14

static int64
clamp_int64(uint64 v)
{
	return v > (uint64) PG_INT64_MAX ? PG_INT64_MAX : (int64) v;
}

Datum
bloomfilter_info(PG_FUNCTION_ARGS)
{
	bf_filter	f;
	BloomFilter *bf = filter_getarg(fcinfo, 0, &f);
	bf_fill_stats fill;
	TupleDesc	tupdesc;
	Datum		values[INFO_COLUMNS];
	bool		nulls[INFO_COLUMNS] = {0};
	uint64		capacity;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);

	bf_fill(&f, &fill, yield_for_interrupts, NULL);
	capacity = bf_filter_capacity(&f);

	values[0] = CStringGetTextDatum(bf_variant_name(f.variant));
	values[1] = Int64GetDatum(clamp_int64(f.bits));
	values[2] = Int64GetDatum((int64) (VARSIZE(bf) - VARHDRSZ));
	values[3] = Int32GetDatum((int32) f.hashes);
	values[4] = Int64GetDatum((int64) f.seed);
	values[5] = Int64GetDatum(clamp_int64(f.items));
	values[6] = Int64GetDatum(clamp_int64(fill.bits_set));
	values[7] = Float8GetDatum(fill.fill_ratio);
	values[8] = Float8GetDatum(fill.estimated_items);
	values[9] = Float8GetDatum(fill.fpr);
	values[10] = Int64GetDatum(clamp_int64(capacity));
	nulls[10] = capacity == 0;
	values[11] = Float8GetDatum(f.target_fpr);
	nulls[11] = f.target_fpr == 0.0;
	values[12] = Int32GetDatum((int32) fill.stages);
	values[13] = Int64GetDatum(clamp_int64(fill.saturated));

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* bloomfilter_cardinality(f), # f: distinct items estimated from the fill */
Datum
bloomfilter_cardinality(PG_FUNCTION_ARGS)
{
	bf_filter	f;
	bf_fill_stats fill;

	filter_getarg(fcinfo, 0, &f);
	bf_fill(&f, &fill, yield_for_interrupts, NULL);
	PG_RETURN_FLOAT8(fill.estimated_items);
}

/* bloomfilter_hash_scheme(f): how f hashes its elements (STORAGE.md) */
Datum
bloomfilter_hash_scheme(PG_FUNCTION_ARGS)
{
	bf_filter	f;

	filter_getarg(fcinfo, 0, &f);
	PG_RETURN_INT32((int32) f.scheme);
}
