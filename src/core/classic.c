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
#include "bf_internal.h"

/* The sequence of k positions: x, x + y, x + 2y + 1, ... (mod m) */
typedef struct positions
{
	uint64_t	m;
	uint64_t	x;
	uint64_t	y;
	uint32_t	i;
} positions;

static inline void
positions_start(positions *p, const bf_filter *f, bf_hash h)
{
	p->m = f->bits;
	p->x = bf_mulhi64(h.lo, p->m);
	p->y = bf_mulhi64(h.hi, p->m);
	p->i = 0;
}

static inline void
positions_next(positions *p)
{
	p->x += p->y;
	if (p->x >= p->m)
		p->x -= p->m;
	p->y += ++p->i;
	if (p->y >= p->m)
		p->y %= p->m;
}

static void
classic_add(bf_filter *f, bf_hash h)
{
	positions	p;

	for (positions_start(&p, f, h); p.i < f->hashes; positions_next(&p))
		bf_bit_set(f->payload, p.x);
}

static bool
classic_contains(const bf_filter *f, bf_hash h)
{
	positions	p;

	for (positions_start(&p, f, h); p.i < f->hashes; positions_next(&p))
		if (!bf_bit_test(f->payload, p.x))
			return false;
	return true;
}

static uint64_t
classic_round_bits(uint64_t bits)
{
	return bits;
}

static uint64_t
classic_payload_bytes(uint64_t bits)
{
	return (bits + 63) / 64 * 8;
}

/* Padding bits past m stay zero, so equal sets give equal bytes */
static bf_status
classic_validate(const bf_filter *f)
{
	uint64_t	i;

	for (i = f->bits; i < f->payload_bytes * 8; i++)
		if (bf_bit_test(f->payload, i))
			return BF_E_PADDING;
	return BF_OK;
}

const bf_variant_ops bf_classic_ops = {
	"classic",
	bf_classic_size,
	bf_classic_capacity,
	classic_round_bits,
	classic_payload_bytes,
	bf_classic_fpr,
	classic_validate,
	classic_add,
	classic_contains
};
