/*
 * cuckoo.c
 *		The cuckoo layout: a cuckoo filter (Fan, Andersen, Kaminsky and
 *		Mitzenmacher, "Cuckoo Filter: Practically Better Than Bloom", 2014)
 *		that grows by chaining stages, as RedisBloom's does.
 *
 * Every element is stored as one f-bit fingerprint (1 .. 2^f - 1; 0 marks
 * an empty slot) in one of its two candidate buckets of 4 slots, found by
 * partial-key cuckoo hashing: the alternate bucket is computed from the
 * bucket and the fingerprint alone, so stored fingerprints can be moved
 * ("kicked") without knowing their elements.  The alternate bucket is
 * i2 = (H(fp) - i1) mod B, an involution for any bucket count B (the
 * usual i1 XOR H(fp) needs B a power of two, which would cost up to half of
 * the space).
 *
 * Header fields (STORAGE.md, "cuckoo"): hashes = f, the fingerprint width
 * (4 .. 32); param = S, the number of stages; bits = the slot bits of all
 * stages, sum of 4 B_s f.  The payload is S stage records, oldest first:
 *
 *		u64 buckets B_s, u64 used (occupied slots), then 4 B_s f-bit slots,
 *		slot j of bucket b at bit (4b + j) f, padded with zero bits to 8 bytes.
 *
 * A filter planned for n items at rate p has one stage of
 * B_0 = ceil(n / (4 * LOAD)) buckets.  When an add finds no free slot in
 * its buckets of any stage and MAX_KICKS kicks in the newest stage do not
 * free one, the kicks are undone and the add reports BF_E_FULL; the caller
 * then grows the filter by a new, empty stage of twice the buckets of the
 * largest stage and adds again.  Nothing stored is ever lost, at the price
 * of every probe looking at 2 buckets per stage.
 *
 * Everything that moves fingerprints is deterministic (the victim of each
 * kick comes from the element's hash and the kick number), so the same
 * sequence of operations always gives the same bytes.
 */
#include <math.h>

#include "bf_internal.h"

#define SLOTS			4		/* fingerprints per bucket */
#define MIN_F			4
#define MAX_F			32
#define MAX_KICKS		500
#define STAGE_HEADER	16		/* u64 buckets, u64 used */

/*
 * Most stages a filter may have.  Growth doubles the buckets, so 256
 * stages are never reached by adding; unions of full filters chain a stage
 * each, and the bound keeps a probe (two buckets per stage) short.
 */
#define MAX_STAGES		BF_CUCKOO_MAX_STAGES

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

/* Odd 64-bit constant: 2^64 / golden ratio */
#define GOLDEN			UINT64_C(0x9E3779B97F4A7C15)

/* Serialised bytes of a stage's slots: 4 B f bits in whole 8-byte words */
static inline uint64_t
area_bytes(uint64_t buckets, unsigned f)
{
	return (SLOTS * buckets * f + 63) / 64 * 8;
}

static inline uint64_t
stage_bytes(uint64_t buckets, unsigned f)
{
	return STAGE_HEADER + area_bytes(buckets, f);
}

/* The element's fingerprint, from the low half of its hash: 1 .. 2^f - 1 */
static inline uint32_t
fingerprint(bf_hash h, unsigned f)
{
	return (uint32_t) (1 + bf_mulhi64(h.lo, (UINT64_C(1) << f) - 1));
}

/* The other bucket of fingerprint fp in bucket b: (H(fp) - b) mod B */
static inline uint64_t
alt_bucket(uint64_t mixed_fp, uint64_t b, uint64_t buckets)
{
	uint64_t	hb = bf_mulhi64(mixed_fp, buckets);

	return hb >= b ? hb - b : hb + buckets - b;
}

/* Slot access: an f-bit field at bit 'bit' of an area, little-endian */
static inline uint32_t
slot_get(const unsigned char *area, uint64_t bit, unsigned f)
{
	const unsigned char *p = area + (bit >> 3);
	unsigned	shift = (unsigned) (bit & 7);
	unsigned	n = (shift + f + 7) >> 3,
				i;
	uint64_t	v = 0;

	for (i = 0; i < n; i++)
		v |= (uint64_t) p[i] << (8 * i);
	return (uint32_t) ((v >> shift) & ((UINT64_C(1) << f) - 1));
}

