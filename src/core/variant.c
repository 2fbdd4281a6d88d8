/*
 * variant.c
 *		The table of variants, their names, and membership dispatch.
 */
#include "bf_internal.h"

/* Indexed by bf_variant */
static const bf_variant_ops *const variants[] = {
	NULL,
	&bf_blocked_ops,			/* BF_BLOCKED */
	&bf_classic_ops,			/* BF_CLASSIC */
	&bf_counting_ops,			/* BF_COUNTING */
	&bf_scalable_ops,			/* BF_SCALABLE */
	&bf_cuckoo_ops				/* BF_CUCKOO */
};

const bf_variant_ops *
bf_ops(bf_variant variant)
{
	if (variant < BF_VARIANT_MIN || variant > BF_VARIANT_MAX)
		return NULL;
	return variants[variant];
}

const char *
bf_variant_name(bf_variant variant)
{
	const bf_variant_ops *ops = bf_ops(variant);

	return ops ? ops->name : "unknown";
}

/* The names of the table above, in its order (test_format checks this) */
const char *
bf_variant_list(void)
{
	return "blocked, classic, counting, scalable, cuckoo";
}

/* Exact, case-sensitive match: variant names are lower-case identifiers */
bool
bf_variant_parse(const char *name, size_t len, bf_variant *variant)
{
	int			v;

	for (v = BF_VARIANT_MIN; v <= BF_VARIANT_MAX; v++)
	{
		const char *candidate = variants[v]->name;

		if (strlen(candidate) == len && memcmp(candidate, name, len) == 0)
		{
			*variant = (bf_variant) v;
			return true;
		}
	}
	return false;
}

/*
 * The ops of an opened filter: bf_open accepted its variant, so the hot
 * paths below index the table without bf_ops' checks.
 */
static inline const bf_variant_ops *
ops_of(const bf_filter *f)
{
	return variants[f->variant];
}

bf_status
bf_add(bf_filter *f, bf_hash h)
{
	bf_status	st = ops_of(f)->add(f, h);

	if (st == BF_OK && f->items != UINT64_MAX)
		bf_set_items(f, f->items + 1);
	return st;
}

bf_status
bf_add_new(bf_filter *f, bf_hash h)
{
	const bf_variant_ops *ops = ops_of(f);
	bool		added = true;
	bf_status	st = ops->add_new ? ops->add_new(f, h, &added) : ops->add(f, h);

	if (st == BF_OK && added && f->items != UINT64_MAX)
		bf_set_items(f, f->items + 1);
	return st;
}

/* (the default variant, blocked, without an indirect call) */
bool
bf_contains(const bf_filter *f, bf_hash h)
{
	if (f->variant == BF_BLOCKED)
		return bf_blocked_test(bf_blocked_line(f, h.hi), h.lo, f->hashes);
	return ops_of(f)->contains(f, h);
}

/*
 * Batch paths (aggregates, arrays, bloomtool) hash an element, prefetch the
 * cache line it will touch, and test or add it a few elements later, so
 * that the cache miss of one element overlaps the hashing of the next ones.
 */
bool
bf_can_prefetch(const bf_filter *f)
{
	return ops_of(f)->line_of != NULL;
}

/*
 * The one cache line an add or test of h touches, or NULL for a variant
 * that touches more (the default variant's without a call)
 */
static inline const void *
line_of(const bf_filter *f, bf_hash h)
{
	if (f->variant == BF_BLOCKED)
		return bf_blocked_line(f, h.hi);
	return ops_of(f)->line_of != NULL ? ops_of(f)->line_of(f, h) : NULL;
}

/*
 * Prefetches the line h touches, to read or to write it; false when the
 * variant has no single line
 */
static inline bool
prefetch_line(const bf_filter *f, bf_hash h, bool for_write)
{
	const void *line = line_of(f, h);

	if (line == NULL)
		return false;
#if defined(__GNUC__)
	if (for_write)
		__builtin_prefetch(line, 1, 3);
	else
		__builtin_prefetch(line, 0, 3);
#endif
	return true;
}

/* false when the variant has no single line to prefetch */
bool
bf_prefetch(const bf_filter *f, bf_hash h)
{
	return prefetch_line(f, h, false);
}

/* Adds the first n queued hashes of a variant that never returns BF_E_FULL */
static void
add_queued(bf_filter *f, const bf_pending *q, unsigned n)
{
	const bf_variant_ops *ops = ops_of(f);
	unsigned	i;

	if (ops->add_many)
		ops->add_many(f, q->lo, q->hi, n);
	else
	{
		for (i = 0; i < n; i++)
		{
			bf_hash		h;

			h.lo = q->lo[i];
			h.hi = q->hi[i];
			(void) ops->add(f, h);
		}
	}
	if (f->items != UINT64_MAX)
		bf_set_items(f, f->items > UINT64_MAX - n ? UINT64_MAX : f->items + n);
}

bool
bf_add_later(bf_filter *f, bf_pending *q, bf_hash h)
{
	if (!prefetch_line(f, h, true))
		return false;
	q->lo[q->count] = h.lo;
	q->hi[q->count] = h.hi;
	if (++q->count == BF_PENDING)
	{
		add_queued(f, q, BF_PENDING - BF_PENDING_KEEP);
		memmove(q->lo, q->lo + BF_PENDING - BF_PENDING_KEEP,
				BF_PENDING_KEEP * sizeof(uint64_t));
		memmove(q->hi, q->hi + BF_PENDING - BF_PENDING_KEEP,
				BF_PENDING_KEEP * sizeof(uint64_t));
		q->count = BF_PENDING_KEEP;
	}
	return true;
}

void
bf_add_pending(bf_filter *f, bf_pending *q)
{
	if (q->count > 0)
		add_queued(f, q, q->count);
	q->count = 0;
}

bool
bf_can_remove(bf_variant variant)
{
	const bf_variant_ops *ops = bf_ops(variant);

	return ops && ops->remove;
}

bf_status
bf_remove(bf_filter *f, bf_hash h)
{
	const bf_variant_ops *ops = bf_ops(f->variant);
	bf_status	st;

	if (ops->remove == NULL)
		return BF_E_UNSUPPORTED;
	st = ops->remove(f, h);
	if (st == BF_OK && f->items != 0 && f->items != UINT64_MAX)
		bf_set_items(f, f->items - 1);
	return st;
}

bf_status
bf_count(const bf_filter *f, bf_hash h, uint32_t *copies)
{
	const bf_variant_ops *ops = ops_of(f);

	if (ops->count == NULL)
		return BF_E_UNSUPPORTED;
	*copies = ops->count(f, h);
	return BF_OK;
}

bool
bf_add_grows(const bf_filter *f, bf_hash h)
{
	const bf_variant_ops *ops = ops_of(f);

	return ops->add_grows != NULL && ops->add_grows(f, h);
}

/* 0 when the filter does not grow */
uint64_t
bf_grow_bytes(const bf_filter *f)
{
	const bf_variant_ops *ops = bf_ops(f->variant);

	return ops->grow_bytes ? ops->grow_bytes(f) : 0;
}

void
bf_grow(const bf_filter *f, void *buf)
{
	bf_ops(f->variant)->grow(f, buf);
}
