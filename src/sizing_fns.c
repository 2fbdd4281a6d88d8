/*
 * sizing_fns.c
 *		Constructors and the sizing functions that plan a filter.
 */
#include "bloomfilter.h"

#include <math.h>

#include "funcapi.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(bloomfilter_create);
PG_FUNCTION_INFO_V1(bloomfilter_create_bits);
PG_FUNCTION_INFO_V1(bloomfilter_optimal_bits);
PG_FUNCTION_INFO_V1(bloomfilter_optimal_hashes);
PG_FUNCTION_INFO_V1(bloomfilter_false_positive_rate);
PG_FUNCTION_INFO_V1(bloomfilter_capacity);
PG_FUNCTION_INFO_V1(bloomfilter_plan);

static void
check_items(const char *name, int64 items, bool zero_ok)
{
	if (items < 0 && zero_ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be zero or positive", name),
				 errdetail("%s was " INT64_FORMAT ".", name, items)));
	if (items <= 0 && !zero_ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be positive", name),
				 errdetail("%s was " INT64_FORMAT ".", name, items)));
}

static void
check_rate(double fpr)
{
	if (!(fpr > 0.0 && fpr < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("false_positive_rate must lie strictly between 0 and 1"),
				 errdetail("false_positive_rate was %g.", fpr),
				 errhint("A rate of 1 %% is 0.01.")));
}

static void
check_hashes(int32 hashes)
{
	if (hashes < 1 || hashes > BF_MAX_HASHES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("hashes must be between 1 and %d", BF_MAX_HASHES),
				 errdetail("hashes was %d.", hashes)));
}

/*
 * The count a model function computed into *count, as a bigint; or the
 * error of its status 'st': past bigint, range_msg with range_detail (both
 * translated), else what report_plan_failure says.  *count is read only
 * after the call that fills it (it is passed as a pointer so that the
 * model call can be an argument).
 */
static Datum
count_datum(bf_status st, const uint64 *count, bf_variant variant,
			const char *function, const char *range_msg,
			const char *range_detail)
{
	if (st == BF_E_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg_internal("%s", range_msg),
				 errdetail_internal("%s", range_detail)));
	if (st != BF_OK)
		report_plan_failure(st, variant, function);
	return Int64GetDatum((int64) *count);
}

/* A filter too large for one value: say how large, and what to do */
static void
report_too_large(bf_variant variant, int64 items, double fpr,
				 const bf_params *params)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("bloomfilter would exceed the 1 GB limit of one value"),
			 errdetail("A %s filter for " INT64_FORMAT " items at rate %g needs " UINT64_FORMAT " bytes.",
					   bf_variant_name(variant), items, fpr,
					   (uint64) BF_HEADER_SIZE + params->payload_bytes),
			 errhint_split_set(true)));
}

/*
 * The last plan made in this backend.  Sizing a large blocked filter takes
 * the model milliseconds (4 ms for a million items), and bloomfilter_create
 * called per row plans the same filter again and again.
 */
static struct
{
	bool		valid;
	bf_variant	variant;
	int64		items;
	double		fpr;
	int64		seed;
	bf_params	params;
} last_plan;

/* Plans a filter for 'items' at 'fpr', with every argument checked */
void
plan_sized(bf_variant variant, int64 items, double fpr, int64 seed,
		   bf_params *params)
{
	bf_status	st;

	if (last_plan.valid && last_plan.variant == variant &&
		last_plan.items == items && last_plan.fpr == fpr &&
		last_plan.seed == seed)
	{
		*params = last_plan.params;
		return;
	}
	check_items("expected_items", items, false);
	check_rate(fpr);
	st = bf_plan(variant, (uint64) items, fpr, (uint64) seed, params);
	if (st == BF_E_TOO_LARGE && params->payload_bytes > 0)
		report_too_large(variant, items, fpr, params);
	if (st != BF_OK)
		report_plan_failure(st, variant, "bloomfilter_create");
	last_plan.variant = variant;
	last_plan.items = items;
	last_plan.fpr = fpr;
	last_plan.seed = seed;
	last_plan.params = *params;
	last_plan.valid = true;
}

/* A new, empty filter for 'items' at 'fpr' */
BloomFilter *
create_sized(bf_variant variant, int64 items, double fpr, int64 seed)
{
	bf_params	params;

	plan_sized(variant, items, fpr, seed, &params);
	return filter_new(&params);
}

/* bloomfilter_create(expected_items, false_positive_rate, variant, seed) */
Datum
bloomfilter_create(PG_FUNCTION_ARGS)
{
	bf_variant	variant = variant_from_text(PG_GETARG_TEXT_PP(2));

	PG_RETURN_BLOOMFILTER_P(create_sized(variant, PG_GETARG_INT64(0),
										 PG_GETARG_FLOAT8(1),
										 PG_GETARG_INT64(3)));
}

