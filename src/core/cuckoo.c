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
 * (4 .. 32); variant_word = S, the number of stages; bits = the slot bits of all
 * stages, sum of 4 B_s f.  The payload is S stage records, oldest first:
 *
 *		u64 buckets B_s, u64 used (occupied slots), then 4 B_s f-bit slots,
 *		slot j of bucket b at bit (4b + j) f, padded with zero bits to 8 bytes.
 *
 * A filter planned for n items at rate p has one stage of
 * B_0 = ceil(n / (4 * LOAD)) buckets (LOAD, the model: cuckoo_model.c).  When an add finds no free slot in
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

#define SLOTS			BF_CUCKOO_SLOTS
#define MIN_F			BF_CUCKOO_MIN_F
#define MAX_F			BF_CUCKOO_MAX_F
#define MAX_KICKS		500
#define STAGE_HEADER	16		/* u64 buckets, u64 used */

/*
 * Most stages a filter may have.  Growth doubles the buckets, so 256
 * stages are never reached by adding; unions of full filters chain a stage
 * each, and the bound keeps a probe (two buckets per stage) short.
 */
#define MAX_STAGES		BF_CUCKOO_MAX_STAGES

/*
 * A union compares stages whose bucket counts divide one another with a
 * quotient of at most this (three doublings)
 */
#define MAX_RATIO		8


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

/*
 * Reads stage s of f into st, st holding stage s - 1 when s > 0; false past
 * the last.  for (s = 0; stage_visit(f, s, &st); s++) walks every stage,
 * and leaves st at the newest.
 */
static inline bool
stage_visit(const bf_filter *f, uint32_t s, stage *st)
{
	if (s >= f->variant_word)
		return false;
	stage_at(s == 0 ? f->payload : stage_next(st, f->hashes), st);
	return true;
}

/* A slot a walk found: its stage record and its place there */
typedef struct slot_ref
{
	unsigned char *rec;			/* NULL: none found */
	uint64_t	bit;
} slot_ref;

/* Notes slot j of bucket b of stage st in r */
static inline void
slot_ref_set(slot_ref *r, const stage *st, uint64_t b, int j, unsigned f)
{
	r->rec = st->rec;
	r->bit = slot_bit(b, (unsigned) j, f);
}

/* Writes fp (0: empties it) into the slot r names; st is left at its stage */
static inline void
slot_ref_put(const slot_ref *r, stage *st, unsigned f, uint32_t fp)
{
	stage_at(r->rec, st);
	slot_put(st->area, r->bit, f, fp);
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
	stage		st;
	probe		p;
	uint32_t	s;

	probe_start(&p, h, fw);
	for (s = 0; stage_visit(f, s, &st); s++)
	{
		probe_stage(&p, h, &st);
		if (bucket_find(st.area, p.i1, fw, p.fp) >= 0 ||
			bucket_find(st.area, p.i2, fw, p.fp) >= 0)
			return true;
	}
	return false;
}

/* The slots of bucket b holding fp */
static inline uint32_t
bucket_copies(const unsigned char *area, uint64_t b, unsigned f, uint32_t fp)
{
	uint32_t	n = 0;
	unsigned	j;

	for (j = 0; j < SLOTS; j++)
		n += slot_get(area, slot_bit(b, j, f), f) == fp;
	return n;
}

