/*
 * bf_internal.h
 *		Private declarations shared by the core's source files.
 *
 * Each variant supplies one bf_variant_ops table; the public entry points
 * in variant.c and format.c dispatch through it instead of switching on the
 * variant in every function.
 */
#ifndef BF_INTERNAL_H
#define BF_INTERNAL_H

#include <string.h>

#include "bf.h"

/* Header field offsets (STORAGE.md) */
#define BF_OFF_MAGIC		0
#define BF_OFF_VERSION		4
#define BF_OFF_VARIANT		5
#define BF_OFF_SCHEME		6
#define BF_OFF_FLAGS		7
#define BF_OFF_HASHES		8
#define BF_OFF_VARIANT_WORD	12
#define BF_OFF_SEED			16
#define BF_OFF_BITS			24
#define BF_OFF_ITEMS		32
#define BF_OFF_EXPECTED		40
#define BF_OFF_TARGET		48
#define BF_OFF_PAYLOAD		56

typedef struct bf_variant_ops
{
	const char *name;
	/* the model: bits (and k) this layout needs for 'items' at 'fpr' */
	bf_status	(*size) (double items, double fpr, uint64_t *bits,
						 uint32_t *hashes);
	/*
	 * fills p's bits, hashes, variant_word and payload_bytes for 'items' at
	 * 'fpr'; NULL: size, then plan_bits
	 */
	bf_status	(*plan) (double items, double fpr, bf_params *p);
	/*
	 * the same for a requested shape (p->bits, p->hashes already set);
	 * NULL for a flat layout (cell_bits)
	 */
	bf_status	(*plan_bits) (bf_params *p);
	/* most items 'bits' hold at 'fpr' with k hashes (0: the best k) */
	double		(*capacity) (double bits, double fpr, uint32_t hashes);
	/* round a requested bit count to one the layout can hold; NULL: any */
	uint64_t	(*round_bits) (uint64_t bits);
	/*
	 * header consistency: bits, hashes, variant_word and payload_bytes
	 * agree; NULL for a flat layout
	 */
	bf_status	(*check_header) (const bf_params *h);
	/* writes the payload of an empty filter (already zeroed); may be NULL */
	void		(*init) (const bf_params *p, unsigned char *payload);
	/* expected false-positive rate of the layout */
	double		(*fpr) (double bits, double items, double hashes);
	/*
	 * checks on the payload beyond what the header tells; NULL: none (a flat
	 * layout's padding is checked by the core)
	 */
	bf_status	(*validate) (const bf_filter *f);
	/*
	 * A flat layout (blocked, classic, counting) is one array of 'bits'
	 * cells of cell_bits bits each (1 or 4), padded with zero bits to whole
	 * 64-bit words, in a header with no variant word and a bit count that
	 * round_bits leaves as it is: the core plans, checks the header and
	 * checks the padding of such a layout itself.  0 for other layouts.
	 */
	unsigned	cell_bits;
	/*
	 * dst |= src (or &=), both of this variant and compatible; with
	 * merge_counts_items it also updates dst's items added itself.  NULL
	 * for bit arrays (blocked, classic): OR and AND
	 */
	bf_status	(*merge) (bf_filter *dst, const bf_filter *src, bool intersect,
						  bf_yield_fn yield, void *arg);
	/* bits_set, fpr, stages and saturated of stats; estimated_items too if
	 * the variant computes it while filling (else estimate() does) */
	void		(*fill) (const bf_filter *f, bf_fill_stats *stats,
						 bf_yield_fn yield, void *arg);
	/* distinct items explaining 'set' bits (infinite if they cannot); NULL
	 * when fill computes the estimate itself */
	double		(*estimate) (const bf_filter *f, uint64_t set);
	/* BF_OK, or BF_E_FULL when the filter must grow first */
	bf_status	(*add) (bf_filter *f, bf_hash h);
	/*
	 * bf_add_new: as add, but nothing (*added = false) when the element is
	 * present; NULL: add (a repeat changes nothing the variant must avoid)
	 */
	bf_status	(*add_new) (bf_filter *f, bf_hash h, bool *added);
	bool		(*contains) (const bf_filter *f, bf_hash h);
	/* NULL when the variant cannot remove */
	bf_status	(*remove) (bf_filter *f, bf_hash h);
	/* copies of the element the filter may hold; NULL: no copies kept */
	uint32_t	(*count) (const bf_filter *f, bf_hash h);
	/*
	 * Bytes the union of dst and src needs when it cannot be done in place
	 * (growing variants); NULL, or dst's own size, for an in-place merge; 0
	 * past the stages the format allows
	 */
	uint64_t	(*union_bytes) (const bf_filter *dst, const bf_filter *src,
								bf_yield_fn yield, void *arg);
	/* writes that union into out (union_bytes long); dst, src unchanged */
	bf_status	(*union_into) (const bf_filter *dst, const bf_filter *src,
							   unsigned char *out, bf_yield_fn yield,
							   void *arg);
	/* total bytes after growing by one stage; NULL when it never grows */
	uint64_t	(*grow_bytes) (const bf_filter *f);
	/* writes the grown filter into dst (grow_bytes long) */
	void		(*grow) (const bf_filter *f, unsigned char *dst);
	/*
	 * whether two filters of this variant with the same hashes and seed
	 * combine; NULL: when their bit counts are equal
	 */
	bool		(*compatible) (const bf_filter *a, const bf_filter *b);
	/* items this filter holds within its target rate; NULL: from capacity */
	uint64_t	(*filter_capacity) (const bf_filter *f);
	/*
	 * the one cache line an add or test of h touches, for prefetching; NULL
	 * for variants that touch more.  A variant that has it never returns
	 * BF_E_FULL, so deferred adds (bf_add_later) never need to grow.
	 */
	const void *(*line_of) (const bf_filter *f, bf_hash h);
	/* adds n hashes given as halves, in order; NULL: add one at a time */
	void		(*add_many) (bf_filter *f, const uint64_t *lo,
							 const uint64_t *hi, size_t n);
	/* whether adding h certainly returns BF_E_FULL; NULL: not known before */
	bool		(*add_grows) (const bf_filter *f, bf_hash h);
	/* merge (union) sets dst's items added to what it stored (cuckoo) */
	bool		merge_counts_items;
} bf_variant_ops;

