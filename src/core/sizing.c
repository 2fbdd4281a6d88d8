/*
 * sizing.c
 *		False-positive models and the sizing built on them.
 *
 * classic: the textbook model (1 - e^(-kn/m))^k, and the usual optimum
 *   m = ceil(-n ln p / (ln 2)^2), k = round((m / n) ln 2).
 *
 * blocked: Putze, Sanders and Singler, "Cache-, Hash- and Space-Efficient
 *   Bloom Filters" (2007).  Items fall into B = m / 512 blocks, so the load
 *   of a block is Poisson with mean lambda = n / B, and a block holding i
 *   items answers a stranger falsely with the classic rate of a 512-bit
 *   filter holding i items.  The rate is the Poisson mixture
 *     sum_i Pois(i; lambda) * (1 - (1 - 1/512)^(i k))^k.
 *   Sizing searches for the largest lambda whose best k meets the target.
 *   Averaging the classic formula over the mean load instead (Parquet's
 *   shortcut) ignores the overloaded blocks and undersizes: its "1 %"
 *   filter measures about 1.5 %.
 */
#include <math.h>

#include "bf_internal.h"

#define LN2			0.69314718055994530942

/*
 * Largest bit count the sizing functions report.  The models answer for any
 * size that fits in 63 bits, so that callers can see how far past the 1 GB
 * limit of one filter a request lies; bf_plan enforces that limit.
 */
#define MAX_BITS	9.2e18

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

/* Rate of one 512-bit block holding i items with k hashes */
static double
block_rate(double i, double k)
{
	static const double log_keep = -0.0019550348358034704; /* ln(1 - 1/512) */

	if (i <= 0)
		return 0.0;
	return exp(k * log(-expm1(i * k * log_keep)));
}

/*
 * The Poisson mixture, summed outwards from the mode until the terms stop
 * mattering.  Past a mean load of 10^7 the load is concentrated enough for
 * the rate at the mean to be exact to double precision.
 */
static double
blocked_fpr_load(double lambda, double k)
{
	double		mode,
				log_lambda,
				sum = 0.0,
				i;

	if (lambda <= 0)
		return 0.0;
	if (lambda > 1e7)
		return block_rate(lambda, k);

	mode = floor(lambda);
	log_lambda = log(lambda);
	for (i = mode;; i += 1.0)
	{
		double		pmf = exp(i * log_lambda - lambda - lgamma(i + 1.0));

		sum += pmf * block_rate(i, k);
		if (i > mode && (pmf < 1e-300 || pmf < 1e-17 * sum))
			break;
	}
	for (i = mode - 1.0; i >= 0.0; i -= 1.0)
	{
		double		pmf = exp(i * log_lambda - lambda - lgamma(i + 1.0));
		double		term = pmf * block_rate(i, k);

		sum += term;
		if (pmf < 1e-300 || term < 1e-17 * sum)
			break;
	}
	return sum > 1.0 ? 1.0 : sum;
}

double
bf_blocked_fpr(double bits, double items, double hashes)
{
	double		blocks = floor(bits / BF_BLOCK_BITS);

	if (items <= 0)
		return 0.0;
	if (blocks < 1)
		return 1.0;
	return blocked_fpr_load(items / blocks, hashes);
}

/* Best k for a blocked load; the rate is unimodal in k */
static uint32_t
blocked_best_hashes(double lambda, double *rate)
{
	uint32_t	k,
				best = 1;
	double		best_rate = blocked_fpr_load(lambda, 1);

	for (k = 2; k <= BF_MAX_HASHES; k++)
	{
		double		r = blocked_fpr_load(lambda, k);

		if (r >= best_rate)
			break;
		best = k;
		best_rate = r;
	}
	if (rate)
		*rate = best_rate;
	return best;
}

/*
 * Largest mean block load whose rate meets 'fpr', with the best k for each
 * load (k == 0) or a fixed k.  Bisection: the rate grows with the load.
 */
static double
blocked_max_load(double fpr, uint32_t k)
{
	double		lo,
				hi,
				rate;
	int			iter;

	/* bracket around the classic optimum, 512 / (bits per item) */
	lo = BF_BLOCK_BITS * LN2 * LN2 / -log(fpr) / 4.0;
	hi = lo * 8.0;
	for (iter = 0; iter < 200; iter++)
	{
		if (k)
			rate = blocked_fpr_load(lo, k);
		else
			blocked_best_hashes(lo, &rate);
		if (rate <= fpr)
			break;
		hi = lo;
		lo /= 4.0;
	}
	for (iter = 0; iter < 200; iter++)
	{
		if (k)
			rate = blocked_fpr_load(hi, k);
		else
			blocked_best_hashes(hi, &rate);
		if (rate > fpr)
			break;
		lo = hi;
		hi *= 4.0;
	}
	for (iter = 0; iter < 60 && hi - lo > lo * 1e-12; iter++)
	{
		double		mid = (lo + hi) / 2.0;

		if (k)
			rate = blocked_fpr_load(mid, k);
		else
			blocked_best_hashes(mid, &rate);
		if (rate <= fpr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
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

bf_status
bf_blocked_size(double items, double fpr, uint64_t *bits, uint32_t *hashes)
{
	double		load = blocked_max_load(fpr, 0);
	double		blocks = ceil(items / load);
	double		rate;

	if (blocks < 1)
		blocks = 1;
	if (blocks * BF_BLOCK_BITS > MAX_BITS)
		return BF_E_TOO_LARGE;
	/* guard the rounding of the bisection: the chosen size must meet fpr */
	*hashes = blocked_best_hashes(items / blocks, &rate);
	if (rate > fpr)
	{
		blocks += 1;
		*hashes = blocked_best_hashes(items / blocks, &rate);
	}
	*bits = (uint64_t) blocks * BF_BLOCK_BITS;
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
	while (n >= 1 && bf_classic_size(n, fpr, &b, &k) == BF_OK && b > bits)
		n -= 1;
	while (bf_classic_size(n + 1, fpr, &b, &k) == BF_OK && b <= bits)
		n += 1;
	return n;
}

/* The same for a blocked filter: its blocks times the largest mean load */
double
bf_blocked_capacity(double bits, double fpr, uint32_t hashes)
{
	return floor(floor(bits / BF_BLOCK_BITS) * blocked_max_load(fpr, hashes));
}

/* Most items a filter of 'bits' holds at 'fpr' when sized optimally */
bf_status
bf_capacity(bf_variant variant, uint64_t bits, double fpr, uint64_t *items)
{
	const bf_variant_ops *ops = bf_ops(variant);

	if (ops == NULL || bits < 1 || !valid_rate(fpr))
		return BF_E_ARGUMENT;
	if ((double) bits > MAX_BITS)
		return BF_E_TOO_LARGE;
	*items = (uint64_t) ops->capacity((double) ops->round_bits(bits), fpr, 0);
	return BF_OK;
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
	if (!valid_rate(f->target_fpr))
		return 0;
	return (uint64_t) bf_ops(f->variant)->capacity((double) f->bits,
												   f->target_fpr, f->hashes);
}
