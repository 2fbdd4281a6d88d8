/*
 * classic.c
 *		The classic layout: k positions anywhere in m bits.
 *
 * Positions come from enhanced double hashing (Dillinger and Manolios,
 * "Bloom Filters in Probabilistic Verification", 2004) over the two 64-bit
 * halves of the hash, each mapped onto [0, m) by a 64-bit multiply-shift:
 * m can be any size, and nothing wraps at 2^32 bits.  The payload is padded
 * with zero bits to a multiple of 64.
 */
#include <math.h>

#include "bf_internal.h"

static bf_status
classic_add(bf_filter *f, bf_hash h)
{
	bf_positions p;

	for (bf_positions_start(&p, f, h); p.i < f->hashes; bf_positions_next(&p))
		bf_bit_set(f->payload, p.x);
	return BF_OK;
}

static bool
classic_contains(const bf_filter *f, bf_hash h)
{
	bf_positions p;

	for (bf_positions_start(&p, f, h); p.i < f->hashes; bf_positions_next(&p))
		if (!bf_bit_test(f->payload, p.x))
			return false;
	return true;
}

/* A stranger needs k set bits: the rate now is (fill)^k */
static void
classic_fill(const bf_filter *f, bf_fill_stats *stats, bf_yield_fn yield,
			 void *arg)
{
	uint64_t	set = 0,
				i;

	for (i = 0; i < f->payload_bytes; i += 8)
	{
		set += bf_popcount64(bf_load64(f->payload + i));
		if (yield && (i + 8) % BF_YIELD_BYTES == 0)
			yield(arg);
	}
	stats->bits_set = set;
	stats->fpr = pow((double) set / (double) f->bits, f->hashes);
}

/* Swamidass and Baldi: n = -(m / k) ln(1 - X / m) */
double
bf_classic_estimate(const bf_filter *f, uint64_t set)
{
	if (set == 0)
		return 0.0;				/* not -0.0 */
	if (set >= f->bits)
		return INFINITY;		/* a full filter explains any count */
	return -((double) f->bits / f->hashes) *
		log(1.0 - (double) set / (double) f->bits);
}

const bf_variant_ops bf_classic_ops = {
	.name = "classic",
	/* one array of any number of bits */
	.cell_bits = 1,
	.size = bf_classic_size, .capacity = bf_classic_capacity,
	.fpr = bf_classic_fpr, .fill = classic_fill, .estimate = bf_classic_estimate,
	.add = classic_add, .contains = classic_contains
};