extern const bf_variant_ops bf_blocked_ops;
extern const bf_variant_ops bf_classic_ops;
extern const bf_variant_ops bf_counting_ops;
extern const bf_variant_ops bf_scalable_ops;
extern const bf_variant_ops bf_cuckoo_ops;

extern const bf_variant_ops *bf_ops(bf_variant variant);

/* sizing.c: the per-layout models behind the ops tables */
extern bf_status bf_classic_size(double items, double fpr, uint64_t *bits,
								 uint32_t *hashes);
extern bf_status bf_blocked_size(double items, double fpr, uint64_t *bits,
								 uint32_t *hashes);
/* blocked.c: set bits and the rate now of an array of blocks (also scalable) */
extern double bf_blocks_fill(const unsigned char *blocks, uint64_t nblocks,
							 uint32_t hashes, uint64_t *set,
							 bf_yield_fn yield, void *arg);
/* scalable_model.c: the plans of a chain's stages; levels 0 .. MAX_LEVEL */
#define BF_SCALABLE_MAX_LEVEL	63
extern bf_status bf_scalable_plan_stage(uint64_t n0, double fpr,
										uint32_t level, uint64_t *capacity,
										uint64_t *bits, uint32_t *hashes);
extern bf_status bf_scalable_size(double items, double fpr, uint64_t *bits,
								  uint32_t *hashes);
extern double bf_scalable_capacity(double bits, double fpr, uint32_t hashes);
/* blocked.c: a bit count rounded up to whole blocks (also scalable) */
extern uint64_t bf_blocked_round_bits(uint64_t bits);

/*
 * cuckoo_model.c: the cuckoo model; fingerprints of MIN_F .. MAX_F bits in
 * buckets of SLOTS
 */
