/*
 * counting.c
 *		The counting layout: the classic layout with 4-bit saturating
 *		counters in place of bits, so that elements can be removed.
 *
 * m counters, k positions per element from the classic enhanced double
 * hashing (bf_positions, with f->bits = m counters).  A counter is non-zero
 * exactly where a classic filter of the same m, k and seed has its bit set
 * (as long as nothing was removed), so the two answer every probe alike and
 * share the classic model and sizing; a counting filter just spends 4 bits
 * per position instead of 1.
 *
 * Counter i is the low nibble of payload byte i / 2 when i is even and the
 * high nibble when i is odd; the payload is padded with zero counters to a
 * multiple of 16 counters (8 bytes).
 *
 * Counters saturate at 15 and a saturated counter is never decremented
 * again: it may stand for more additions than it can count, and decrementing
 * it could later take it to zero while an element that set it is still in
 * the filter, a false negative.  The price is that a saturated position
 * stays set for good.  With 4 bits and the usual loads (about 0.7 elements
 * per counter) saturation needs 15 hits on one counter, which practically
 * only repeated additions of the same elements cause.
 */
#include <math.h>

#include "bf_internal.h"

#define COUNTER_MAX		BF_COUNTING_MAX_COPIES

/* Per-byte lanes: the low nibble of every byte, and bit 4 of every byte */
#define LANE_LOW		UINT64_C(0x0F0F0F0F0F0F0F0F)
#define LANE_BIT4		UINT64_C(0x1010101010101010)
/* the lowest bit of every nibble */
#define NIBBLE_LOW		UINT64_C(0x1111111111111111)

static inline unsigned
counter_get(const unsigned char *payload, uint64_t i)
{
	return (payload[i >> 1] >> ((i & 1) << 2)) & 0x0F;
}

/* Sets counter i to v (0..15), leaving its neighbour in the byte alone */
static inline void
counter_put(unsigned char *payload, uint64_t i, unsigned v)
{
	unsigned	shift = (unsigned) ((i & 1) << 2);

	payload[i >> 1] = (unsigned char)
		((payload[i >> 1] & ~(0x0Fu << shift)) | (v << shift));
}

static bf_status
counting_add(bf_filter *f, bf_hash h)
{
	bf_positions p;

	/* a position repeated among the k is incremented once per repetition */
	for (bf_positions_start(&p, f, h); p.i < f->hashes; bf_positions_next(&p))
	{
		unsigned	c = counter_get(f->payload, p.x);

		if (c < COUNTER_MAX)
			counter_put(f->payload, p.x, c + 1);
	}
	return BF_OK;
}

static bool
counting_contains(const bf_filter *f, bf_hash h)
{
	bf_positions p;

	for (bf_positions_start(&p, f, h); p.i < f->hashes; bf_positions_next(&p))
		if (counter_get(f->payload, p.x) == 0)
			return false;
	return true;
}

/*
 * The copies of the element: each of its distinct positions was counted
 * once per addition for each time it repeats among the k, so the fewest
 * copies any explains; a saturated counter explains any number and is
 * passed over (all saturated: COUNTER_MAX, "that many or more")
 */
static uint32_t
counting_count(const bf_filter *f, bf_hash h)
{
	uint64_t	pos[BF_MAX_HASHES];
	uint32_t	n = 0;
	uint32_t	least = COUNTER_MAX;
	uint32_t	i,
				j;
	bf_positions p;

	for (bf_positions_start(&p, f, h); p.i < f->hashes; bf_positions_next(&p))
		pos[n++] = p.x;
	for (i = 0; i < n; i++)
	{
		unsigned	c = counter_get(f->payload, pos[i]);
		uint32_t	repeats = 0;
		bool		first = true;

		if (c == COUNTER_MAX)
			continue;
		for (j = 0; j < n; j++)
		{
			if (pos[j] != pos[i])
				continue;
			first = first && j >= i;
			repeats++;
		}
		if (first && c / repeats < least)
			least = c / repeats;
	}
	return least;
}

/*
 * Decrements the element's k counters, skipping saturated ones.  If a
 * counter would go below zero (counting repetitions among the k), the
 * element was certainly never added: the decrements made so far are undone
 * in reverse and nothing changes.  Undoing is exact because a counter that
 * was decremented was below 15 before, so incrementing it back cannot
 * saturate it.
 */
