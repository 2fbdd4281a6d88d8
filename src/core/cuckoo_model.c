/*
 * cuckoo_model.c
 *		The false-positive model of the cuckoo layout (cuckoo.c), and its
 *		sizing.
 *
 * A stranger is compared with the 2 x 4 slots of its two buckets
 * in every stage; each is occupied with probability a (the load) and then
 * holds its fingerprint with probability 1 / (2^f - 1), so
 *		fpr = 1 - (1 - 1 / (2^f - 1))^(8 a)
 * (summing the loads of all stages when there are several).
 */
#include <math.h>

#include "bf_internal.h"

#define SLOTS			BF_CUCKOO_SLOTS
#define MIN_F			BF_CUCKOO_MIN_F
#define MAX_F			BF_CUCKOO_MAX_F

/*
 * Planned load: the fraction of slots in use when a stage holds what it was
 * planned for.  With 4-slot buckets and 500 kicks, filling a table until the
 * first add fails stops at a mean load of 0.98 for 16 buckets, 0.971 for
 * 10^3, 0.962 for 10^5 and 0.957 for 10^7 buckets (it falls slowly as
 * tables grow; no failure below 0.952 in 200 runs at 256 to 10^5 buckets).
 * 0.94 leaves a margin, so that a filter planned for n items practically
 * never grows before it holds them (tiny filters of a few buckets are the
 * exception: their load at failure varies widely).
 */
#define LOAD			0.94

/* The rate of f-bit fingerprints at the sum of the stages' loads */
double
bf_cuckoo_rate(unsigned f, double load_sum)
{
	return -expm1(8.0 * load_sum * log1p(-1.0 / (ldexp(1.0, (int) f) - 1.0)));
}

/* Highest load at which f-bit fingerprints meet 'fpr', at most LOAD */
static double
load_for(unsigned f, double fpr)
{
	double		a = log1p(-fpr) /
		(8.0 * log1p(-1.0 / (ldexp(1.0, (int) f) - 1.0)));

	return a < LOAD ? a : LOAD;
}

/*
 * The narrowest fingerprint meeting 'fpr' at the planned load; below the
 * rate of 32-bit fingerprints at that load (about 1.7e-9), 32 bits at a
 * lower load.  Wider fingerprints at a lower load would never be smaller:
 * bits per item are f / load, and the load such an f allows falls by half
 * per bit taken off.
 */
unsigned
bf_cuckoo_width(double fpr)
{
	unsigned	f;

	for (f = MIN_F; f < MAX_F; f++)
		if (bf_cuckoo_rate(f, LOAD) <= fpr)
			return f;
	return MAX_F;
}

/* Buckets for 'items' with f-bit fingerprints at 'fpr' (as a double) */
double
bf_cuckoo_buckets(double items, unsigned f, double fpr)
{
	double		b = ceil(items / (SLOTS * load_for(f, fpr)));

	return b < 1 ? 1 : b;
}

bf_status
bf_cuckoo_size(double items, double fpr, uint64_t *bits, uint32_t *hashes)
{
	unsigned	f = bf_cuckoo_width(fpr);
	double		m = SLOTS * f * bf_cuckoo_buckets(items, f, fpr);

	if (m > BF_MAX_SIZING_BITS)
		return BF_E_TOO_LARGE;
	*bits = (uint64_t) m;
	*hashes = f;
	return BF_OK;
}

/*
 * Items 'bits' of slots hold at 'fpr' with f-bit fingerprints (hashes = f,
 * or 0 for the width the rate asks for): the planned load of every slot.
 * For a filter of several stages that is the sum of what each stage takes
 * before the next one is added; every stage adds its share to the rate.
 */
double
bf_cuckoo_capacity(double bits, double fpr, uint32_t hashes)
{
	unsigned	f = hashes ? hashes : bf_cuckoo_width(fpr);
	double		buckets;

	if (f < MIN_F || f > MAX_F)
		return 0;
	buckets = floor(bits / (SLOTS * f));
	/* the small slack keeps ceil() of the plan and this floor() in step */
	return floor(SLOTS * buckets * load_for(f, fpr) * (1 + 1e-12));
}

/* The model for one table of 'bits' slot bits holding 'items' */
double
bf_cuckoo_fpr(double bits, double items, double hashes)
{
	double		slots = bits / hashes;
	double		load;

	if (items <= 0)
		return 0.0;
	if (slots < SLOTS)
		slots = SLOTS;
	load = items / slots;
	return bf_cuckoo_rate((unsigned) hashes, load < 1 ? load : 1);
}