#define BF_CUCKOO_SLOTS	4
#define BF_CUCKOO_MIN_F	4
#define BF_CUCKOO_MAX_F	32
extern double bf_cuckoo_rate(unsigned f, double load_sum);
extern unsigned bf_cuckoo_width(double fpr);
extern double bf_cuckoo_buckets(double items, unsigned f, double fpr);
extern bf_status bf_cuckoo_size(double items, double fpr, uint64_t *bits,
								uint32_t *hashes);
extern double bf_cuckoo_capacity(double bits, double fpr, uint32_t hashes);
extern double bf_cuckoo_fpr(double bits, double items, double hashes);
/* classic.c: distinct items explaining 'set' of m positions (also counting) */
extern double bf_classic_estimate(const bf_filter *f, uint64_t set);


/* Most bits a payload within BF_MAX_BYTES can hold */
#define BF_MAX_PAYLOAD_BITS	((BF_MAX_BYTES - BF_HEADER_SIZE) * 8)
extern double bf_classic_capacity(double bits, double fpr, uint32_t hashes);
extern double bf_blocked_capacity(double bits, double fpr, uint32_t hashes);

/*
 * Little-endian access: a plain load or store on little-endian hosts (where
 * the compiler turns the memcpy into one instruction), bytes elsewhere.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BF_LITTLE_ENDIAN 1
#endif

static inline uint64_t
bf_get_le64(const unsigned char *p)
{
#ifdef BF_LITTLE_ENDIAN
	uint64_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint64_t) p[0] | (uint64_t) p[1] << 8 | (uint64_t) p[2] << 16 |
		(uint64_t) p[3] << 24 | (uint64_t) p[4] << 32 |
		(uint64_t) p[5] << 40 | (uint64_t) p[6] << 48 | (uint64_t) p[7] << 56;
#endif
}

static inline uint32_t
bf_get_le32(const unsigned char *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 |
		(uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static inline void
bf_put_le64(unsigned char *p, uint64_t v)
{
#ifdef BF_LITTLE_ENDIAN
	memcpy(p, &v, sizeof(v));
#else
	p[0] = (unsigned char) v;
	p[1] = (unsigned char) (v >> 8);
	p[2] = (unsigned char) (v >> 16);
	p[3] = (unsigned char) (v >> 24);
	p[4] = (unsigned char) (v >> 32);
	p[5] = (unsigned char) (v >> 40);
	p[6] = (unsigned char) (v >> 48);
	p[7] = (unsigned char) (v >> 56);
#endif
}

static inline void
bf_put_le32(unsigned char *p, uint32_t v)
{
	int			i;

	for (i = 0; i < 4; i++)
		p[i] = (unsigned char) (v >> (8 * i));
}

static inline double
bf_get_double(const unsigned char *p)
{
	uint64_t	bits = bf_get_le64(p);
	double		d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static inline void
bf_put_double(unsigned char *p, double d)
{
	uint64_t	bits;

	memcpy(&bits, &d, sizeof(bits));
	bf_put_le64(p, bits);
}

/* Items added, in the view and in the header */
static inline void
bf_set_items(bf_filter *f, uint64_t items)
{
	f->items = items;
	bf_put_le64(f->base + BF_OFF_ITEMS, items);
}