/* bloomfilter_create_bits(bits, hashes, variant, seed) */
Datum
bloomfilter_create_bits(PG_FUNCTION_ARGS)
{
	int64		bits = PG_GETARG_INT64(0);
	int32		hashes = PG_GETARG_INT32(1);
	bf_variant	variant = variant_from_text(PG_GETARG_TEXT_PP(2));
	int64		seed = PG_GETARG_INT64(3);
	bf_params	params;
	bf_status	st;

	check_items("bits", bits, false);
	check_hashes(hashes);
	st = bf_plan_bits(variant, (uint64) bits, (uint32) hashes, (uint64) seed,
					  &params);
	if (st == BF_E_TOO_LARGE)
	{
		uint64		need = bf_size_bytes(variant, (uint64) bits, (uint32) hashes);

		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter would exceed the 1 GB limit of one value"),
				 need ?
				 errdetail("A %s filter of " INT64_FORMAT " bits needs " UINT64_FORMAT " bytes.",
						   bf_variant_name(variant), bits, need) :
				 errdetail("A %s filter of " INT64_FORMAT " bits is past what its format can describe.",
						   bf_variant_name(variant), bits),
				 errhint_split_set(false)));
	}
	if (st != BF_OK)
		report_plan_failure(st, variant, "bloomfilter_create_bits");
	PG_RETURN_BLOOMFILTER_P(filter_new(&params));
}

/* bloomfilter_optimal_bits(expected_items, false_positive_rate, variant) */
Datum
bloomfilter_optimal_bits(PG_FUNCTION_ARGS)
{
	int64		items = PG_GETARG_INT64(0);
	double		fpr = PG_GETARG_FLOAT8(1);
	bf_variant	variant = variant_from_text(PG_GETARG_TEXT_PP(2));
	uint64		bits;
	uint32		hashes;

	check_items("expected_items", items, false);
	check_rate(fpr);
	return count_datum(bf_optimal_bits(variant, (double) items, fpr, &bits,
									   &hashes),
					   &bits, variant, "bloomfilter_optimal_bits",
					   _("bit count out of range for bigint"),
					   psprintf(_("Planning for %lld items at rate %g takes more than 2^63 bits."),
								(long long) items, fpr));
}

/* bloomfilter_capacity(bits, false_positive_rate, variant) */
Datum
bloomfilter_capacity(PG_FUNCTION_ARGS)
{
	bf_variant	variant = variant_from_text(PG_GETARG_TEXT_PP(2));
	int64		bits = PG_GETARG_INT64(0);
	double		fpr = PG_GETARG_FLOAT8(1);
	uint64		items;

	check_items("bits", bits, false);
	check_rate(fpr);
	return count_datum(bf_capacity(variant, (uint64) bits, fpr, &items),
					   &items, variant, "bloomfilter_capacity",
					   _("capacity out of range for bigint"),
					   psprintf(_("A filter of %lld bits holds more than 2^63 items at rate %g."),
								(long long) bits, fpr));
}

/* bloomfilter_optimal_hashes(bits, expected_items): round((m / n) ln 2) */
Datum
bloomfilter_optimal_hashes(PG_FUNCTION_ARGS)
{
	int64		bits = PG_GETARG_INT64(0);
	int64		items = PG_GETARG_INT64(1);

	check_items("bits", bits, false);
	check_items("expected_items", items, false);
	PG_RETURN_INT32((int32) bf_classic_hashes((double) bits, (double) items));
}

/* bloomfilter_false_positive_rate(bits, expected_items, hashes): classic */
Datum
bloomfilter_false_positive_rate(PG_FUNCTION_ARGS)
{
	int64		bits = PG_GETARG_INT64(0);
	int64		items = PG_GETARG_INT64(1);
	int32		hashes = PG_GETARG_INT32(2);

	check_items("bits", bits, false);
	check_items("expected_items", items, true);
	check_hashes(hashes);
	PG_RETURN_FLOAT8(bf_classic_fpr((double) bits, (double) items, hashes));
}

/*
 * bloomfilter_plan(expected_items, false_positive_rate): one row per
 * available variant, each planned by its own model.  Sizes past the 1 GB
 * limit of one value are shown too: planning is for finding that out.
 */
Datum
bloomfilter_plan(PG_FUNCTION_ARGS)
{
	int64		items = PG_GETARG_INT64(0);
	double		fpr = PG_GETARG_FLOAT8(1);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			v;

	check_items("expected_items", items, false);
	check_rate(fpr);
	InitMaterializedSRF(fcinfo, 0);
	for (v = BF_VARIANT_MIN; v <= BF_VARIANT_MAX; v++)
	{
		bf_variant	variant = (bf_variant) v;
		Datum		values[8];
		bool		nulls[8] = {0};
		bf_params	params;
		bf_status	st;

		memset(&params, 0, sizeof(params));
		st = bf_plan(variant, (uint64) items, fpr, 0, &params);
		if (st != BF_OK && st != BF_E_TOO_LARGE)
			report_plan_failure(st, variant, "bloomfilter_plan");
		values[0] = CStringGetTextDatum(bf_variant_name(variant));
		values[1] = Int64GetDatum((int64) params.bits);
		values[2] = Int64GetDatum((int64) (BF_HEADER_SIZE + params.payload_bytes));
		values[3] = Int32GetDatum((int32) params.hashes);
		values[4] = Float8GetDatum(8.0 * params.payload_bytes / (double) items);
		values[5] = Float8GetDatum(bf_plan_fpr(&params, (double) items));
		values[6] = BoolGetDatum(bf_can_remove(variant));
		values[7] = BoolGetDatum(true);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
