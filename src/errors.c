/*
 * errors.c
 *		The errors of the core's status codes, raised the same way wherever
 *		a filter is opened, sized, grown or combined.
 */
#include "bloomfilter.h"

/* What to do about the 1 GB limit of one value */
int
errhint_split_set(bool or_rate)
{
	if (or_rate)
		return errhint("Split the set across several filters, for example one per day or per hash range, or accept a higher false-positive rate.");
	return errhint("Split the set across several filters, for example one per day or per hash range.");
}

/* A filter that PostgreSQL handed us and that no way in would have let in */
void
report_corrupted(bf_status st)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("corrupted bloomfilter value"),
			 errdetail("%s", bf_status_message(st))));
}

/* Bytes from text input, binary input or a bytea cast that are no filter */
void
report_invalid_input(bf_status st, bool binary)
{
	if (st == BF_E_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter value declares a size past the 1 GB limit"),
				 errdetail("%s", bf_status_message(st))));
	if (binary)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary data for type bloomfilter"),
				 errdetail("%s", bf_status_message(st))));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type bloomfilter"),
			 errdetail("%s", bf_status_message(st))));
}

/* A failed bf_plan or sizing call of the SQL function 'function' */
void
report_plan_failure(bf_status st, bf_variant variant, const char *function)
{
	if (st == BF_E_UNSUPPORTED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s filters cannot be built with %s",
						bf_variant_name(variant), function),
				 errdetail("%s", bf_status_message(st)),
				 errhint("Size growing variants with bloomfilter_create(expected_items, false_positive_rate, variant).")));
	if (st == BF_E_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter would exceed the 1 GB limit of one value"),
				 errdetail("%s", bf_status_message(st)),
				 errhint_split_set(true)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid bloomfilter parameters"),
			 errdetail("%s", bf_status_message(st))));
}

/* Two filters that cannot be combined, both described */
void
report_incompatible(const bf_filter *a, const bf_filter *b)
{
	char		left[192],
				right[192];

	if (a->scheme != b->scheme)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot combine bloomfilters that hash their elements differently"),
				 errdetail("The left filter hashes by hash scheme %d, the right one by hash scheme %d; filters built by releases 1.0 and 1.1 use scheme 1.",
						   a->scheme, b->scheme),
				 errhint("Rebuild the older filter from its elements (bloomfilter_agg), which hashes them by the current scheme.")));
	bf_describe(a, left, sizeof(left));
	bf_describe(b, right, sizeof(right));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot combine bloomfilters of different parameters"),
			 errdetail("Left: %s. Right: %s.", left, right),
			 errhint("Build both filters with the same expected_items, false_positive_rate, variant and seed.")));
}

/* An operation the filter's variant does not offer */
void
report_unsupported(const bf_filter *f, FilterOp op)
{
	const char *variant = bf_variant_name(f->variant);

	switch (op)
	{
		case FILTER_REMOVE:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s filters do not support remove", variant),
					 errhint("Only counting and cuckoo filters can remove elements; build the filter with variant 'counting' or 'cuckoo'.")));
			break;
		case FILTER_COUNT:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s filters do not count copies of an element", variant),
					 errdetail("A %s filter stores an element once however often it is added.", variant),
					 errhint("Only counting and cuckoo filters count copies; test membership with @>.")));
			break;
		case FILTER_INTERSECT:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s filters do not support intersection", variant),
					 errhint("Intersection is offered by blocked, classic and counting filters, and by scalable filters of a single stage.")));
			break;
		case FILTER_UNION:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s filters do not support union", variant)));
			break;
		case FILTER_ADD:
			break;
	}
	elog(ERROR, "%s filters refused an add as unsupported", variant);
}

/*
 * An add or merge into a FilterBuf (bf_buf_add, bf_buf_merge,
 * bf_merge_new, bf_add_check) that the core refused; b is the filter added
 * or merged into
 */
void
report_buf_failure(const bf_filter *f, bf_status st, uint64 wanted,
				   FilterOp op)
{
	const char *variant = bf_variant_name(f->variant);

	switch (st)
	{
		case BF_E_INCOMPATIBLE:
			elog(ERROR, "bloomfilters of different parameters reached a merge");
			break;
		case BF_E_UNSUPPORTED:
			report_unsupported(f, op);
			break;
		case BF_E_NO_GROWTH:
			if (op == FILTER_ADD)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("bloomfilter cannot grow further"),
						 errdetail("The %s filter has as many stages as its format allows.",
								   variant),
						 errhint("Split the set across several filters, or plan the filter for more items.")));
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("bloomfilter union would need more stages than the format allows"),
					 errdetail("A %s filter holds at most %d stages.", variant,
							   f->variant == BF_CUCKOO ? BF_CUCKOO_MAX_STAGES :
							   BF_SCALABLE_MAX_STAGES),
					 errhint("Split the set across several filters, or plan the filters for more items.")));
			break;
		case BF_E_TOO_LARGE:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("bloomfilter cannot grow past the 1 GB limit of one value"),
					 errdetail("The %s filter would need " UINT64_FORMAT " bytes.",
							   variant, wanted),
					 errhint_split_set(false)));
			break;
		case BF_E_COPIES:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("bloomfilter cannot hold another copy of this element"),
					 errdetail("A %s filter stores every addition of an element in the element's two buckets, which hold at most %d copies; growing would not add room for more.",
							   variant, BF_CUCKOO_MAX_COPIES),
					 errhint("To keep a set rather than count additions, build the filter with bloomfilter_agg, which adds each distinct element once, or use the scalable or blocked variant.")));
			break;
		default:
			break;
	}
	elog(ERROR, "could not %s a bloomfilter: %s",
		 op == FILTER_ADD ? "add to" : "merge", bf_status_message(st));
}