static inline void
slot_put(unsigned char *area, uint64_t bit, unsigned f, uint32_t fp)
{
	unsigned char *p = area + (bit >> 3);
	unsigned	shift = (unsigned) (bit & 7);
	unsigned	n = (shift + f + 7) >> 3,
				i;
	uint64_t	v = 0,
				mask = ((UINT64_C(1) << f) - 1) << shift;

	for (i = 0; i < n; i++)
		v |= (uint64_t) p[i] << (8 * i);
	v = (v & ~mask) | ((uint64_t) fp << shift);
	for (i = 0; i < n; i++)
		p[i] = (unsigned char) (v >> (8 * i));
}

static inline uint64_t
slot_bit(uint64_t bucket, unsigned j, unsigned f)
{
	return (bucket * SLOTS + j) * f;
}

/* The slot of bucket b holding fp, or -1 */
static inline int
bucket_find(const unsigned char *area, uint64_t b, unsigned f, uint32_t fp)
{
	unsigned	j;

	for (j = 0; j < SLOTS; j++)
		if (slot_get(area, slot_bit(b, j, f), f) == fp)
			return (int) j;
	return -1;
}

/* ----------------------------------------------------------------------
 * Stages.  A walk visits the records oldest first; the view's header
 * fields (S, f, payload_bytes) were validated by cuckoo_validate.
 * ---------------------------------------------------------------------- */

typedef struct stage
{
	unsigned char *rec;			/* the stage header */
	unsigned char *area;		/* its slots */
	uint64_t	buckets;
	uint64_t	used;
} stage;

static inline void
stage_at(unsigned char *rec, stage *s)
{
	s->rec = rec;
	s->area = rec + STAGE_HEADER;
	s->buckets = bf_get_le64(rec);
	s->used = bf_get_le64(rec + 8);
}

static inline unsigned char *
stage_next(const stage *s, unsigned f)
{
	return s->area + area_bytes(s->buckets, f);
}

static inline void
stage_set_used(stage *s, uint64_t used)
{
	s->used = used;
	bf_put_le64(s->rec + 8, used);
}

/* The element's two buckets in a stage */
typedef struct probe
{
	uint32_t	fp;
	uint64_t	mixed;			/* bf_fmix64(fp), for the alternate bucket */
	uint64_t	i1;
	uint64_t	i2;
} probe;

static inline void
probe_start(probe *p, bf_hash h, unsigned f)
{
	p->fp = fingerprint(h, f);
	p->mixed = bf_fmix64(p->fp);
}

static inline void
probe_stage(probe *p, bf_hash h, const stage *s)
{
	p->i1 = bf_mulhi64(h.hi, s->buckets);
	p->i2 = alt_bucket(p->mixed, p->i1, s->buckets);
}

static bool
cuckoo_contains(const bf_filter *f, bf_hash h)
{
	unsigned	fw = f->hashes;
	unsigned char *rec = f->payload;
	probe		p;
	uint32_t	s;

	probe_start(&p, h, fw);
	for (s = 0; s < f->param; s++)
	{
		stage		st;

		stage_at(rec, &st);
		probe_stage(&p, h, &st);
		if (bucket_find(st.area, p.i1, fw, p.fp) >= 0 ||
			bucket_find(st.area, p.i2, fw, p.fp) >= 0)
			return true;
		rec = stage_next(&st, fw);
	}
	return false;
}

/*
 * Victims of the kicks: a sequence drawn from the element's hash and the
 * kick number only, so that adds are reproducible and need no state.
 */
static inline unsigned
kick_slot(uint64_t seed, int kick)
{
	return (unsigned) (bf_fmix64(seed + (uint64_t) (kick + 1) * GOLDEN) >> 62);
}