/* High 64 bits of a 64 x 64-bit product: maps a hash onto [0, n) */
static inline uint64_t
bf_mulhi64(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
	__extension__ typedef unsigned __int128 bf_u128;

	return (uint64_t) (((bf_u128) a * b) >> 64);
#else
	uint64_t	a_lo = (uint32_t) a,
				a_hi = a >> 32,
				b_lo = (uint32_t) b,
				b_hi = b >> 32;
	uint64_t	lo_lo = a_lo * b_lo,
				hi_lo = a_hi * b_lo,
				lo_hi = a_lo * b_hi,
				hi_hi = a_hi * b_hi;
	uint64_t	cross = (lo_lo >> 32) + (uint32_t) hi_lo + lo_hi;

	return hi_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

/*
 * The 64-byte block of a blocked filter that a hash with high half 'hi'
 * touches (blocked.c): a multiply-shift of the high half onto the blocks
 */
static inline unsigned char *
bf_blocked_line(const bf_filter *f, uint64_t hi)
{
	return f->payload + bf_mulhi64(hi, f->blocks) * BF_BLOCK_BYTES;
}

/*
 * Largest bit count the sizing functions report.  The models answer for any
 * size that fits in 63 bits, so that callers can see how far past the 1 GB
 * limit of one filter a request lies; bf_plan enforces that limit.
 */
#define BF_MAX_SIZING_BITS	9.2e18

/* Bytes between calls of a yield hook in long loops */
#define BF_YIELD_BYTES	(UINT64_C(1) << 20)

/*
 * A meter of long work (union, copy): bf_tick calls the yield hook after
 * every BF_YIELD_BYTES of bytes read or written, counted in bits
 */
typedef struct bf_ticker
{
	bf_yield_fn yield;
	void	   *arg;
	uint64_t	bits;
} bf_ticker;

/* buf.c: memcpy in pieces, ticking after each */
extern void bf_copy_ticking(unsigned char *dst, const unsigned char *src,
							uint64_t bytes, bf_ticker *t);

/*
 * d = unite(d, s), or meet(d, s) for an intersection, 64-bit word by word
 * over n bytes (a multiple of 8), ticking 't' (bf_merge_words, below).
 * Inline, so that constant functions are inlined into the loop.
 */
typedef uint64_t (*bf_word_fn) (uint64_t dst, uint64_t src);

/* Native-order word access, for operations that do not care about order */
static inline uint64_t
bf_load64(const unsigned char *p)
{
	uint64_t	v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
bf_store64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline unsigned
bf_popcount64(uint64_t v)
{
#if defined(__GNUC__)
	return (unsigned) __builtin_popcountll(v);
#else
	v = v - ((v >> 1) & UINT64_C(0x5555555555555555));
	v = (v & UINT64_C(0x3333333333333333)) + ((v >> 2) & UINT64_C(0x3333333333333333));
	v = (v + (v >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
	return (unsigned) ((v * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

/* Index of the lowest set bit of v, which is not 0 */
static inline unsigned
bf_ctz64(uint64_t v)
{
#if defined(__GNUC__)
	return (unsigned) __builtin_ctzll(v);
#else
	unsigned	n = 0;

	while ((v & 1) == 0)
	{
		v >>= 1;
		n++;
	}
	return n;
#endif
}

/* Bit i of a payload is bit (i % 8) of byte (i / 8): endian-free */
static inline void
bf_bit_set(unsigned char *bits, uint64_t i)
{
	bits[i >> 3] |= (unsigned char) (1u << (i & 7));
}

static inline bool
bf_bit_test(const unsigned char *bits, uint64_t i)
{
	return (bits[i >> 3] >> (i & 7)) & 1;
}

/*
 * The blocked layout's bits (blocked.c), inline so that the dispatch in
 * variant.c serves the default variant without an indirect call.  The low
 * half of the hash seeds a 64-bit linear congruential sequence (Knuth's MMIX
 * multiplier, an odd increment) whose top 9 bits are the k positions in the
 * block; the jump constants give the same sequence 2, 3 and 4 steps at a
 * time (x -> M^j x + A_j mod 2^64), so four positions are computed side by
 * side instead of each waiting for the multiply before it.
 */
#define BF_LCG_MUL		UINT64_C(6364136223846793005)
#define BF_LCG_ADD		UINT64_C(1442695040888963407)
#define BF_LCG_MUL2		(BF_LCG_MUL * BF_LCG_MUL)
#define BF_LCG_MUL3		(BF_LCG_MUL2 * BF_LCG_MUL)
#define BF_LCG_MUL4		(BF_LCG_MUL3 * BF_LCG_MUL)
#define BF_LCG_ADD2		(BF_LCG_ADD * (BF_LCG_MUL + 1))
#define BF_LCG_ADD3		(BF_LCG_ADD * (BF_LCG_MUL2 + BF_LCG_MUL + 1))
#define BF_LCG_ADD4		(BF_LCG_ADD * (BF_LCG_MUL3 + BF_LCG_MUL2 + BF_LCG_MUL + 1))

/* Sets the k bits of hash half 'x' in a block */
static inline void
bf_blocked_set(unsigned char *block, uint64_t x, uint32_t hashes)
{
	uint32_t	i = 0;

	for (; i + 4 <= hashes; i += 4)
	{
		bf_bit_set(block, x >> 55);
		bf_bit_set(block, (x * BF_LCG_MUL + BF_LCG_ADD) >> 55);
		bf_bit_set(block, (x * BF_LCG_MUL2 + BF_LCG_ADD2) >> 55);
		bf_bit_set(block, (x * BF_LCG_MUL3 + BF_LCG_ADD3) >> 55);
		x = x * BF_LCG_MUL4 + BF_LCG_ADD4;
	}
	for (; i < hashes; i++)
	{
		bf_bit_set(block, x >> 55);
		x = x * BF_LCG_MUL + BF_LCG_ADD;
	}
}

/* bf_bit_test as 0 or 1, to be combined without branches */
static inline unsigned
bf_bit_at(const unsigned char *block, uint64_t p)
{
	return (block[p >> 3] >> (p & 7)) & 1u;
}

/* Whether all k bits of hash half 'x' are set in a block */
static inline bool
bf_blocked_test(const unsigned char *block, uint64_t x, uint32_t hashes)
{
	uint32_t	i = 0;

	for (; i + 4 <= hashes; i += 4)
	{
		/* all four loads issued before one branch */
		if (!(bf_bit_at(block, x >> 55) &
			  bf_bit_at(block, (x * BF_LCG_MUL + BF_LCG_ADD) >> 55) &
			  bf_bit_at(block, (x * BF_LCG_MUL2 + BF_LCG_ADD2) >> 55) &
			  bf_bit_at(block, (x * BF_LCG_MUL3 + BF_LCG_ADD3) >> 55)))
			return false;
		x = x * BF_LCG_MUL4 + BF_LCG_ADD4;
	}
	for (; i < hashes; i++)
	{
		if (!bf_bit_test(block, x >> 55))
			return false;
		x = x * BF_LCG_MUL + BF_LCG_ADD;
	}
	return true;
}

/*
 * The k positions of the classic and counting layouts: enhanced double
 * hashing (Dillinger and Manolios) over both 64-bit halves of the hash,
 * x, x + y, x + 2y + 1, ... (mod m), with m = f->bits.
 */
typedef struct bf_positions
{
	uint64_t	m;
	uint64_t	x;
	uint64_t	y;
	uint32_t	i;
} bf_positions;

static inline void
bf_positions_start(bf_positions *p, const bf_filter *f, bf_hash h)
{
	p->m = f->bits;
	p->x = bf_mulhi64(h.lo, p->m);
	p->y = bf_mulhi64(h.hi, p->m);
	p->i = 0;
}

static inline void
bf_positions_next(bf_positions *p)
{
	p->x += p->y;
	if (p->x >= p->m)
		p->x -= p->m;
	p->y += ++p->i;
	if (p->y >= p->m)
		p->y %= p->m;
}

static inline void
bf_tick(bf_ticker *t, uint64_t bits)
{
	if ((t->bits += bits) >= BF_YIELD_BYTES * 8)
	{
		t->bits = 0;
		if (t->yield)
			t->yield(t->arg);
	}
}

static inline uint64_t
bf_and_word(uint64_t a, uint64_t b)
{
	return a & b;
}

static inline uint64_t
bf_or_word(uint64_t a, uint64_t b)
{
	return a | b;
}

static inline void
bf_merge_words(unsigned char *d, const unsigned char *s, uint64_t n,
			   bool intersect, bf_word_fn unite, bf_word_fn meet, bf_ticker *t)
{
	uint64_t	done = 0;

	while (done < n)
	{
		uint64_t	end = n - done > BF_YIELD_BYTES ? done + BF_YIELD_BYTES : n;
		uint64_t	i;

		if (intersect)
			for (i = done; i < end; i += 8)
				bf_store64(d + i, meet(bf_load64(d + i), bf_load64(s + i)));
		else
			for (i = done; i < end; i += 8)
				bf_store64(d + i, unite(bf_load64(d + i), bf_load64(s + i)));
		bf_tick(t, (end - done) * 8);
		done = end;
	}
}

#endif							/* BF_INTERNAL_H */
