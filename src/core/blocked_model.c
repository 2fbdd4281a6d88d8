/*
 * blocked_model.c
 *		The false-positive model of the blocked layout, and its sizing.
 *
 * Putze, Sanders and Singler, "Cache-, Hash- and Space-Efficient Bloom
 * Filters" (2007): items fall into B = m / 512 blocks, so the load of a
 * block is Poisson with mean lambda = n / B, and the filter's rate is the
 * Poisson mixture of the rates of one 512-bit block holding i items:
 *
 *     FPR(lambda, k) = sum_i Pois(i; lambda) * r_k(i)
 *
 * The rate of one block, r_k(i), is computed exactly rather than with the
 * textbook (1 - (1 - 1/512)^(ik))^k: an item sets k positions drawn with
 * replacement, so after i items the number X of set bits follows the
 * occupancy distribution of ik throws into 512 bins, and a stranger's k
 * positions are all set with probability E[(X / 512)^k].  For blocks of
 * 512 bits the textbook formula is low by about 1 % at a 1 % rate and 7 %
 * at 1e-6 (Jensen's inequality), and measurements at 10^8 probes see it.
 *
 * Averaging the textbook formula over the mean load instead of mixing over
 * the loads (Parquet's shortcut) undersizes further: its "1 %" filter
 * measures about 1.5 %.
 */
#include <math.h>

#include "bf_internal.h"

/* Loads whose block rate is computed exactly; heavier loads are so full
 * that the textbook formula is exact enough (they matter only for rates
 * near 1) */
#define EXACT_LOADS	2048

typedef struct rate_table
{
	uint32_t	k;
	int			loads;			/* rate[i] known for i < loads */
	double		rate[EXACT_LOADS];
} rate_table;

/* The textbook rate of one block holding i items */
static double
block_rate_approx(double i, double k)
{
	static const double log_keep = -0.0019550348358034704; /* ln(1 - 1/512) */

	if (i <= 0)
		return 0.0;
	return exp(k * log(-expm1(i * k * log_keep)));
}

/*
 * Exact rates of one block with k hashes for every load that a Poisson
 * load of mean up to 'lambda' reaches with any probability that matters.
 */
static void
rate_table_fill(rate_table *t, uint32_t k, double lambda)
{
	double		occ[BF_BLOCK_BITS + 1];	/* P(X = x) after the throws so far */
	double		powx[BF_BLOCK_BITS + 1];	/* (x / 512)^k */
	double		want = ceil(lambda + 12.0 * sqrt(lambda) + 40.0);
	int			x,
				i,
				lo = 0,			/* occ[x] is negligible outside [lo, hi] */
				hi = 0;
	uint32_t	j;

	t->k = k;
	t->loads = want < EXACT_LOADS ? (int) want : EXACT_LOADS;
	for (x = 0; x <= BF_BLOCK_BITS; x++)
	{
		occ[x] = 0.0;
		powx[x] = pow((double) x / BF_BLOCK_BITS, k);
	}
	occ[0] = 1.0;
	t->rate[0] = 0.0;
	for (i = 1; i < t->loads; i++)
	{
		double		r = 0.0;

		for (j = 0; j < k; j++)
		{
			/* one more throw: a hit on a set bit keeps x, else x + 1 */
			if (hi < BF_BLOCK_BITS)
				hi++;
			for (x = hi; x > lo; x--)
				occ[x] = occ[x] * x / BF_BLOCK_BITS +
					occ[x - 1] * (BF_BLOCK_BITS - x + 1) / BF_BLOCK_BITS;
			occ[lo] = occ[lo] * lo / BF_BLOCK_BITS;
			/* the distribution is a narrow band: drop its vanishing edges */
			while (lo < hi && occ[lo] < 1e-30)
				occ[lo++] = 0.0;
			while (hi > lo && occ[hi] < 1e-30)
				occ[hi--] = 0.0;
		}
		for (x = lo; x <= hi; x++)
			r += occ[x] * powx[x];
		t->rate[i] = r;
	}
}

static double
table_rate(const rate_table *t, double i)
{
	if (i < t->loads)
		return t->rate[(int) i];
	return block_rate_approx(i, t->k);
}

/*
 * The Poisson mixture, summed outwards from the mode until the terms stop
 * mattering.  Past a mean load of 10^7 the load is concentrated enough for
 * the rate at the mean to be exact to double precision.
 */