/*
 * Places fp in one of buckets i1, i2 of a stage whose both buckets are
 * full, by kicking: the fingerprint in hand replaces a victim, which moves
 * to its own other bucket, and so on until one lands in a free slot.
 * After MAX_KICKS the moves are undone, last first, and the stage is left
 * exactly as it was.  Undoing needs no log: the bucket before each move is
 * the other bucket of the fingerprint it sent on (alt_bucket is an
 * involution), and the victim slots are recomputed.
 */
static bool
kick_insert(const stage *s, unsigned f, bf_hash h, const probe *p)
{
	uint64_t	seed = h.lo ^ h.hi;
	uint64_t	b = (bf_fmix64(seed) >> 63) ? p->i2 : p->i1;
	uint32_t	carried = p->fp;
	int			k;

	for (k = 0; k < MAX_KICKS; k++)
	{
		uint64_t	bit = slot_bit(b, kick_slot(seed, k), f);
		uint32_t	victim = slot_get(s->area, bit, f);
		int			j;

		slot_put(s->area, bit, f, carried);
		carried = victim;
		b = alt_bucket(bf_fmix64(carried), b, s->buckets);
		j = bucket_find(s->area, b, f, 0);
		if (j >= 0)
		{
			slot_put(s->area, slot_bit(b, (unsigned) j, f), f, carried);
			return true;
		}
	}
	for (k = MAX_KICKS - 1; k >= 0; k--)
	{
		uint64_t	bit;
		uint32_t	back;

		b = alt_bucket(bf_fmix64(carried), b, s->buckets);
		bit = slot_bit(b, kick_slot(seed, k), f);
		back = slot_get(s->area, bit, f);
		slot_put(s->area, bit, f, carried);
		carried = back;
	}
	return false;
}

/*
 * A free slot in the element's buckets of any stage, the newest first
 * (bucket i1 before i2, slots in order); else kicks in the newest stage;
 * else BF_E_FULL with nothing changed.
 */
static bf_status
cuckoo_add(bf_filter *f, bf_hash h)
{
	unsigned	fw = f->hashes;
	unsigned char *rec = f->payload,
			   *free_rec = NULL;
	uint64_t	free_bit = 0;
	stage		st;
	probe		p;
	uint32_t	s;

	probe_start(&p, h, fw);
	for (s = 0;; s++)			/* there is at least one stage */
	{
		int			j;

		stage_at(rec, &st);
		probe_stage(&p, h, &st);
		if ((j = bucket_find(st.area, p.i1, fw, 0)) >= 0)
		{
			free_rec = rec;
			free_bit = slot_bit(p.i1, (unsigned) j, fw);
		}
		else if ((j = bucket_find(st.area, p.i2, fw, 0)) >= 0)
		{
			free_rec = rec;
			free_bit = slot_bit(p.i2, (unsigned) j, fw);
		}
		if (s + 1 >= f->param)
			break;
		rec = stage_next(&st, fw);
	}
	if (free_rec != NULL)
	{
		stage_at(free_rec, &st);
		slot_put(st.area, free_bit, fw, p.fp);
	}
	else if (!kick_insert(&st, fw, h, &p))	/* st is the newest stage */
		return BF_E_FULL;
	/* saturating, so that hostile counts never break validation */
	if (st.used < SLOTS * st.buckets)
		stage_set_used(&st, st.used + 1);
	return BF_OK;
}

/*
 * Deletes one copy of the element's fingerprint from its buckets, in the
 * newest stage that has one.  Within one stage this is always safe: two
 * elements whose fingerprints are equal and share a bucket share both
 * buckets, so either copy serves both.  Across stages it is not always:
 * see STORAGE.md.
 */