static bf_status
counting_remove(bf_filter *f, bf_hash h)
{
	bf_positions p;
	uint64_t	done[BF_MAX_HASHES];
	uint32_t	ndone = 0;

	for (bf_positions_start(&p, f, h); p.i < f->hashes; bf_positions_next(&p))
	{
		unsigned	c = counter_get(f->payload, p.x);

		if (c == COUNTER_MAX)
			continue;
		if (c == 0)
		{
			while (ndone > 0)
			{
				uint64_t	i = done[--ndone];

				counter_put(f->payload, i, counter_get(f->payload, i) + 1);
			}
			return BF_E_NOT_FOUND;
		}
		counter_put(f->payload, p.x, c - 1);
		done[ndone++] = p.x;
	}
	return BF_OK;
}

/*
 * Saturating sum of the 16 counters of two words.  The even and odd
 * counters are spread into separate 8-bit lanes, where a sum (at most 30)
 * cannot carry into the next lane; bit 4 of a lane says it passed 15.
 */
static inline uint64_t
add_word(uint64_t a, uint64_t b)
{
	uint64_t	lo = (a & LANE_LOW) + (b & LANE_LOW),
				hi = ((a >> 4) & LANE_LOW) + ((b >> 4) & LANE_LOW);

	lo |= ((lo & LANE_BIT4) >> 4) * 0x0F;
	hi |= ((hi & LANE_BIT4) >> 4) * 0x0F;
	return (lo & LANE_LOW) | ((hi & LANE_LOW) << 4);
}

/* Counter-wise minimum of two words, by the same lanes */
static inline uint64_t
min_lanes(uint64_t a, uint64_t b)
{
	/* bit 4 of a lane of 16 + a - b is set when a >= b; no lane borrows */
	uint64_t	ge = (((a | LANE_BIT4) - b) & LANE_BIT4) >> 4;
	uint64_t	take_b = ge * 0x0F;

	return (b & take_b) | (a & ~take_b & LANE_LOW);
}

static inline uint64_t
min_word(uint64_t a, uint64_t b)
{
	return min_lanes(a & LANE_LOW, b & LANE_LOW) |
		(min_lanes((a >> 4) & LANE_LOW, (b >> 4) & LANE_LOW) << 4);
}

/*
 * Union adds counters (saturating): the result has exactly the counters of
 * one filter that took both filters' additions, since min(min(a, 15) +
 * min(b, 15), 15) = min(a + b, 15).  Intersection takes the counter-wise
 * minimum: every counter is at least the one a filter built from the
 * multiset intersection would have (an element's share of a counter is at
 * most both sides' counts), so every common element stays present.
 * Padding counters are zero on both sides and stay zero either way.
 */
static bf_status
counting_merge(bf_filter *dst, const bf_filter *src, bool intersect,
			   bf_yield_fn yield, void *arg)
{
	bf_ticker	t = {yield, arg, 0};

	bf_merge_words(dst->payload, src->payload, dst->payload_bytes, intersect,
				   add_word, min_word, &t);
	return BF_OK;
}

/*
 * Non-zero and saturated counters, 16 to a word (nibbles keep their place
 * whatever the byte order, so native loads will do).  A stranger needs k
 * non-zero counters: the rate now is (non-zero / m)^k.
 */
static void
counting_fill(const bf_filter *f, bf_fill_stats *stats, bf_yield_fn yield,
			  void *arg)
{
	uint64_t	nonzero = 0,
				saturated = 0,
				i;

	for (i = 0; i < f->payload_bytes; i += 8)
	{
		uint64_t	w = bf_load64(f->payload + i);

		nonzero += bf_popcount64((w | w >> 1 | w >> 2 | w >> 3) & NIBBLE_LOW);
		saturated += bf_popcount64(w & w >> 1 & w >> 2 & w >> 3 & NIBBLE_LOW);
		if (yield && (i + 8) % BF_YIELD_BYTES == 0)
			yield(arg);
	}
	stats->bits_set = nonzero;
	stats->saturated = saturated;
	stats->stages = 1;
	stats->fpr = pow((double) nonzero / (double) f->bits, f->hashes);
}

const bf_variant_ops bf_counting_ops = {
	.name = "counting",
	/*
	 * one array of 4-bit counters ('bits' counts them), sized by the classic
	 * model: m counters where a classic filter needs m bits
	 */
	.cell_bits = 4,
	.size = bf_classic_size, .capacity = bf_classic_capacity,
	.fpr = bf_classic_fpr, .fill = counting_fill,
	.estimate = bf_classic_estimate,	/* from the non-zero counters */
	.add = counting_add, .contains = counting_contains,
	.remove = counting_remove, .count = counting_count,
	.merge = counting_merge
};
