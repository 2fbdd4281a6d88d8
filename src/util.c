/*
 * util.c
 *		Module magic and the helpers every SQL-callable function shares:
 *		opening filters, reporting core errors, parsing variants, allocating.
 */
#include "bloomfilter.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Loading the library: the custom scans' settings, methods and hooks */
void
_PG_init(void)
{
	prefetch_scan_init();
	agg_scan_init();
	inplace_init();
	MarkGUCPrefixReserved("bloomfilter");
}

/*
 * Opens a filter that PostgreSQL handed us (any varlena header, not
 * external): every way in was validated, so bad bytes mean corruption.
 */
void
bloomfilter_open(struct varlena *bf, bf_filter *view)
{
	bf_status	st = bf_open(VARDATA_ANY(bf), VARSIZE_ANY_EXHDR(bf), view);

	if (st != BF_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("corrupted bloomfilter value"),
				 errdetail("%s", bf_status_message(st))));
}

/* Argument 'argno', detoasted (not copied if it need not be) and opened */
BloomFilter *
bloomfilter_getarg(FunctionCallInfo fcinfo, int argno, bf_filter *view)
{
	BloomFilter *bf = PG_GETARG_BLOOMFILTER_P(argno);

	bloomfilter_open((struct varlena *) bf, view);
	return bf;
}

/* Opens untrusted bytes from text input, binary input or a bytea cast */
void
bloomfilter_open_input(const void *data, Size len, bf_filter *view,
					   bool binary)
{
	bf_status	st = bf_open((void *) data, len, view);

	if (st == BF_OK)
		return;
	if (st == BF_E_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter value declares a size past the 1 GB limit"),
				 errdetail("%s", bf_status_message(st))));
	ereport(ERROR,
			(errcode(binary ? ERRCODE_INVALID_BINARY_REPRESENTATION :
					 ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid %s for type bloomfilter",
					binary ? "binary data" : "input syntax"),
			 errdetail("%s", bf_status_message(st))));
}

/* Reports a failed bf_plan or sizing call */
void
bloomfilter_report(bf_status status)
{
	if (status == BF_E_UNSUPPORTED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the variant does not support this way of building a filter"),
				 errdetail("%s", bf_status_message(status)),
				 errhint("Size growing variants with bloomfilter_create(expected_items, false_positive_rate, variant).")));
	if (status == BF_E_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter would exceed the 1 GB limit of one value"),
				 errdetail("%s", bf_status_message(status)),
				 errhint("Split the set across several filters, for example one per day or per hash range, or accept a higher false-positive rate.")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid bloomfilter parameters"),
			 errdetail("%s", bf_status_message(status))));
}

/* Variants the specification names that this build may not offer yet */
static const char *const planned_variants[] = {"counting", "scalable", "cuckoo"};

/* "blocked, classic, ...": the variants this build offers, for hints */
static const char *
variant_list(void)
{
	static char list[64];
	int			v;

	if (list[0] == '\0')
		for (v = BF_VARIANT_MIN; v <= BF_VARIANT_MAX; v++)
			if (bf_variant_available((bf_variant) v))
			{
				if (list[0])
					strlcat(list, ", ", sizeof(list));
				strlcat(list, bf_variant_name((bf_variant) v), sizeof(list));
			}
	return list;
}

bf_variant
bloomfilter_parse_variant(text *name)
{
	const char *s = VARDATA_ANY(name);
	int			len = VARSIZE_ANY_EXHDR(name);
	bf_variant	variant;
	int			i;

	if (bf_variant_parse(s, len, &variant))
		return variant;
	for (i = 0; i < lengthof(planned_variants); i++)
		if (strlen(planned_variants[i]) == len &&
			memcmp(planned_variants[i], s, len) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("bloomfilter variant \"%s\" is not available in this version",
							planned_variants[i]),
					 errhint("Available variants: %s.", variant_list())));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown bloomfilter variant \"%s\"", text_to_cstring(name)),
			 errhint("Available variants: %s.", variant_list())));
	pg_unreachable();
}

/* A new, empty filter of the planned shape, in the current context */
BloomFilter *
bloomfilter_alloc(const bf_params *params)
{
	BloomFilter *bf;

	/* bf_plan keeps total_bytes within BF_MAX_BYTES, so this fits palloc */
	Assert(params->total_bytes <= BF_MAX_BYTES);
	bf = palloc(VARHDRSZ + params->total_bytes);
	SET_VARSIZE(bf, VARHDRSZ + params->total_bytes);
	bf_init_yield(params, bf->data, bloomfilter_yield, NULL);
	return bf;
}

/* The per-call-site cache of the membership functions, made on first use */
CallCache *
bloomfilter_call_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallCache));
	return (CallCache *) fcinfo->flinfo->fn_extra;
}

/* The core's yield hook: lets long loops honour query cancel */
void
bloomfilter_yield(void *arg)
{
	CHECK_FOR_INTERRUPTS();
}

/* "blocked, 1024 bits, 7 hashes, seed 0, planned for 100 items at 0.01" */
static char *
describe(const bf_filter *f)
{
	if (f->expected_items == 0)
		return psprintf("%s, " UINT64_FORMAT " bits, %u hashes, seed " INT64_FORMAT ", built from a bit count",
						bf_variant_name(f->variant), f->bits, f->hashes,
						(int64) f->seed);
	return psprintf("%s, " UINT64_FORMAT " bits, %u hashes, seed " INT64_FORMAT ", planned for " UINT64_FORMAT " items at %g",
					bf_variant_name(f->variant), f->bits, f->hashes,
					(int64) f->seed, f->expected_items, f->target_fpr);
}

/* Raises an error naming both sides unless the filters can be combined */
void
bloomfilter_check_compatible(const bf_filter *a, const bf_filter *b)
{
	if (bf_compatible(a, b))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot combine bloomfilters of different parameters"),
			 errdetail("Left: %s. Right: %s.", describe(a), describe(b)),
			 errhint("Build both filters with the same expected_items, false_positive_rate, variant and seed.")));
}

/* Refuses an operation the filter's variant does not offer */
void
bloomfilter_unsupported(const bf_filter *f, const char *operation,
						const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s filters do not support %s", bf_variant_name(f->variant),
					operation),
			 errhint("%s", hint)));
}
