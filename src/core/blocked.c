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
#include "bf_internal.h"

/* LCG constants (Knuth's MMIX multiplier, an odd increment) */
#define LCG_MUL		UINT64_C(6364136223846793005)
#define LCG_ADD		UINT64_C(1442695040888963407)

static inline unsigned char *
block_of(const bf_filter *f, bf_hash h)
{
	return f->payload + bf_mulhi64(h.hi, f->blocks) * BF_BLOCK_BYTES;
}

static void
blocked_add(bf_filter *f, bf_hash h)
{
	unsigned char *block = block_of(f, h);
	uint64_t	x = h.lo;
	uint32_t	i;

	for (i = 0; i < f->hashes; i++)
	{
		bf_bit_set(block, x >> 55);
		x = x * LCG_MUL + LCG_ADD;
	}
}

static bool
blocked_contains(const bf_filter *f, bf_hash h)
{
	const unsigned char *block = block_of(f, h);
	uint64_t	x = h.lo;
	uint32_t	i;

	for (i = 0; i < f->hashes; i++)
	{
		if (!bf_bit_test(block, x >> 55))
			return false;
		x = x * LCG_MUL + LCG_ADD;
	}
	return true;
}

static uint64_t
blocked_round_bits(uint64_t bits)
{
	return (bits + BF_BLOCK_BITS - 1) / BF_BLOCK_BITS * BF_BLOCK_BITS;
}

static uint64_t
blocked_payload_bytes(uint64_t bits)
{
	if (bits == 0 || bits % BF_BLOCK_BITS != 0)
		return 0;
	return bits / 8;
}

static bf_status
blocked_validate(const bf_filter *f)
{
	(void) f;					/* every bit pattern is a valid payload */
	return BF_OK;
}

const bf_variant_ops bf_blocked_ops = {
	"blocked",
	bf_blocked_size,
	bf_blocked_capacity,
	blocked_round_bits,
	blocked_payload_bytes,
	bf_blocked_fpr,
	blocked_validate,
	blocked_add,
	blocked_contains
};
