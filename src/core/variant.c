/*
 * variant.c
 *		The table of variants, their names, and membership dispatch.
 */
#include "bf_internal.h"

static const bf_variant_ops *const variants[] = {
	NULL,
	&bf_blocked_ops,			/* BF_BLOCKED */
	&bf_classic_ops				/* BF_CLASSIC */
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

const char *
bf_variant_list(void)
{
	return "blocked, classic";
}

void
bf_add(bf_filter *f, bf_hash h)
{
	bf_ops(f->variant)->add(f, h);
	if (f->items != UINT64_MAX)
		f->items++;
	bf_put_le64(f->base + BF_OFF_ITEMS, f->items);
}

bool
bf_contains(const bf_filter *f, bf_hash h)
{
	return bf_ops(f->variant)->contains(f, h);
}