static bf_status
cuckoo_remove(bf_filter *f, bf_hash h)
{
	unsigned	fw = f->hashes;
	unsigned char *rec = f->payload,
			   *found_rec = NULL;
	uint64_t	found_bit = 0;
	stage		st;
	probe		p;
	uint32_t	s;

	probe_start(&p, h, fw);
	for (s = 0; s < f->param; s++)
	{
		int			j;

		stage_at(rec, &st);
		probe_stage(&p, h, &st);
		if ((j = bucket_find(st.area, p.i1, fw, p.fp)) >= 0)
		{
			found_rec = rec;
			found_bit = slot_bit(p.i1, (unsigned) j, fw);
		}
		else if ((j = bucket_find(st.area, p.i2, fw, p.fp)) >= 0)
		{
			found_rec = rec;
			found_bit = slot_bit(p.i2, (unsigned) j, fw);
		}
		rec = stage_next(&st, fw);
	}
	if (found_rec == NULL)
		return BF_E_NOT_FOUND;
	stage_at(found_rec, &st);
	slot_put(st.area, found_bit, fw, 0);
	if (st.used > 0)
		stage_set_used(&st, st.used - 1);
	return BF_OK;
}

/* ----------------------------------------------------------------------
 * Sizing.  A stranger is compared with the 2 x 4 slots of its two buckets
 * in every stage; each is occupied with probability a (the load) and then
 * holds its fingerprint with probability 1 / (2^f - 1), so
 *		fpr = 1 - (1 - 1 / (2^f - 1))^(8 a)
 * (summing the loads of all stages when there are several).
 * ---------------------------------------------------------------------- */

static double
rate_at(unsigned f, double load_sum)
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
static unsigned
width_for(double fpr)
{
	unsigned	f;

	for (f = MIN_F; f < MAX_F; f++)
		if (rate_at(f, LOAD) <= fpr)
			return f;
	return MAX_F;
}

/* Buckets for 'items' with f-bit fingerprints at 'fpr' (as a double) */
static double
buckets_for(double items, unsigned f, double fpr)
{
	double		b = ceil(items / (SLOTS * load_for(f, fpr)));

	return b < 1 ? 1 : b;
}