/* The element's fingerprint in its buckets (one bucket when they are one) */
static uint32_t
cuckoo_count(const bf_filter *f, bf_hash h)
{
	unsigned	fw = f->hashes;
	uint32_t	n = 0;
	stage		st;
	probe		p;
	uint32_t	s;

	probe_start(&p, h, fw);
	for (s = 0; stage_visit(f, s, &st); s++)
	{
		probe_stage(&p, h, &st);
		n += bucket_copies(st.area, p.i1, fw, p.fp);
		if (p.i2 != p.i1)
			n += bucket_copies(st.area, p.i2, fw, p.fp);
	}
	return n;
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
 * Reads bucket b once: the first free slot (-1 if none) and how many slots
 * hold fp.
 */
static inline int
bucket_scan(const unsigned char *area, uint64_t b, unsigned f, uint32_t fp,
			unsigned *copies)
{
	int			free_j = -1;
	unsigned	j;

	for (j = 0; j < SLOTS; j++)
	{
		uint32_t	v = slot_get(area, slot_bit(b, j, f), f);

		if (v == fp)
			(*copies)++;
		else if (v == 0 && free_j < 0)
			free_j = (int) j;
	}
	return free_j;
}

/*
 * Adds one copy of the element's fingerprint: into a free slot of its
 * buckets in any stage, the newest first (bucket i1 before i2, slots in
 * order); else by kicks in the newest stage; else BF_E_FULL with nothing
 * changed.  The copies of the fingerprint already in the element's buckets
 * are counted on the way: with 'if_absent' one of them means the element
 * is present and nothing is added (*added = false); without it, as many
 * copies as the element's buckets in the first stage hold (8; 4 when its
 * two buckets are one) refuse the add (BF_E_COPIES, nothing changed).
 * More copies would only be taken by new stages, each twice the size of
 * the last: a value added 150 times would grow the filter to 700 MB.
 */
static bf_status
cuckoo_insert(bf_filter *f, bf_hash h, bool if_absent, bool *added)
{
	unsigned	fw = f->hashes,
				copies = 0,
				room = 2 * SLOTS;
	slot_ref	free_slot = {NULL, 0};
	stage		st;
	probe		p;
	uint32_t	s;

	*added = false;
	probe_start(&p, h, fw);
	for (s = 0;; s++)			/* there is at least one stage */
	{
		int			j1,
					j2;

		stage_at(s == 0 ? f->payload : stage_next(&st, fw), &st);
		probe_stage(&p, h, &st);
		j1 = bucket_scan(st.area, p.i1, fw, p.fp, &copies);
		if (p.i2 != p.i1)
			j2 = bucket_scan(st.area, p.i2, fw, p.fp, &copies);
		else
		{
			j2 = -1;			/* one bucket: count its copies once */
			if (s == 0)
				room = SLOTS;
		}
		if (j1 >= 0)
			slot_ref_set(&free_slot, &st, p.i1, j1, fw);
		else if (j2 >= 0)
			slot_ref_set(&free_slot, &st, p.i2, j2, fw);
		if (s + 1 >= f->variant_word)
			break;				/* st stays at the newest stage */
	}
	if (if_absent && copies > 0)
		return BF_OK;
	if (copies >= room)
		return BF_E_COPIES;
	if (free_slot.rec != NULL)
		slot_ref_put(&free_slot, &st, fw, p.fp);
	else if (!kick_insert(&st, fw, h, &p))	/* st is the newest stage */
		return BF_E_FULL;
	/* saturating, so that hostile counts never break validation */
	if (st.used < SLOTS * st.buckets)
		stage_set_used(&st, st.used + 1);
	*added = true;
	return BF_OK;
}

static bf_status
cuckoo_add(bf_filter *f, bf_hash h)
{
	bool		added;

	return cuckoo_insert(f, h, false, &added);
}

/* A set's insert (bf_add_new): nothing when the fingerprint is there */
static bf_status
cuckoo_add_new(bf_filter *f, bf_hash h, bool *added)
{
	return cuckoo_insert(f, h, true, added);
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
	slot_ref	found = {NULL, 0};
	stage		st;
	probe		p;
	uint32_t	s;

	probe_start(&p, h, fw);
	for (s = 0; stage_visit(f, s, &st); s++)
	{
		int			j;

		probe_stage(&p, h, &st);
		if ((j = bucket_find(st.area, p.i1, fw, p.fp)) >= 0)
			slot_ref_set(&found, &st, p.i1, j, fw);
		else if ((j = bucket_find(st.area, p.i2, fw, p.fp)) >= 0)
			slot_ref_set(&found, &st, p.i2, j, fw);
	}
	if (found.rec == NULL)
		return BF_E_NOT_FOUND;
	slot_ref_put(&found, &st, fw, 0);
	if (st.used > 0)
		stage_set_used(&st, st.used - 1);
	return BF_OK;
}

/* ----------------------------------------------------------------------
 * Planning (the model is in cuckoo_model.c)
 * ---------------------------------------------------------------------- */

/*
 * One stage of 'buckets' buckets of f-bit fingerprints, even past the 1 GB
 * limit (bf_plan and bf_plan_bits refuse those; bf_size_bytes reports
 * their size).  SLOTS * buckets * f stays within 64 bits: buckets come from
 * at most 2^63 bits.
 */
static bf_status
plan_stage(bf_params *p, uint64_t buckets, unsigned f)
{
	p->hashes = f;
	p->variant_word = 1;
	p->bits = SLOTS * buckets * f;
	p->payload_bytes = stage_bytes(buckets, f);
	return BF_OK;
}

static bf_status
cuckoo_plan(double items, double fpr, bf_params *p)
{
	unsigned	f = bf_cuckoo_width(fpr);
	double		buckets = bf_cuckoo_buckets(items, f, fpr);

	if (buckets * SLOTS * f > BF_MAX_SIZING_BITS)
		return BF_E_TOO_LARGE;
	/* past one value: the size all the same (bf_plan refuses it) */
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
	if (h->variant_word < 1 || h->variant_word > MAX_STAGES ||
		h->variant_word > h->bits / unit)
		return BF_E_FLAGS;
	least = (uint64_t) h->variant_word * STAGE_HEADER + (h->bits + 63) / 64 * 8;
	if (h->payload_bytes % 8 != 0 || h->payload_bytes < least ||
		h->payload_bytes > least + (uint64_t) h->variant_word * 8)
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

	for (s = 0; s < f->variant_word; s++)
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
	uint64_t	most = 0;
	stage		st;
	uint32_t	s;

	for (s = 0; stage_visit(f, s, &st); s++)
		if (st.buckets > most)
			most = st.buckets;
	return 2 * most;
}

static uint64_t
cuckoo_grow_bytes(const bf_filter *f)
{
	if (f->variant_word >= MAX_STAGES)
		return 0;
	return BF_HEADER_SIZE + f->payload_bytes +
		stage_bytes(next_buckets(f), f->hashes);
}

/* The header fields that grow with the stages */
static void
put_shape(unsigned char *base, uint32_t stages, uint64_t bits,
		  uint64_t payload_bytes)
{
	bf_put_le32(base + BF_OFF_VARIANT_WORD, stages);
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
	put_shape(dst, f->variant_word + 1, f->bits + SLOTS * buckets * f->hashes,
			  f->payload_bytes + size);
}

/* ----------------------------------------------------------------------
 * Union: a set union of fingerprints.  A fingerprint of src is left out
 * when dst holds it, for the element it stands for, where bf_add_new would
 * look: in that element's buckets of a stage of dst.
 *
 * Which buckets those are, without the element: src's fingerprint fp in
 * bucket b of a stage of B buckets belongs to an element whose first
 * bucket there, mulhi(hi, B), is b or else alt_bucket(fp, b).  In a stage
 * of B / m buckets the first bucket is mulhi(hi, B / m) = mulhi(hi, B) / m,
 * and the second follows from it and fp.  So every stage of dst whose
 * bucket count divides B tells, for each of the two cases, whether dst
 * holds fp in that element's buckets, and fp is left out when some stage
 * does for both ("covered").  Between stages of the same size the two cases
 * are one pair of buckets; for m > 1 the borrow of (H - b) mod B makes them
 * two different pairs about a quarter (m = 2) to a half of the time, and a
 * fingerprint that dst holds in one pair only is kept, since the element
 * may be the other's.  A stage of dst larger than src's cannot tell: the
 * element's bucket there is one of m.  So where dst holds an element in a
 * larger stage than src does, src's copy is stored and, after the writing,
 * dst's copy is taken out: a fingerprint of dst that src covers from
 * smaller stages, and does not hold itself in a stage of its size, stands
 * only for elements that the union now finds lower down.  Stages more than
 * MAX_RATIO times apart are not compared, so that a union reads a bounded
 * number of stages per fingerprint (and the chance of two different pairs
 * nears a half there anyway).
 *
 * So a union of partial filters of one set (a parallel aggregate's), each
 * grown its own way, stores most shared elements once, a union of a filter
 * with itself is the filter, and a union of many filters of overlapping
 * sets grows with the new elements only.  (Like bf_add_new, it takes an
 * element whose fingerprint another element of the same buckets stored for
 * present; removing either then removes both.)
 *
 * The fingerprints of a stage of src that are left go into the first
 * stage of dst with the same buckets (and not yet merged into by this
 * union) in which every bucket has room for them: each joins the same
 * bucket, one of its element's two.  Otherwise the stage is chained after
 * dst's stages, without the fingerprints left out; a stage with nothing
 * left is skipped.
 *
 * Why not re-insert with kicks: how many bytes a union needs must be known
 * before it is written (bf_union_bytes), and whether kicks succeed is only
 * known by doing them, on a scratch copy the core does not have.  These
 * rules are decided by reading alone: the plan reads dst and src as they
 * are, and the writing follows the plan's decisions.  While it writes, a
 * fingerprint may find itself present where the plan did not (an earlier
 * fingerprint of src put it there), and is then left out too: that only
 * takes less room than planned.  Taking dst's second copies out comes last
 * and only frees room.
 * ---------------------------------------------------------------------- */

typedef enum
{
	U_SKIP,						/* nothing new in the stage */
	U_MERGE,					/* into a stage of dst of the same buckets */
	U_CHAIN						/* appended as a new stage */
} union_action;

typedef struct union_plan
{
	uint8_t		act[MAX_STAGES];	/* per stage of src */
	uint8_t		into[MAX_STAGES];	/* U_MERGE: the stage of dst */
	uint32_t	chained;
	uint64_t	add_bytes;		/* of the chained stages */
	uint64_t	add_bits;
} union_plan;


static void
stage_list(unsigned char *payload, uint32_t n, unsigned f, stage *out)
{
	uint32_t	s;

	for (s = 0; s < n; s++)
	{
		stage_at(payload, &out[s]);
		payload = stage_next(&out[s], f);
	}
}

static unsigned
bucket_count(const unsigned char *area, uint64_t b, unsigned f)
{
	unsigned	n = 0,
				j;

	for (j = 0; j < SLOTS; j++)
		n += slot_get(area, slot_bit(b, j, f), f) != 0;
	return n;
}

/*
 * The stages of list[0 .. n) that a union asks where an element of a stage
 * of 'buckets' buckets lives: those whose bucket count divides it with a
 * quotient of at most MAX_RATIO (with 'smaller', of at least 2).  Returns
 * how many, their addresses in out, the nearest in size first: an element
 * is most often found in a stage of its own stage's size, and the larger a
 * stage the more it holds.
 */
static uint32_t
dividing(stage *list, uint32_t n, uint64_t buckets, bool smaller,
		 stage **out)
{
	uint32_t	k = 0;
	uint64_t	m;

	for (m = smaller ? 2 : 1; m <= MAX_RATIO; m++)
	{
		uint32_t	t;

		if (buckets % m != 0)
			continue;
		for (t = 0; t < n; t++)
			if (list[t].buckets == buckets / m)
				out[k++] = &list[t];
	}
	return k;
}

/* Whether stage t holds fp in bucket i1 or in fp's other bucket of it */
static inline bool
holds_pair(const stage *t, unsigned f, uint32_t fp, uint64_t mixed, uint64_t i1)
{
	return bucket_find(t->area, i1, f, fp) >= 0 ||
		bucket_find(t->area, alt_bucket(mixed, i1, t->buckets), f, fp) >= 0;
}

/* Whether j is one of the buckets of the pair that holds bucket i */
static inline bool
same_pair(uint64_t mixed, uint64_t i, uint64_t j, uint64_t buckets)
{
	return j == i || j == alt_bucket(mixed, i, buckets);
}

/*
 * Whether the stages st[0 .. n), each of a bucket count dividing 'buckets',
 * hold fp for every element that can have left fp in bucket b of a stage
 * of 'buckets' buckets: its first bucket there is b or the other one, and
 * for each of the two some stage has fp in the element's buckets.
 */
static bool
covered(stage *const *st, uint32_t n, unsigned f, uint32_t fp, uint64_t b,
		uint64_t buckets)
{
	uint64_t	mixed = bf_fmix64(fp),
				other = alt_bucket(mixed, b, buckets),
				m;
	uint32_t	i;

	for (i = 0; i < n; i++)
		if (holds_pair(st[i], f, fp, mixed, b / (buckets / st[i]->buckets)))
			break;
	if (i == n)
		return false;
	/* the other case: in stage i, often the same pair of buckets */
	m = buckets / st[i]->buckets;
	if (same_pair(mixed, b / m, other / m, st[i]->buckets))
		return true;
	for (i = 0; i < n; i++)
		if (holds_pair(st[i], f, fp, mixed, other / (buckets / st[i]->buckets)))
			return true;
	return false;
}

/* The stages of d[0 .. n) with the buckets of ss (their numbers in index) */
static uint32_t
same_geometry(stage *d, uint32_t n, const stage *ss, stage **same,
			  uint8_t *index)
{
	uint32_t	t,
				k = 0;

	for (t = 0; t < n; t++)
		if (d[t].buckets == ss->buckets)
		{
			if (index != NULL)
				index[k] = (uint8_t) t;
			same[k++] = &d[t];
		}
	return k;
}

/*
 * Decides every stage of src against dst as it is.  dst and src have at
 * most MAX_STAGES stages each (bf_open checked).
 */
static void
plan_union(const bf_filter *dst, const bf_filter *src, union_plan *u,
		   bf_yield_fn yield, void *arg)
{
	unsigned	f = dst->hashes;
	stage		d[MAX_STAGES],
				sv[MAX_STAGES];
	stage	   *same[MAX_STAGES],
			   *div[MAX_STAGES];
	uint8_t		index[MAX_STAGES];
	bool		taken[MAX_STAGES] = {false};
	bf_ticker	tk = {yield, arg, 0};
	uint32_t	s;

	stage_list(dst->payload, dst->variant_word, f, d);
	stage_list(src->payload, src->variant_word, f, sv);
	u->chained = 0;
	u->add_bytes = u->add_bits = 0;
	for (s = 0; s < src->variant_word; s++)
	{
		const stage *ss = &sv[s];
		uint32_t	k = same_geometry(d, dst->variant_word, ss, same, index),
					nd = dividing(d, dst->variant_word, ss->buckets, false, div),
					i;
		bool		fits[MAX_STAGES];
		uint64_t	b,
					left = 0;

		for (i = 0; i < k; i++)
			fits[i] = !taken[index[i]];
		for (b = 0; b < ss->buckets; b++)
		{
			unsigned	n = 0,
						j;

			for (j = 0; j < SLOTS; j++)
			{
				uint32_t	fp = slot_get(ss->area, slot_bit(b, j, f), f);

				if (fp != 0 && !covered(div, nd, f, fp, b, ss->buckets))
					n++;
			}
			bf_tick(&tk, SLOTS * f * (1 + 4 * (uint64_t) nd));
			if (n == 0)
				continue;
			left += n;
			for (i = 0; i < k; i++)
				if (fits[i] && n + bucket_count(same[i]->area, b, f) > SLOTS)
					fits[i] = false;
		}
		for (i = 0; i < k && !fits[i]; i++)
			;
		if (left == 0)
			u->act[s] = U_SKIP;
		else if (i < k)
		{
			u->act[s] = U_MERGE;
			u->into[s] = index[i];
			taken[index[i]] = true;
		}
		else
		{
			u->act[s] = U_CHAIN;
			u->chained++;
			u->add_bytes += stage_bytes(ss->buckets, f);
			u->add_bits += SLOTS * ss->buckets * f;
		}
	}
}

/*
 * Writes the union the plan describes: the stages of dst at 'payload' (a
 * copy of dst's, or dst's own), the chained ones from 'tail' on.  Returns
 * the fingerprints stored.
 */
static uint64_t
write_union(const bf_filter *dst, unsigned char *payload,
			const bf_filter *src, unsigned char *tail, const union_plan *u,
			bf_ticker *tk)
{
	unsigned	f = dst->hashes;
	stage		d[MAX_STAGES],
				sv[MAX_STAGES];
	stage	   *div[MAX_STAGES + 1];
	uint64_t	stored = 0;
	uint32_t	s;

	stage_list(payload, dst->variant_word, f, d);
	stage_list(src->payload, src->variant_word, f, sv);
	for (s = 0; s < src->variant_word; s++)
	{
		const stage *ss = &sv[s];
		uint32_t	nd;
		stage		chained,
				   *out;
		uint64_t	b,
					moved = 0;

		if (u->act[s] == U_SKIP)
			continue;
		nd = dividing(d, dst->variant_word, ss->buckets, false, div);
		if (u->act[s] == U_MERGE)
			out = &d[u->into[s]];
		else
		{
			/* an empty stage of src's buckets, filled as a merge would */
			memset(tail, 0, stage_bytes(ss->buckets, f));
			bf_put_le64(tail, ss->buckets);
			stage_at(tail, &chained);
			tail += stage_bytes(ss->buckets, f);
			out = div[nd++] = &chained; /* what it took covers the rest */
		}
		for (b = 0; b < ss->buckets; b++)
		{
			uint32_t	in[SLOTS];
			unsigned	j;

			/* read whole before writing: ss may be the stage written */
			for (j = 0; j < SLOTS; j++)
				in[j] = slot_get(ss->area, slot_bit(b, j, f), f);
			for (j = 0; j < SLOTS; j++)
			{
				int			free_j;

				if (in[j] == 0 || covered(div, nd, f, in[j], b, ss->buckets))
					continue;
				/* a chained stage keeps src's places */
				free_j = u->act[s] == U_CHAIN ? (int) j :
					bucket_find(out->area, b, f, 0);
				if (free_j < 0)
					continue;	/* cannot happen: the plan saw room */
				slot_put(out->area, slot_bit(b, (unsigned) free_j, f), f, in[j]);
				moved++;
			}
			bf_tick(tk, SLOTS * f * (2 + 4 * (uint64_t) nd));
		}
		stage_set_used(out, out->used + moved < SLOTS * out->buckets ?
					   out->used + moved : SLOTS * out->buckets);
		stored += moved;
	}
	return stored;
}

/*
 * After the writing: takes out of dst's own stages (the first dst->
 * variant_word of the union at 'payload') the fingerprints that src covers
 * from stages smaller than theirs but does not hold in a stage of their
 * size: second copies of elements that the union holds in a smaller stage.
 * Each element such a copy may stand for is found there, since the union
 * stored src's copy in its bucket or found it covered already.  The test
 * reads src only, so the order of the removals does not matter, and a
 * union with itself removes nothing.  Returns the fingerprints taken out.
 */
static uint64_t
drop_copies(const bf_filter *dst, unsigned char *payload,
			const bf_filter *src, bf_ticker *tk)
{
	unsigned	f = dst->hashes;
	stage		d[MAX_STAGES],
				sv[MAX_STAGES];
	stage	   *lower[MAX_STAGES],
			   *same[MAX_STAGES];
	uint64_t	dropped = 0;
	uint32_t	s;

	stage_list(payload, dst->variant_word, f, d);
	stage_list(src->payload, src->variant_word, f, sv);
	for (s = 0; s < dst->variant_word; s++)
	{
		stage	   *t = &d[s];
		uint32_t	nl,
					ns;
		uint64_t	x,
					taken = 0;

		if ((nl = dividing(sv, src->variant_word, t->buckets, true, lower)) == 0)
			continue;
		ns = same_geometry(sv, src->variant_word, t, same, NULL);
		for (x = 0; x < t->buckets; x++)
		{
			unsigned	j;

			for (j = 0; j < SLOTS; j++)
			{
				uint64_t	bit = slot_bit(x, j, f);
				uint32_t	fp = slot_get(t->area, bit, f);

				if (fp == 0 || covered(same, ns, f, fp, x, t->buckets) ||
					!covered(lower, nl, f, fp, x, t->buckets))
					continue;
				slot_put(t->area, bit, f, 0);
				taken++;
			}
			bf_tick(tk, SLOTS * f * (1 + 4 * (uint64_t) (nl + ns)));
		}
		stage_set_used(t, t->used > taken ? t->used - taken : 0);
		dropped += taken;
	}
	return dropped;
}

/*
 * dst's items added, plus the fingerprints the union stored, less those it
 * took out (saturating, and a saturated count stays)
 */
static uint64_t
union_items(uint64_t items, uint64_t stored, uint64_t dropped)
{
	if (items > UINT64_MAX - stored)
		return UINT64_MAX;
	items += stored;
	return items > dropped ? items - dropped : 0;
}

static uint64_t
cuckoo_union_bytes(const bf_filter *dst, const bf_filter *src,
				   bf_yield_fn yield, void *arg)
{
	union_plan	u;

	plan_union(dst, src, &u, yield, arg);
	if (dst->variant_word + u.chained > MAX_STAGES)
		return 0;
	return BF_HEADER_SIZE + dst->payload_bytes + u.add_bytes;
}

/*
 * In place: only when no stage of src is chained (that is, when
 * bf_union_bytes reports dst's own size); else BF_E_FULL, nothing changed.
 * The items added grow by the fingerprints stored, less those taken out.
 * Intersection has no meaning for fingerprint tables: a fingerprint
 * present in both tables may belong to different elements.
 */
static bf_status
cuckoo_merge(bf_filter *dst, const bf_filter *src, bool intersect,
			 bf_yield_fn yield, void *arg)
{
	union_plan	u;
	bf_ticker	tk = {yield, arg, 0};
	uint64_t	stored,
				dropped;

	if (intersect)
		return BF_E_UNSUPPORTED;
	plan_union(dst, src, &u, yield, arg);
	if (u.chained != 0)
		return dst->variant_word + u.chained > MAX_STAGES ? BF_E_TOO_LARGE : BF_E_FULL;
	stored = write_union(dst, dst->payload, src, NULL, &u, &tk);
	dropped = drop_copies(dst, dst->payload, src, &tk);
	bf_set_items(dst, union_items(dst->items, stored, dropped));
	return BF_OK;
}

/* The union with chained stages, written whole into 'out' */
static bf_status
cuckoo_union_into(const bf_filter *dst, const bf_filter *src,
				  unsigned char *out, bf_yield_fn yield, void *arg)
{
	union_plan	u;
	bf_ticker	tk = {yield, arg, 0};
	uint64_t	stored,
				dropped;

	plan_union(dst, src, &u, yield, arg);
	if (dst->variant_word + u.chained > MAX_STAGES)
		return BF_E_TOO_LARGE;
	bf_copy_ticking(out, dst->base, BF_HEADER_SIZE + dst->payload_bytes, &tk);
	stored = write_union(dst, out + BF_HEADER_SIZE, src,
						 out + BF_HEADER_SIZE + dst->payload_bytes, &u, &tk);
	dropped = drop_copies(dst, out + BF_HEADER_SIZE, src, &tk);
	put_shape(out, dst->variant_word + u.chained, dst->bits + u.add_bits,
			  dst->payload_bytes + u.add_bytes);
	bf_put_le64(out + BF_OFF_ITEMS, union_items(dst->items, stored, dropped));
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
	uint64_t	used = 0;
	double		load_sum = 0.0;
	stage		st;
	uint32_t	s;

	(void) yield;
	(void) arg;
	for (s = 0; stage_visit(f, s, &st); s++)
	{
		used += st.used;
		load_sum += (double) st.used / (double) (SLOTS * st.buckets);
	}
	stats->bits_set = used * f->hashes;
	stats->fpr = bf_cuckoo_rate(f->hashes, load_sum);
	stats->stages = f->variant_word;
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
	/* elements: a set (add_new), copies (add), removal */
	.add = cuckoo_add, .add_new = cuckoo_add_new,
	.contains = cuckoo_contains, .remove = cuckoo_remove,
	.count = cuckoo_count,
	/* sizing */
	.size = bf_cuckoo_size, .capacity = bf_cuckoo_capacity, .fpr = bf_cuckoo_fpr,
	.plan = cuckoo_plan, .plan_bits = cuckoo_plan_bits,
	/* the header and the stages */
	.check_header = cuckoo_check_header, .validate = cuckoo_validate,
	.init = cuckoo_init, .fill = cuckoo_fill, .estimate = cuckoo_estimate,
	/* growth and sets: a union is a set union */
	.grow_bytes = cuckoo_grow_bytes, .grow = cuckoo_grow,
	.compatible = cuckoo_compatible, .merge = cuckoo_merge,
	.merge_counts_items = true,
	.union_bytes = cuckoo_union_bytes, .union_into = cuckoo_union_into
};