static double
mixture(const rate_table *t, double lambda)
{
	double		mode,
				log_lambda,
				sum = 0.0,
				i;

	if (lambda <= 0)
		return 0.0;
	if (lambda > 1e7)
		return table_rate(t, lambda);

	mode = floor(lambda);
	log_lambda = log(lambda);
	for (i = mode;; i += 1.0)
	{
		double		pmf = exp(i * log_lambda - lambda - lgamma(i + 1.0));

		sum += pmf * table_rate(t, i);
		if (i > mode && (pmf < 1e-300 || pmf < 1e-17 * sum))
			break;
	}
	for (i = mode - 1.0; i >= 0.0; i -= 1.0)
	{
		double		pmf = exp(i * log_lambda - lambda - lgamma(i + 1.0));
		double		term = pmf * table_rate(t, i);

		sum += term;
		if (pmf < 1e-300 || term < 1e-17 * sum)
			break;
	}
	return sum > 1.0 ? 1.0 : sum;
}

/* The model's rate at a mean block load, for a fixed k */
static double
load_rate(double lambda, uint32_t k)
{
	rate_table	t;

	rate_table_fill(&t, k, lambda);
	return mixture(&t, lambda);
}

double
bf_blocked_fpr(double bits, double items, double hashes)
{
	double		blocks = floor(bits / BF_BLOCK_BITS);

	if (items <= 0)
		return 0.0;
	if (blocks < 1)
		return 1.0;
	return load_rate(items / blocks, (uint32_t) hashes);
}

/*
 * Largest mean load at which the mixture over table 't' stays within fpr,
 * searched from 'lo' by doubling and bisection: the rate grows with the load.
 */
static double
bisect_load(const rate_table *t, double fpr, double lo)
{
	double		hi;
	int			iter;

	for (iter = 0; iter < 200 && mixture(t, lo) > fpr; iter++)
		lo /= 4.0;
	hi = lo * 2.0;
	for (iter = 0; iter < 200 && mixture(t, hi) <= fpr; iter++)
	{
		lo = hi;
		hi *= 2.0;
	}
	for (iter = 0; iter < 80 && hi - lo > lo * 1e-12; iter++)
	{
		double		mid = (lo + hi) / 2.0;

		if (mixture(t, mid) <= fpr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Largest mean block load whose rate meets 'fpr' with k hashes.  The
 * textbook rate never exceeds the exact one, so the load found with it
 * bounds the exact search and sizes the table once.
 */
static double
max_load_fixed(double fpr, uint32_t k)
{
	rate_table	t;
	double		bound;

	t.k = k;
	t.loads = 0;				/* textbook rates only */
	bound = bisect_load(&t, fpr, BF_BLOCK_BITS * 0.4804530139182014 /	/* ln^2 2 */
						-log(fpr));
	rate_table_fill(&t, k, bound);
	return bisect_load(&t, fpr, bound);
}

/* Largest load over every k (k == 0) or for a fixed k; the best k too */
static double
max_load(double fpr, uint32_t k, uint32_t *best_k)
{
	double		best = 0.0;
	uint32_t	j;

	if (k)
	{
		if (best_k)
			*best_k = k;
		return max_load_fixed(fpr, k);
	}
	for (j = 1; j <= BF_MAX_HASHES; j++)
	{
		double		load = max_load_fixed(fpr, j);

		if (load <= best)
			break;				/* unimodal in k */
		best = load;
		if (best_k)
			*best_k = j;
	}
	return best;
}

/* The k with the lowest rate at a given load, and that rate */
static uint32_t
best_hashes(double lambda, double *rate)
{
	uint32_t	k,
				best = 1;
	double		best_rate = load_rate(lambda, 1);

	for (k = 2; k <= BF_MAX_HASHES; k++)
	{
		double		r = load_rate(lambda, k);

		if (r >= best_rate)
			break;
		best = k;
		best_rate = r;
	}
	*rate = best_rate;
	return best;
}

bf_status
bf_blocked_size(double items, double fpr, uint64_t *bits, uint32_t *hashes)
{
	double		blocks = ceil(items / max_load(fpr, 0, NULL));
	double		rate;

	if (blocks < 1)
		blocks = 1;
	if (blocks * BF_BLOCK_BITS > BF_MAX_SIZING_BITS)
		return BF_E_TOO_LARGE;
	/* k for the load the filter really gets; guard the bisection's rounding */
	*hashes = best_hashes(items / blocks, &rate);
	if (rate > fpr)
	{
		blocks += 1;
		*hashes = best_hashes(items / blocks, &rate);
	}
	*bits = (uint64_t) blocks * BF_BLOCK_BITS;
	return BF_OK;
}

/*
 * Most items 'bits' hold at 'fpr': the blocks times the largest mean load,
 * with k hashes (0: sized optimally, so the inverse of bf_blocked_size).
 */
double
bf_blocked_capacity(double bits, double fpr, uint32_t hashes)
{
	double		blocks = floor(bits / BF_BLOCK_BITS);
	double		load = max_load(fpr, hashes, NULL);
	double		n = floor(blocks * load);

	/* settle the rounding of the product where integers are exact */
	while (n >= 1 && n < 4e15 && ceil(n / load) > blocks)
		n -= 1;
	return n;
}
