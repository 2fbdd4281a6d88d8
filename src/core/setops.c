/*
 * setops.c
 *		Combining filters, comparing them, and reading their fill.
 *
 * Union and intersection work word by word over the payloads of two
 * filters of the same shape; a filter built from A and one built from B
 * union to exactly the bytes of the filter built from A and B.  Long loops
 * call the caller's 'yield' hook every BF_YIELD_BYTES so that a database
 * can honour query cancel; the hook may longjmp out, since the core holds
 * no resources.
 */
#include <math.h>
#include <stdio.h>

#include "bf_internal.h"

/*
 * Same variant, hash scheme, hashes and seed, and (unless the variant says how its
 * filters combine, as growing variants do) the same size.
 */
bool
bf_compatible(const bf_filter *a, const bf_filter *b)
{
	const bf_variant_ops *ops;

	if (a->variant != b->variant || a->scheme != b->scheme ||
		a->hashes != b->hashes || a->seed != b->seed)
		return false;
	ops = bf_ops(a->variant);
	return ops->compatible ? ops->compatible(a, b) : a->bits == b->bits;
}

/*
 * dst |= src (or &=) by the variant's merge; NULL for bit arrays, which
 * are ORed for a union and ANDed for an intersection
 */
static bf_status
merge(bf_filter *dst, const bf_filter *src, bool intersect,
	  bf_yield_fn yield, void *arg)
{
	const bf_variant_ops *ops = bf_ops(dst->variant);
	bf_ticker	t = {yield, arg, 0};

	if (ops->merge)
		return ops->merge(dst, src, intersect, yield, arg);
	bf_merge_words(dst->payload, src->payload, dst->payload_bytes, intersect,
				   bf_or_word, bf_and_word, &t);
	return BF_OK;
}

/*
 * dst |= src; items added add up (saturating), or, for a variant that
 * leaves out what dst already holds (cuckoo), grow by what was stored
 */
bf_status
bf_union(bf_filter *dst, const bf_filter *src, bf_yield_fn yield, void *arg)
{
	const bf_variant_ops *ops;
	bf_status	st;

	if (!bf_compatible(dst, src))
		return BF_E_INCOMPATIBLE;
	ops = bf_ops(dst->variant);
	st = merge(dst, src, false, yield, arg);
	if (st != BF_OK || ops->merge_counts_items)
		return st;
	bf_set_items(dst, dst->items > UINT64_MAX - src->items ?
			  UINT64_MAX : dst->items + src->items);
	return BF_OK;
}

/*
 * dst &= src.  Every element of both sets stays present; the result may
 * answer more false positives than a filter built from the intersection.
 * Items added becomes the smaller count, an upper bound of the true one.
 */
bf_status
bf_intersect(bf_filter *dst, const bf_filter *src, bf_yield_fn yield,
			 void *arg)
{
	bf_status	st;

	if (!bf_compatible(dst, src))
		return BF_E_INCOMPATIBLE;
	st = merge(dst, src, true, yield, arg);
	if (st != BF_OK)
		return st;
	if (src->items < dst->items)
		bf_set_items(dst, src->items);
	return BF_OK;
}

uint64_t
bf_union_bytes(const bf_filter *dst, const bf_filter *src, bf_yield_fn yield,
			   void *arg)
{
	const bf_variant_ops *ops = bf_ops(dst->variant);

	if (ops->union_bytes && bf_compatible(dst, src))
		return ops->union_bytes(dst, src, yield, arg);
	return BF_HEADER_SIZE + dst->payload_bytes;
}

bf_status
bf_union_into(const bf_filter *dst, const bf_filter *src, void *out,
			  bf_yield_fn yield, void *arg)
{
	const bf_variant_ops *ops = bf_ops(dst->variant);

	if (!bf_compatible(dst, src))
		return BF_E_INCOMPATIBLE;
	if (ops->union_into == NULL)
		return BF_E_UNSUPPORTED;
	return ops->union_into(dst, src, out, yield, arg);
}

/* Same shape and the same bits: the two answer every question alike */
bool
bf_equal(const bf_filter *a, const bf_filter *b)
{
	return bf_compatible(a, b) && a->payload_bytes == b->payload_bytes &&
		memcmp(a->payload, b->payload, a->payload_bytes) == 0;
}

/* Bits set, fill, the rate the filter answers with now, distinct items */
void
bf_fill(const bf_filter *f, bf_fill_stats *stats, bf_yield_fn yield,
		void *arg)
{
	const bf_variant_ops *ops = bf_ops(f->variant);

	stats->saturated = 0;
	stats->stages = 1;
	stats->estimated_items = NAN;
	ops->fill(f, stats, yield, arg);
	stats->fill_ratio = (double) stats->bits_set / (double) f->bits;
	if (isnan(stats->estimated_items) && ops->estimate)
		stats->estimated_items = ops->estimate(f, stats->bits_set);
}

void
bf_describe(const bf_filter *f, char *out, size_t size)
{
	int			n = snprintf(out, size, "%s, %llu bits, %u hashes, seed %lld",
							 bf_variant_name(f->variant),
							 (unsigned long long) f->bits, (unsigned) f->hashes,
							 (long long) (int64_t) f->seed);

	if (n < 0 || (size_t) n >= size)
		return;
	if (f->expected_items == 0)
		snprintf(out + n, size - n, ", built from a bit count");
	else
		snprintf(out + n, size - n, ", planned for %llu items at %g",
				 (unsigned long long) f->expected_items, f->target_fpr);
}