static bf_status
cuckoo_size(double items, double fpr, uint64_t *bits, uint32_t *hashes)
{
	unsigned	f = width_for(fpr);
	double		m = SLOTS * f * buckets_for(items, f, fpr);

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
static double
cuckoo_capacity(double bits, double fpr, uint32_t hashes)
{
	unsigned	f = hashes ? hashes : width_for(fpr);
	double		buckets;

	if (f < MIN_F || f > MAX_F)
		return 0;
	buckets = floor(bits / (SLOTS * f));
	/* the small slack keeps ceil() of the plan and this floor() in step */
	return floor(SLOTS * buckets * load_for(f, fpr) * (1 + 1e-12));
}

/* Every bit count: the table takes whole buckets (see plan_bits) */
static uint64_t
cuckoo_round_bits(uint64_t bits)
{
	return bits;
}

/* The model for one table of 'bits' slot bits holding 'items' */
static double
cuckoo_fpr(double bits, double items, double hashes)
{
	double		slots = bits / hashes;
	double		load;

	if (items <= 0)
		return 0.0;
	if (slots < SLOTS)
		slots = SLOTS;
	load = items / slots;
	return rate_at((unsigned) hashes, load < 1 ? load : 1);
}

/* One stage of 'buckets' buckets of f-bit fingerprints */
static bf_status
plan_stage(bf_params *p, uint64_t buckets, unsigned f)
{
	if ((double) buckets * SLOTS * f > BF_MAX_PAYLOAD_BITS)
		return BF_E_TOO_LARGE;
	p->hashes = f;
	p->param = 1;
	p->bits = SLOTS * buckets * f;
	p->payload_bytes = stage_bytes(buckets, f);
	return BF_OK;
}

static bf_status
cuckoo_plan(double items, double fpr, bf_params *p)
{
	unsigned	f = width_for(fpr);
	double		buckets = buckets_for(items, f, fpr);

	if (buckets * SLOTS * f > BF_MAX_SIZING_BITS)
		return BF_E_TOO_LARGE;
	if (buckets * SLOTS * f > BF_MAX_PAYLOAD_BITS)
	{
		/* past one value: report the size all the same (bf_plan refuses) */
		p->hashes = f;
		p->param = 1;
		p->bits = (uint64_t) (buckets * SLOTS * f);
		p->payload_bytes = STAGE_HEADER + (p->bits + 63) / 64 * 8;
		return BF_OK;
	}
	return plan_stage(p, (uint64_t) buckets, f);
}

/*
 * bloomfilter_create_bits(bits, hashes, 'cuckoo'): hashes is the
 * fingerprint width f, and the table has ceil(bits / 4f) buckets (at least
 * the bits asked for, in whole buckets).
 */
static bf_status
cuckoo_plan_bits(bf_params *p)
{
	unsigned	f = p->hashes;

	if (f < MIN_F || f > MAX_F)
		return BF_E_HASHES;
	return plan_stage(p, (p->bits + SLOTS * f - 1) / (SLOTS * f), f);
}

/* ----------------------------------------------------------------------
 * Validation
 * ---------------------------------------------------------------------- */

/*
 * O(1): the stage count, width and sizes can belong together.  Each stage
 * has at least one bucket and its slots take 4 B_s f bits rounded up to
 * whole words, i.e. bits / 8 to bits / 8 + 8 S - 8 bytes of slots in all.
 */
static bf_status
cuckoo_check_header(const bf_params *h)
{
	uint64_t	unit,
				least;

	if (h->hashes < MIN_F || h->hashes > MAX_F)
		return BF_E_HASHES;
	unit = SLOTS * h->hashes;
	if (h->bits < unit || h->bits > BF_MAX_PAYLOAD_BITS || h->bits % unit != 0)
		return BF_E_BITS;
	if (h->param < 1 || h->param > MAX_STAGES || h->param > h->bits / unit)
		return BF_E_FLAGS;
	least = (uint64_t) h->param * STAGE_HEADER + (h->bits + 63) / 64 * 8;
	if (h->payload_bytes % 8 != 0 || h->payload_bytes < least ||
		h->payload_bytes > least + (uint64_t) h->param * 8)
		return BF_E_PAYLOAD;
	return BF_OK;
}

/*
 * O(S): the stage records tile the payload exactly, their bucket counts
 * add up to the header's bits, no stage claims more used slots than it has,
 * and the padding bits after each stage's last slot (all in its last word)
 * are zero.  The slots themselves may hold anything.
 */
static bf_status
cuckoo_validate(const bf_filter *f)
{
	unsigned	fw = f->hashes;
	uint64_t	off = 0,
				bits = 0;
	uint32_t	s;

	for (s = 0; s < f->param; s++)
	{
		uint64_t	room = f->payload_bytes - off;
		uint64_t	area,
					used_bits;
		stage		st;

		if (off > f->payload_bytes || room < STAGE_HEADER + 8)
			return BF_E_LAYOUT;
		stage_at(f->payload + off, &st);
		if (st.buckets < 1 ||
			st.buckets > (room - STAGE_HEADER) * 8 / (SLOTS * fw))
			return BF_E_LAYOUT;
		area = area_bytes(st.buckets, fw);
		if (st.used > SLOTS * st.buckets)
			return BF_E_LAYOUT;
		used_bits = SLOTS * st.buckets * fw;
		if (used_bits % 64 != 0 &&
			bf_get_le64(st.area + area - 8) >> (used_bits % 64) != 0)
			return BF_E_PADDING;
		bits += used_bits;
		off += STAGE_HEADER + area;
	}
	if (off != f->payload_bytes || bits != f->bits)
		return BF_E_LAYOUT;
	return BF_OK;
}

/* Writes the one empty stage of a new filter */
static void
cuckoo_init(const bf_params *p, unsigned char *payload)
{
	bf_put_le64(payload, p->bits / (SLOTS * p->hashes));
	bf_put_le64(payload + 8, 0);
}

/* ----------------------------------------------------------------------
 * Growth
 * ---------------------------------------------------------------------- */

/* Buckets of the next stage: twice those of the largest stage */
static uint64_t
next_buckets(const bf_filter *f)
{
	unsigned char *rec = f->payload;
	uint64_t	most = 0;
	uint32_t	s;

	for (s = 0; s < f->param; s++)
	{
		stage		st;

		stage_at(rec, &st);
		if (st.buckets > most)
			most = st.buckets;
		rec = stage_next(&st, f->hashes);
	}
	return 2 * most;
}

static uint64_t
cuckoo_grow_bytes(const bf_filter *f)
{
	if (f->param >= MAX_STAGES)
		return 0;
	return BF_HEADER_SIZE + f->payload_bytes +
		stage_bytes(next_buckets(f), f->hashes);
}

/* The header fields that grow with the stages */
static void
put_shape(unsigned char *base, uint32_t stages, uint64_t bits,
		  uint64_t payload_bytes)
{
	bf_put_le32(base + BF_OFF_RESERVED, stages);
	bf_put_le64(base + BF_OFF_BITS, bits);
	bf_put_le64(base + BF_OFF_PAYLOAD, payload_bytes);
}

static void
cuckoo_grow(const bf_filter *f, unsigned char *dst)
{
	uint64_t	buckets = next_buckets(f);
	uint64_t	size = stage_bytes(buckets, f->hashes);
	unsigned char *rec = dst + BF_HEADER_SIZE + f->payload_bytes;

	memcpy(dst, f->base, BF_HEADER_SIZE + f->payload_bytes);
	memset(rec, 0, size);
	bf_put_le64(rec, buckets);
	put_shape(dst, f->param + 1, f->bits + SLOTS * buckets * f->hashes,
			  f->payload_bytes + size);
}

/* ----------------------------------------------------------------------
 * Union.  Stage s of src goes into stage s of dst when both have the same
 * buckets and every bucket of the two holds at most 4 fingerprints in all:
 * each fingerprint of src then joins the same bucket in dst, which is one
 * of its element's two buckets there too.  Otherwise the stage is chained
 * after dst's stages, as it is; empty stages of src are left out.
 *
 * Why not re-insert with kicks: how many bytes a union needs must be known
 * before it is written (bf_union_bytes), and whether kicks succeed is only
 * known by doing them, on a scratch copy the core does not have.  The
 * bucket-wise rule is decided by reading alone.
 * ---------------------------------------------------------------------- */

typedef enum
{
	U_SKIP,						/* nothing in the stage */
	U_MERGE,					/* into the same stage of dst */
	U_CHAIN						/* appended as a new stage */
} union_action;

static unsigned
bucket_count(const unsigned char *area, uint64_t b, unsigned f)
{
	unsigned	n = 0,
				j;

	for (j = 0; j < SLOTS; j++)
		n += slot_get(area, slot_bit(b, j, f), f) != 0;
	return n;
}

/* Fingerprints in a stage, counted (the 'used' field is not trusted here) */
static uint64_t
stage_count(const stage *s, unsigned f, bf_yield_fn yield, void *arg)
{
	uint64_t	b,
				n = 0,
				every = BF_YIELD_BYTES * 8 / (SLOTS * f) + 1;

	for (b = 0; b < s->buckets; b++)
	{
		n += bucket_count(s->area, b, f);
		if (yield && (b + 1) % every == 0)
			yield(arg);
	}
	return n;
}

/* What to do with src stage 'ss', given dst's stage of the same index */
static union_action
stage_action(const stage *ds, const stage *ss, unsigned f, bf_yield_fn yield,
			 void *arg)
{
	uint64_t	b,
				every = BF_YIELD_BYTES * 8 / (SLOTS * f) + 1;
	bool		empty = true;

	if (ds == NULL || ds->buckets != ss->buckets)
		return stage_count(ss, f, yield, arg) ? U_CHAIN : U_SKIP;
	for (b = 0; b < ss->buckets; b++)
	{
		unsigned	n = bucket_count(ss->area, b, f);

		if (n && n + bucket_count(ds->area, b, f) > SLOTS)
			return U_CHAIN;
		empty = empty && n == 0;
		if (yield && (b + 1) % every == 0)
			yield(arg);
	}
	return empty ? U_SKIP : U_MERGE;
}

/*
 * Moves the fingerprints of every bucket of 'ss' into the free slots of the
 * same bucket of 'ds' (stage_action said they fit).  ds and ss may be the
 * same stage: each source bucket is read before it is written.
 */
static void
stage_merge(stage *ds, const stage *ss, unsigned f, bf_yield_fn yield,
			void *arg)
{
	uint64_t	b,
				moved = 0,
				every = BF_YIELD_BYTES * 8 / (SLOTS * f) + 1;

	for (b = 0; b < ss->buckets; b++)
	{
		uint32_t	in[SLOTS];
		unsigned	j,
					k = 0;

		for (j = 0; j < SLOTS; j++)
			in[j] = slot_get(ss->area, slot_bit(b, j, f), f);
		for (j = 0; j < SLOTS; j++)
		{
			if (in[j] == 0)
				continue;
			while (slot_get(ds->area, slot_bit(b, k, f), f) != 0)
				k++;
			slot_put(ds->area, slot_bit(b, k, f), f, in[j]);
			moved++;
		}
		if (yield && (b + 1) % every == 0)
			yield(arg);
	}
	stage_set_used(ds, ds->used + moved < SLOTS * ds->buckets ?
				   ds->used + moved : SLOTS * ds->buckets);
}

/*
 * Walks src's stages beside dst's, deciding each; returns the bytes and
 * slot bits the chained stages add, and how many there are.
 */
static void
union_plan(const bf_filter *dst, const bf_filter *src, uint64_t *add_bytes,
		   uint64_t *add_bits, uint32_t *add_stages, bf_yield_fn yield,
		   void *arg)
{
	unsigned	f = dst->hashes;
	unsigned char *drec = dst->payload,
			   *srec = src->payload;
	uint32_t	s;

	*add_bytes = *add_bits = 0;
	*add_stages = 0;
	for (s = 0; s < src->param; s++)
	{
		stage		ds,
					ss;

		stage_at(srec, &ss);
		if (s < dst->param)
			stage_at(drec, &ds);
		if (stage_action(s < dst->param ? &ds : NULL, &ss, f, yield,
						 arg) == U_CHAIN)
		{
			*add_bytes += stage_bytes(ss.buckets, f);
			*add_bits += SLOTS * ss.buckets * f;
			(*add_stages)++;
		}
		srec = stage_next(&ss, f);
		if (s < dst->param)
			drec = stage_next(&ds, f);
	}
}

static uint64_t
cuckoo_union_bytes(const bf_filter *dst, const bf_filter *src,
				   bf_yield_fn yield, void *arg)
{
	uint64_t	add_bytes,
				add_bits;
	uint32_t	add_stages;

	union_plan(dst, src, &add_bytes, &add_bits, &add_stages, yield, arg);
	if (dst->param + add_stages > MAX_STAGES)
		return 0;
	return BF_HEADER_SIZE + dst->payload_bytes + add_bytes;
}

/*
 * Merges the stages of src that fit into 'out_payload' (a copy of dst's
 * payload, or dst's own) and, when 'tail' is given, appends the others
 * there.
 */
static void
union_stages(const bf_filter *dst, unsigned char *out_payload,
			 const bf_filter *src, unsigned char *tail, bf_yield_fn yield,
			 void *arg)
{
	unsigned	f = dst->hashes;
	unsigned char *drec = out_payload,
			   *srec = src->payload;
	uint32_t	s;

	for (s = 0; s < src->param; s++)
	{
		stage		ds,
					ss;
		union_action act;

		stage_at(srec, &ss);
		if (s < dst->param)
			stage_at(drec, &ds);
		act = stage_action(s < dst->param ? &ds : NULL, &ss, f, yield, arg);
		if (act == U_MERGE)
			stage_merge(&ds, &ss, f, yield, arg);
		else if (act == U_CHAIN && tail != NULL)
		{
			uint64_t	size = stage_bytes(ss.buckets, f);

			memcpy(tail, ss.rec, size);
			tail += size;
			if (yield)
				yield(arg);
		}
		srec = stage_next(&ss, f);
		if (s < dst->param)
			drec = stage_next(&ds, f);
	}
}

/*
 * In place: only when every non-empty stage of src fits into dst's (that
 * is, when bf_union_bytes reports dst's own size); else BF_E_FULL, nothing
 * changed.  Intersection has no meaning for fingerprint tables: a
 * fingerprint present in both tables may belong to different elements.
 */
static bf_status
cuckoo_merge(bf_filter *dst, const bf_filter *src, bool intersect,
			 bf_yield_fn yield, void *arg)
{
	uint64_t	add_bytes,
				add_bits;
	uint32_t	add_stages;

	if (intersect)
		return BF_E_UNSUPPORTED;
	union_plan(dst, src, &add_bytes, &add_bits, &add_stages, yield, arg);
	if (add_stages != 0)
		return dst->param + add_stages > MAX_STAGES ? BF_E_TOO_LARGE : BF_E_FULL;
	union_stages(dst, dst->payload, src, NULL, yield, arg);
	return BF_OK;
}

/* The union with chained stages, written whole into 'out' */
static bf_status
cuckoo_union_into(const bf_filter *dst, const bf_filter *src,
				  unsigned char *out, bf_yield_fn yield, void *arg)
{
	uint64_t	add_bytes,
				add_bits,
				items;
	uint32_t	add_stages;

	union_plan(dst, src, &add_bytes, &add_bits, &add_stages, yield, arg);
	if (dst->param + add_stages > MAX_STAGES)
		return BF_E_TOO_LARGE;
	memcpy(out, dst->base, BF_HEADER_SIZE + dst->payload_bytes);
	union_stages(dst, out + BF_HEADER_SIZE, src,
				 out + BF_HEADER_SIZE + dst->payload_bytes, yield, arg);
	put_shape(out, dst->param + add_stages, dst->bits + add_bits,
			  dst->payload_bytes + add_bytes);
	items = dst->items > UINT64_MAX - src->items ? UINT64_MAX :
		dst->items + src->items;
	bf_put_le64(out + BF_OFF_ITEMS, items);
	return BF_OK;
}

/* ----------------------------------------------------------------------
 * Fill: from the stages' used counts, O(S)
 * ---------------------------------------------------------------------- */

/*
 * bits_set is the occupied slots times f, so that fill_ratio = bits_set /
 * bits is the fraction of slots in use; the rate now sums every stage's
 * load.
 */
static void
cuckoo_fill(const bf_filter *f, bf_fill_stats *stats, bf_yield_fn yield,
			void *arg)
{
	unsigned char *rec = f->payload;
	uint64_t	used = 0;
	double		load_sum = 0.0;
	uint32_t	s;

	(void) yield;
	(void) arg;
	for (s = 0; s < f->param; s++)
	{
		stage		st;

		stage_at(rec, &st);
		used += st.used;
		load_sum += (double) st.used / (double) (SLOTS * st.buckets);
		rec = stage_next(&st, f->hashes);
	}
	stats->bits_set = used * f->hashes;
	stats->fpr = rate_at(f->hashes, load_sum);
	stats->stages = f->param;
}

/* Every stored fingerprint is one addition not removed (duplicates too) */
static double
cuckoo_estimate(const bf_filter *f, uint64_t set)
{
	return (double) (set / f->hashes);
}

/*
 * Filters with the same fingerprint width and seed combine whatever their
 * stages: a union merges stages of the same geometry and chains the rest.
 */
static bool
cuckoo_compatible(const bf_filter *a, const bf_filter *b)
{
	(void) a;
	(void) b;
	return true;
}

const bf_variant_ops bf_cuckoo_ops = {
	.name = "cuckoo",
	.size = cuckoo_size,
	.plan = cuckoo_plan,
	.plan_bits = cuckoo_plan_bits,
	.capacity = cuckoo_capacity,
	.round_bits = cuckoo_round_bits,
	.check_header = cuckoo_check_header,
	.init = cuckoo_init,
	.fpr = cuckoo_fpr,
	.validate = cuckoo_validate,
	.merge = cuckoo_merge,
	.fill = cuckoo_fill,
	.estimate = cuckoo_estimate,
	.add = cuckoo_add,
	.contains = cuckoo_contains,
	.remove = cuckoo_remove,
	.union_bytes = cuckoo_union_bytes,
	.union_into = cuckoo_union_into,
	.grow_bytes = cuckoo_grow_bytes,
	.grow = cuckoo_grow,
	.compatible = cuckoo_compatible
};
