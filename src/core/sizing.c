/*
 * sizing.c
 *		False-positive models and the sizing built on them.
 *
 * classic: the textbook model (1 - e^(-kn/m))^k, and the usual optimum
 *   m = ceil(-n ln p / (ln 2)^2), k = round((m / n) ln 2).
 *
 * blocked: see blocked_model.c.
 */
#include <math.h>

#include "bf_internal.h"

#define LN2			0.69314718055994530942

#define MAX_BITS	BF_MAX_SIZING_BITS	/* bf_internal.h */

double
bf_classic_fpr(double bits, double items, double hashes)
{
	if (items <= 0)
		return 0.0;
	if (bits <= 0)
		return 1.0;
	return pow(-expm1(-hashes * items / bits), hashes);
}

uint32_t
bf_classic_hashes(double bits, double items)
{
	double		k;

	if (items <= 0)
		return BF_MAX_HASHES;
	k = round(bits / items * LN2);
	if (k < 1)
		return 1;
	if (k > BF_MAX_HASHES)
		return BF_MAX_HASHES;
	return (uint32_t) k;
}

bf_status
bf_classic_size(double items, double fpr, uint64_t *bits, uint32_t *hashes)
{
	double		m = ceil(-items * log(fpr) / (LN2 * LN2));

	if (m > MAX_BITS)
		return BF_E_TOO_LARGE;
	if (m < 1)
		m = 1;
	*bits = (uint64_t) m;
	*hashes = bf_classic_hashes(m, items);
	return BF_OK;
}

static bool
valid_rate(double fpr)
{
	return fpr > 0.0 && fpr < 1.0;	/* false for NaN */
}

bf_status
bf_optimal_bits(bf_variant variant, double items, double fpr,
				uint64_t *bits, uint32_t *hashes)
{
	const bf_variant_ops *ops = bf_ops(variant);

	if (ops == NULL || !(items >= 1) || !valid_rate(fpr))
		return BF_E_ARGUMENT;
	return ops->size(items, fpr, bits, hashes);
}

/*
 * Most items a classic filter of m bits holds at rate p: with hashes == 0
 * the filter is sized optimally (the inverse of bf_classic_size), else it
 * keeps k: (1 - e^(-kn/m))^k = p gives n = -(m / k) ln(1 - p^(1/k)).
 */
double
bf_classic_capacity(double bits, double fpr, uint32_t hashes)
{
	double		n;
	uint64_t	b;
	uint32_t	k;

	if (hashes)
		return floor(-(bits / hashes) * log1p(-pow(fpr, 1.0 / hashes)));
	n = floor(bits * LN2 * LN2 / -log(fpr));
	if (n >= 4e15)
		return n;				/* past exact integers: no rounding to settle */
	while (n >= 1 && bf_classic_size(n, fpr, &b, &k) == BF_OK && b > bits)
		n -= 1;
	while (bf_classic_size(n + 1, fpr, &b, &k) == BF_OK && b <= bits)
		n += 1;
	return n;
}

/* Most items a filter of 'bits' holds at 'fpr' when sized optimally */
bf_status
bf_capacity(bf_variant variant, uint64_t bits, double fpr, uint64_t *items)
{
	const bf_variant_ops *ops = bf_ops(variant);
	double		n;

	if (ops == NULL || bits < 1 || !valid_rate(fpr))
		return BF_E_ARGUMENT;
	if ((double) bits > MAX_BITS)
		return BF_E_TOO_LARGE;
	if (ops->round_bits)
		bits = ops->round_bits(bits);
	n = ops->capacity((double) bits, fpr, 0);
	if (!(n < 9.2e18))
		return BF_E_TOO_LARGE;	/* more items than a 63-bit count holds */
	*items = (uint64_t) n;
	return BF_OK;
}

/* The model's rate for a planned filter after 'items' distinct additions */
double
bf_plan_fpr(const bf_params *p, double items)
{
	return bf_ops(p->variant)->fpr((double) p->bits, items, p->hashes);
}

/* The model's rate for this filter after 'items' distinct additions */
double
bf_filter_model_fpr(const bf_filter *f, double items)
{
	return bf_ops(f->variant)->fpr((double) f->bits, items, f->hashes);
}

/*
 * Most items this filter holds within its own target rate, with its own k;
 * 0 when it was built from a bit count rather than a rate.
 */
uint64_t
bf_filter_capacity(const bf_filter *f)
{
	const bf_variant_ops *ops = bf_ops(f->variant);

	if (!valid_rate(f->target_fpr))
		return 0;
	if (ops->filter_capacity)
		return ops->filter_capacity(f);
	return (uint64_t) ops->capacity((double) f->bits, f->target_fpr, f->hashes);
}
