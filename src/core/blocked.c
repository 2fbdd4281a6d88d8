/*
 * blocked.c
 *		The blocked layout: every add and test touches one 64-byte block.
 *
 * The filter is an array of 512-bit blocks.  The high half of the hash picks
 * the block (a 64-bit multiply-shift, so any block count works and no index
 * is limited to 32 bits); the low half seeds a 64-bit linear congruential
 * sequence whose top 9 bits give the k bit positions inside the block.
 * Unlike split-block filters (Parquet, Impala: 256-bit blocks, k fixed at
 * 8), k follows the requested rate, which keeps 1 % at 9.9 bits per item
 * instead of 10.5 and 0.1 % at 15.5 instead of 16.9 (see sizing.c).
 */
#include <math.h>

#include "bf_internal.h"

static const void *
blocked_line_of(const bf_filter *f, bf_hash h)
{
	return bf_blocked_line(f, h.hi);
}

static bf_status
blocked_add(bf_filter *f, bf_hash h)
{
	bf_blocked_set(bf_blocked_line(f, h.hi), h.lo, f->hashes);
	return BF_OK;
}

/* The deferred adds' loop: items independent, so their work overlaps */
static void
blocked_add_many(bf_filter *f, const uint64_t *lo, const uint64_t *hi,
				 size_t n)
{
	uint32_t	hashes = f->hashes;
	size_t		i;

	for (i = 0; i < n; i++)
		bf_blocked_set(bf_blocked_line(f, hi[i]), lo[i], hashes);
}

static bool
blocked_contains(const bf_filter *f, bf_hash h)
{
	return bf_blocked_test(bf_blocked_line(f, h.hi), h.lo, f->hashes);
}

/*
 * The set bits of 'nblocks' blocks, and the rate they answer with now: a
 * stranger lands in one block and needs its k bits set there, so the mean
 * over blocks of (block fill)^k.  Calls 'yield' every BF_YIELD_BYTES.
 */
double
bf_blocks_fill(const unsigned char *blocks, uint64_t nblocks, uint32_t hashes,
			   uint64_t *set, bf_yield_fn yield, void *arg)
{
	uint64_t	total = 0,
				i;
	double		rate_sum = 0.0;

	for (i = 0; i < nblocks; i++)
	{
		const unsigned char *block = blocks + i * BF_BLOCK_BYTES;
		unsigned	in_block = 0;
		int			w;

		for (w = 0; w < BF_BLOCK_BYTES; w += 8)
			in_block += bf_popcount64(bf_load64(block + w));
		total += in_block;
		if (in_block)
			rate_sum += pow((double) in_block / BF_BLOCK_BITS, hashes);
		if (yield && (i + 1) % (BF_YIELD_BYTES / BF_BLOCK_BYTES) == 0)
			yield(arg);
	}
	*set = total;
	return rate_sum / (double) nblocks;
}

static void
blocked_fill(const bf_filter *f, bf_fill_stats *stats, bf_yield_fn yield,
			 void *arg)
{
	stats->fpr = bf_blocks_fill(f->payload, f->blocks, f->hashes,
								&stats->bits_set, yield, arg);
}

/*
 * Distinct items explaining 'set' bits.  A block's load is Poisson with
 * mean L = n / B and each item leaves a given bit clear with probability
 * z = (1 - 1/512)^k, so the expected clear fraction is the Poisson
 * generating function E[z^i] = e^(L (z - 1)).  Solving for L:
 * n = -B ln(1 - X / m) / (1 - z).
 */
static double
blocked_estimate(const bf_filter *f, uint64_t set)
{
	double		clear = 1.0 - (double) set / (double) f->bits;

	if (set == 0)
		return 0.0;				/* not -0.0 */
	if (set >= f->bits)
		return INFINITY;		/* a full filter explains any count */
	return (double) f->blocks * -log(clear) /
		-expm1(f->hashes * log1p(-1.0 / BF_BLOCK_BITS));
}

uint64_t
bf_blocked_round_bits(uint64_t bits)
{
	return (bits + BF_BLOCK_BITS - 1) / BF_BLOCK_BITS * BF_BLOCK_BITS;
}

const bf_variant_ops bf_blocked_ops = {
	.name = "blocked",
	/* one array of bits in whole blocks, sized by the blocked model */
	.cell_bits = 1, .round_bits = bf_blocked_round_bits,
	.size = bf_blocked_size, .capacity = bf_blocked_capacity,
	.fpr = bf_blocked_fpr, .fill = blocked_fill, .estimate = blocked_estimate,
	/* elements, one cache line each */
	.add = blocked_add, .contains = blocked_contains,
	.line_of = blocked_line_of, .add_many = blocked_add_many
};
