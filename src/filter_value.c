/*
 * filter_value.c
 *		Filter values as SQL functions meet them: opening an argument,
 *		validating input bytes, making a new value, naming a variant.
 */
#include "bloomfilter.h"

#include "utils/builtins.h"

/*
 * Opens a filter that PostgreSQL handed us (any varlena header, not
 * external): every way in was validated, so bad bytes mean corruption.
 */
void
filter_open(struct varlena *bf, bf_filter *view)
{
	bf_status	st = bf_open(VARDATA_ANY(bf), VARSIZE_ANY_EXHDR(bf), view);

	if (st != BF_OK)
		report_corrupted(st);
}

/* Argument 'argno', detoasted (not copied if it need not be) and opened */
BloomFilter *
filter_getarg(FunctionCallInfo fcinfo, int argno, bf_filter *view)
{
	BloomFilter *bf = PG_GETARG_BLOOMFILTER_P(argno);

	filter_open((struct varlena *) bf, view);
	return bf;
}

/* Opens untrusted bytes from text input, binary input or a bytea cast */
void
filter_open_input(const void *data, Size len, bf_filter *view, bool binary)
{
	bf_status	st = bf_open((void *) data, len, view);

	if (st != BF_OK)
		report_invalid_input(st, binary);
}

/* A variant's name as the SQL functions take it */
bf_variant
variant_from_text(text *name)
{
	bf_variant	variant;

	if (bf_variant_parse(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name), &variant))
		return variant;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown bloomfilter variant \"%s\"", text_to_cstring(name)),
			 errhint("Available variants: %s.", bf_variant_list())));
	pg_unreachable();
}

/* A new, empty filter of the planned shape, in the current context */
BloomFilter *
filter_new(const bf_params *params)
{
	BloomFilter *bf;

	/* bf_plan keeps total_bytes within BF_MAX_BYTES, so this fits palloc */
	Assert(params->total_bytes <= BF_MAX_BYTES);
	bf = palloc(VARHDRSZ + params->total_bytes);
	SET_VARSIZE(bf, VARHDRSZ + params->total_bytes);
	bf_init_yield(params, bf->data, yield_for_interrupts, NULL);
	return bf;
}
