/*
 * fuzz_ops.c
 *		libFuzzer target: every mutating operation of the core on filters
 *		that bf_open accepted, driven by a script taken from the input.
 *
 * Input (all integers little-endian; a short input reads as zeros):
 *
 *		u8   flags		bits 0-2: variant of the fallback filter (1 + v % 5)
 *						bits 3-5: its rate, an index into fallback_rate[], and k
 *						bit 6:    B is a copy of A even when B is given
 *						bit 7:    a large fallback (megabytes: the paths that call
 *						          the yield hook every BF_YIELD_BYTES)
 *		u8   n0			fallback filter: 1 + n0 % 16 items (scalable), else
 *						1 + 8 n0 bits; large: 10^5 times the items, or
 *						2^23 + 2^13 n0 bits (just past a megabyte); also its seed
 *		u32  len_a, then len_a bytes: filter A (clamped to what is left)
 *		u32  len_b, then len_b bytes: filter B
 *		the script: one opcode byte per operation, then its operands
 *
 * When A does not open, A is a fresh filter planned from flags and n0; when
 * B does not open, B is a copy of A (so unions have a compatible partner).
 * Each opcode byte is  op = (c & 15) % OP_COUNT,  target = bit 4 (A or B,
 * the other one is the partner),  m = c >> 5.  An element is a key of one
 * byte (m & 3 == 0) or two (1) hashed with the filter's seed, a raw 16-byte
 * hash (2), or one remembered (3, a byte picks it).  The operations:
 *
 *		ADD e, ADD_MANY (u16 base, u8 n: 1 + n keys from base << 8),
 *		REMOVE e, REMOVE_KNOWN (u8), CONTAINS e, UNION and INTERSECT with the
 *		partner (m & 1: with the target itself), FILL, GROW, COPY (partner :=
 *		target), CHECK, ADD_DUP e (u8 n: 1 + n % 32 times), RESET (an empty
 *		filter of the same plan)
 *
 * bf_add that reports BF_E_FULL is followed, as the SQL functions do, by
 * bf_grow into bf_grow_bytes() bytes and the add again; a union for which
 * bf_union_bytes() exceeds the target's size goes through bf_union_into.
 *
 * Filters are kept in malloc'd buffers of exactly their declared size.
 * After every mutating operation the bytes must pass bf_open and the view
 * must agree with them; an operation that fails must leave every byte as it
 * was.  Elements added are remembered (with multiplicity) and must be found
 * afterwards: a false negative is a bug, except where STORAGE.md says a
 * remove may cause one (removing an element that was never added from a
 * counting or cuckoo filter, or any remove from a cuckoo filter of several
 * stages); after such a remove nothing earlier is asserted any more.
 */
#include "fuzz_common.h"
#include "fuzz_ops.h"

/* Grown and united filters: larger than BF_YIELD_BYTES, so the yield paths run */
#define OPS_MAX_ALLOC	((uint64_t) 4 << 20)
/* Filters up to this size are snapshotted to check "nothing changed" */
#define SNAPSHOT_MAX	((size_t) 256 << 10)
/*
 * Cuckoo filters have no limit on stages, and every probe walks them all;
 * unions chain stages (f | f can double them), so a script could build
 * thousands.  Past this many the script stops adding stages.
 */
#define MAX_CUCKOO_STAGES	256
#define MAX_KNOWN		128
#define MAX_OPS			256

static const double fallback_rate[8] = {
	0.5, 0.1, 0.01, 0.001, 1e-4, 1e-6, 1e-9, 0.3
};

/* A filter, and the elements it must hold with how many times each */
typedef struct slot
{
	unsigned char *b;
	size_t		len;
	bf_filter	f;
	int			nk;
	bf_hash		kh[MAX_KNOWN];
	uint32_t	kc[MAX_KNOWN];
} slot;

static bool
growing(bf_variant v)
{
	return v == BF_SCALABLE || v == BF_CUCKOO;
}

static bool
same_hash(bf_hash a, bf_hash b)
{
	return a.lo == b.lo && a.hi == b.hi;
}

static int
known_find(const slot *s, bf_hash h)
{
	int			i;

	for (i = 0; i < s->nk; i++)
		if (same_hash(s->kh[i], h))
			return i;
	return -1;
}

static void
known_add(slot *s, bf_hash h, uint32_t times)
{
	int			i = known_find(s, h);

	if (i >= 0)
		s->kc[i] = s->kc[i] > UINT32_MAX - times ? UINT32_MAX : s->kc[i] + times;
	else if (s->nk < MAX_KNOWN)
	{
		s->kh[s->nk] = h;
		s->kc[s->nk++] = times;
	}
}

static void
known_drop(slot *s, int i)
{
	s->kh[i] = s->kh[s->nk - 1];
	s->kc[i] = s->kc[s->nk - 1];
	s->nk--;
}

/* No false negatives among the elements remembered */
static void
check_known(const slot *s, const char *after)
{
	int			i;

	for (i = 0; i < s->nk; i++)
		FZ_ASSERT(bf_contains(&s->f, s->kh[i]),
				  "false negative after %s: element %d of %d (hash %016llx %016llx, "
				  "added %u times) of a variant %d filter of %u stage(s)",
				  after, i, s->nk, (unsigned long long) s->kh[i].lo,
				  (unsigned long long) s->kh[i].hi, s->kc[i], s->f.variant, s->f.variant_word);
}

/* The bytes are still a valid filter, and the view still describes them */
static void
check_valid(slot *s, const char *after)
{
	bf_filter	again;
	bf_status	st = bf_open(s->b, s->len, &again);

	FZ_ASSERT(st == BF_OK, "after %s the filter (variant %d, %zu bytes) is refused: %s",
			  after, s->f.variant, s->len, bf_status_message(st));
	fz_same_view(&s->f, &again, after);
}

static unsigned char *
snapshot(const slot *s)
{
	return s->len <= SNAPSHOT_MAX ? fz_dup(s->b, s->len) : NULL;
}

static void
check_unchanged(const slot *s, unsigned char *snap, const char *what)
{
	if (snap)
	{
		FZ_ASSERT(memcmp(snap, s->b, s->len) == 0,
				  "%s changed bytes it must leave alone (variant %d)", what, s->f.variant);
		free(snap);
	}
}

static void
drop_snapshot(unsigned char *snap)
{
	free(snap);
}

/* Replaces a slot's bytes with 'b' (len bytes), which must open */
static void
replace(slot *s, unsigned char *b, size_t len, const char *after)
{
	bf_filter	f;
	bf_status	st = bf_open(b, len, &f);

	FZ_ASSERT(st == BF_OK, "the result of %s (%zu bytes) is refused: %s",
			  after, len, bf_status_message(st));
	free(s->b);
	s->b = b;
	s->len = len;
	s->f = f;
}

/*
 * A buffer filled with 'fill'.  Outputs are written twice, over different
 * fillings, and compared: a byte the core leaves unwritten shows up (the
 * core must never leave stale memory in a filter).
 */
static unsigned char *
alloc_patterned(size_t len, int fill)
{
	unsigned char *b = malloc(len);

	FZ_ASSERT(b != NULL, "out of memory for %zu bytes", len);
	memset(b, fill, len);
	return b;
}

/* One more stage; false when the filter cannot grow within our cap */
static bool
grow(slot *s)
{
	uint64_t	need = bf_grow_bytes(&s->f);
	unsigned char *snap,
			   *a,
			   *b;

	FZ_ASSERT(need == 0 || need > s->len, "bf_grow_bytes %llu for a filter of %zu bytes",
			  (unsigned long long) need, s->len);
	FZ_ASSERT(need == 0 || growing(s->f.variant), "variant %d wants to grow", s->f.variant);
	if (need == 0 || need > OPS_MAX_ALLOC ||
		(s->f.variant == BF_CUCKOO && s->f.variant_word >= MAX_CUCKOO_STAGES))
		return false;
	snap = snapshot(s);
	a = alloc_patterned(need, 0x00);
	b = alloc_patterned(need, 0xFF);
	bf_grow(&s->f, a);
	bf_grow(&s->f, b);
	FZ_ASSERT(memcmp(a, b, need) == 0, "bf_grow left bytes of its output unwritten");
	free(b);
	check_unchanged(s, snap, "bf_grow (its input)");
	replace(s, a, need, "bf_grow");
	FZ_ASSERT(bf_grow_bytes(&s->f) == 0 || bf_grow_bytes(&s->f) > need,
			  "a grown filter cannot grow again by a stage");
	check_known(s, "bf_grow");
	return true;
}

static void
add_elem(slot *s, bf_hash h)
{
	unsigned char *snap = snapshot(s);
	bf_status	st = bf_add(&s->f, h);

	if (st == BF_E_COPIES)
	{
		/* a cuckoo element's buckets hold 8 copies at most */
		FZ_ASSERT(s->f.variant == BF_CUCKOO, "bf_add: copies on variant %d",
				  s->f.variant);
		check_unchanged(s, snap, "bf_add (copies)");
		FZ_ASSERT(bf_contains(&s->f, h), "a refused copy is absent");
		return;
	}
	if (st == BF_E_FULL)
	{
		FZ_ASSERT(growing(s->f.variant), "bf_add: full on variant %d", s->f.variant);
		check_unchanged(s, snap, "bf_add (full)");
		if (!grow(s))
			return;
		st = bf_add(&s->f, h);
		FZ_ASSERT(st == BF_OK, "bf_add after bf_grow: %s", bf_status_message(st));
	}
	else
		drop_snapshot(snap);
	FZ_ASSERT(st == BF_OK, "bf_add: %s", bf_status_message(st));
	check_valid(s, "bf_add");
	FZ_ASSERT(bf_contains(&s->f, h), "false negative right after bf_add (variant %d)",
			  s->f.variant);
	known_add(s, h, 1);
}

/*
 * Whether removing an element that was added keeps every other element:
 * counting filters always, cuckoo filters within one stage (STORAGE.md
 * 13.8).
 */
static bool
remove_is_safe(const bf_filter *f)
{
	return f->variant == BF_COUNTING || (f->variant == BF_CUCKOO && f->variant_word == 1);
}

static void
remove_elem(slot *s, bf_hash h)
{
	int			i = known_find(s, h);
	bool		tracked = i >= 0 && s->kc[i] > 0;
	bool		present = bf_contains(&s->f, h);
	bool		safe = remove_is_safe(&s->f);
	unsigned char *snap = snapshot(s);
	bf_status	st = bf_remove(&s->f, h);

	if (!bf_can_remove(s->f.variant))
	{
		FZ_ASSERT(st == BF_E_UNSUPPORTED, "bf_remove on variant %d: %s",
				  s->f.variant, bf_status_message(st));
		check_unchanged(s, snap, "bf_remove (unsupported)");
		return;
	}
	if (!present)
		FZ_ASSERT(st == BF_E_NOT_FOUND, "bf_remove of an absent element: %s",
				  bf_status_message(st));
	if (tracked || (present && s->f.variant == BF_CUCKOO))
		FZ_ASSERT(st == BF_OK, "bf_remove of an element %s (variant %d): %s",
				  tracked ? "that was added" : "that is present",
				  s->f.variant, bf_status_message(st));
	if (st == BF_E_NOT_FOUND)
	{
		check_unchanged(s, snap, "bf_remove (not found)");
		return;
	}
	drop_snapshot(snap);
	FZ_ASSERT(st == BF_OK, "bf_remove: %s", bf_status_message(st));
	check_valid(s, "bf_remove");
	if (tracked && safe)
	{
		if (--s->kc[i] == 0)
			known_drop(s, i);
	}
	else
		s->nk = 0;				/* a documented way to lose elements */
	check_known(s, "bf_remove");
}

/* bf_union_into where it must refuse: 'out' stays as it was */
static bf_status
union_into_refused(const slot *t, const bf_filter *src)
{
	unsigned char *out = alloc_patterned(t->len, 0xC3),
			   *clean = alloc_patterned(t->len, 0xC3);
	bf_status	st = bf_union_into(&t->f, src, out, NULL, NULL);

	FZ_ASSERT(memcmp(out, clean, t->len) == 0, "a refused bf_union_into wrote its output");
	free(out);
	free(clean);
	return st;
}

/* T |= src (src may be T itself) */
static void
do_union(slot *t, slot *o, bool self)
{
	const bf_filter *src = self ? &t->f : &o->f;
	bool		compat = bf_compatible(&t->f, src);
	uint64_t	need = bf_union_bytes(&t->f, src, NULL, NULL);
	unsigned char *snap_t = snapshot(t),
			   *snap_o = self ? NULL : snapshot(o);
	uint64_t	yields = 0;
	bf_status	st;
	int			i,
				nsrc = self ? t->nk : o->nk;
	bf_hash		src_h[MAX_KNOWN];
	uint32_t	src_c[MAX_KNOWN];

	memcpy(src_h, self ? t->kh : o->kh, sizeof(bf_hash) * nsrc);
	memcpy(src_c, self ? t->kc : o->kc, sizeof(uint32_t) * nsrc);
	FZ_ASSERT(need == 0 || need >= t->len, "bf_union_bytes %llu < %zu",
			  (unsigned long long) need, t->len);
	if (!compat)
	{
		FZ_ASSERT(need == t->len, "bf_union_bytes of incompatible filters %llu",
				  (unsigned long long) need);
		st = bf_union(&t->f, src, fz_yield, &yields);
		FZ_ASSERT(st == BF_E_INCOMPATIBLE, "bf_union of incompatible filters: %s",
				  bf_status_message(st));
		st = union_into_refused(t, src);
		FZ_ASSERT(st == BF_E_INCOMPATIBLE, "bf_union_into of incompatible filters: %s",
				  bf_status_message(st));
		check_unchanged(t, snap_t, "bf_union (incompatible)");
		drop_snapshot(snap_o);
		return;
	}
	if (need == 0)
	{
		/* past the stages the format allows: refused, nothing changed */
		FZ_ASSERT(t->f.variant == BF_SCALABLE || t->f.variant == BF_CUCKOO,
				  "bf_union_bytes 0 for variant %d", t->f.variant);
		st = bf_union(&t->f, src, fz_yield, &yields);
		FZ_ASSERT(st == BF_E_TOO_LARGE || st == BF_E_FULL || st == BF_E_UNSUPPORTED,
				  "bf_union past the stage limit: %s", bf_status_message(st));
		check_unchanged(t, snap_t, "bf_union past the stage limit");
		drop_snapshot(snap_o);
		return;
	}
	if (need == t->len)
	{
		unsigned char *into = NULL;

		if (growing(t->f.variant))
		{
			/* the new-bytes path must give what the in-place one gives */
			into = alloc_patterned(need, 0x5A);
			st = bf_union_into(&t->f, src, into, fz_yield, &yields);
			FZ_ASSERT(st == BF_OK, "bf_union_into (no growth): %s", bf_status_message(st));
			check_unchanged(t, snap_t, "bf_union_into (dst)");
			snap_t = NULL;
		}
		else
		{
			st = union_into_refused(t, src);
			FZ_ASSERT(st == BF_E_UNSUPPORTED, "bf_union_into on variant %d: %s",
					  t->f.variant, bf_status_message(st));
			drop_snapshot(snap_t);
		}
		st = bf_union(&t->f, src, fz_yield, &yields);
		FZ_ASSERT(st == BF_OK, "bf_union of compatible filters with room: %s",
				  bf_status_message(st));
		check_valid(t, "bf_union");
		if (into)
		{
			FZ_ASSERT(memcmp(into, t->b, need) == 0,
					  "bf_union_into and bf_union give different bytes (variant %d)",
					  t->f.variant);
			free(into);
		}
	}
	else
	{
		unsigned char *a,
				   *b;

		if (need > OPS_MAX_ALLOC ||
			(t->f.variant == BF_CUCKOO && t->f.variant_word + src->variant_word > MAX_CUCKOO_STAGES))
		{
			drop_snapshot(snap_t);
			drop_snapshot(snap_o);
			return;
		}
		/* bf_union cannot do it in place, and must say so */
		st = bf_union(&t->f, src, fz_yield, &yields);
		FZ_ASSERT(st == BF_E_FULL || st == BF_E_UNSUPPORTED,
				  "bf_union where bf_union_bytes asks for more room: %s",
				  bf_status_message(st));
		a = alloc_patterned(need, 0x00);
		b = alloc_patterned(need, 0xFF);
		st = bf_union_into(&t->f, src, a, fz_yield, &yields);
		FZ_ASSERT(bf_union_into(&t->f, src, b, fz_yield, &yields) == st,
				  "bf_union_into is not deterministic");
		check_unchanged(t, snap_t, "bf_union_into (dst)");
		if (!self)
			check_unchanged(o, snap_o, "bf_union_into (src)");
		if (st == BF_E_TOO_LARGE && t->f.variant == BF_SCALABLE)
		{
			free(a);
			free(b);
			return;
		}
		FZ_ASSERT(st == BF_OK, "bf_union_into: %s", bf_status_message(st));
		FZ_ASSERT(memcmp(a, b, need) == 0, "bf_union_into left bytes of its output unwritten");
		free(b);
		replace(t, a, need, "bf_union_into");
		snap_o = NULL;
	}
	if (snap_o)
		check_unchanged(o, snap_o, "bf_union (src)");
	for (i = 0; i < nsrc; i++)
		known_add(t, src_h[i], src_c[i]);
	/* a cuckoo union is a set union: an element of both is stored once */
	if (t->f.variant == BF_CUCKOO)
		for (i = 0; i < t->nk; i++)
			t->kc[i] = 1;
	check_known(t, "a union");
}

/* T &= src (src may be T itself) */
static void
do_intersect(slot *t, slot *o, bool self)
{
	const bf_filter *src = self ? &t->f : &o->f;
	const slot *os = self ? t : o;
	bool		compat = bf_compatible(&t->f, src);
	unsigned char *snap = snapshot(t);
	uint64_t	yields = 0;
	bf_status	st = bf_intersect(&t->f, src, fz_yield, &yields);
	int			i;

	if (!compat)
	{
		FZ_ASSERT(st == BF_E_INCOMPATIBLE, "bf_intersect of incompatible filters: %s",
				  bf_status_message(st));
		check_unchanged(t, snap, "bf_intersect (incompatible)");
		return;
	}
	if (t->f.variant == BF_CUCKOO ||
		(t->f.variant == BF_SCALABLE && (t->f.variant_word != 1 || src->variant_word != 1)))
	{
		FZ_ASSERT(st == BF_E_UNSUPPORTED, "bf_intersect on variant %d, %u and %u stages: %s",
				  t->f.variant, t->f.variant_word, src->variant_word, bf_status_message(st));
		check_unchanged(t, snap, "bf_intersect (unsupported)");
		return;
	}
	FZ_ASSERT(st == BF_OK, "bf_intersect of compatible filters: %s", bf_status_message(st));
	check_valid(t, "bf_intersect");
	if (self)
		check_unchanged(t, snap, "f & f");
	else
		drop_snapshot(snap);
	/* what both held, as many times as the smaller count */
	for (i = 0; i < t->nk;)
	{
		int			j = known_find(os, t->kh[i]);
		uint32_t	c = j < 0 ? 0 : os->kc[j];

		if (c < t->kc[i])
			t->kc[i] = c;
		if (t->kc[i] == 0)
			known_drop(t, i);
		else
			i++;
	}
	check_known(t, "bf_intersect");
}

static void
copy_slot(slot *dst, const slot *src)
{
	unsigned char *b = fz_dup(src->b, src->len);

	replace(dst, b, src->len, "a copy");
	dst->nk = src->nk;
	memcpy(dst->kh, src->kh, sizeof(bf_hash) * src->nk);
	memcpy(dst->kc, src->kc, sizeof(uint32_t) * src->nk);
}

static void
check_slot(const slot *s)
{
	unsigned char *b = fz_dup(s->b, s->len);
	bf_filter	c;

	check_known(s, "the script");
	FZ_ASSERT(bf_open(b, s->len, &c) == BF_OK, "a copy is refused");
	FZ_ASSERT(bf_equal(&s->f, &c), "a filter differs from its copy");
	free(b);
}

/*
 * An empty filter of the same plan (for scalable, the same n0 and rate; for
 * the others the same bits, k and seed, so that the two stay compatible);
 * cuckoo filters of several stages are left alone.
 */
static void
reset_slot(slot *s)
{
	bf_params	params;
	bf_status	st;
	unsigned char *b;

	if (s->f.variant == BF_SCALABLE)
		st = bf_plan(BF_SCALABLE, s->f.expected_items, s->f.target_fpr, s->f.seed, &params);
	else if (s->f.variant != BF_CUCKOO || s->f.variant_word == 1)
		st = bf_plan_bits(s->f.variant, s->f.bits, s->f.hashes, s->f.seed, &params);
	else
		return;
	FZ_ASSERT(st == BF_OK, "planning a filter like one that opened: %s",
			  bf_status_message(st));
	if (params.total_bytes > OPS_MAX_ALLOC)
		return;
	FZ_ASSERT(s->f.variant == BF_SCALABLE || params.bits == s->f.bits,
			  "bf_plan_bits(%llu bits) of variant %d plans %llu bits",
			  (unsigned long long) s->f.bits, s->f.variant,
			  (unsigned long long) params.bits);
	b = alloc_patterned(params.total_bytes, 0x77);
	bf_init(&params, b);
	replace(s, b, params.total_bytes, "bf_init");
	s->nk = 0;
}

/* The element an operation works on */
static bf_hash
pick(fz_reader *r, const slot *s, unsigned m)
{
	bf_hash		h;

	switch (m & 3)
	{
		case 0:
			return bf_hash_int64(fz_u8(r), s->f.seed);
		case 1:
			return bf_hash_int64((int64_t) fz_uint(r, 2), s->f.seed);
		case 2:
			/* a raw hash: the fuzzer steers positions, buckets, fingerprints */
			h.lo = fz_u64(r);
			h.hi = fz_u64(r);
			return h;
		default:
			if (s->nk > 0)
				return s->kh[fz_u8(r) % s->nk];
			return bf_hash_int64(fz_u8(r), s->f.seed);
	}
}

/* Opens a copy of the given bytes; false (and nothing kept) when refused */
static bool
slot_open(slot *s, const uint8_t *bytes, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->b = fz_dup(bytes, len);
	s->len = len;
	if (bf_open(s->b, len, &s->f) == BF_OK)
		return true;
	free(s->b);
	memset(s, 0, sizeof(*s));
	return false;
}

/* A fresh filter planned from the input's flags, when A is refused */
static void
slot_plan(slot *s, uint8_t flags, uint8_t n0)
{
	bf_variant	v = (bf_variant) (BF_VARIANT_MIN + (flags & 7) % 5);
	double		p = fallback_rate[(flags >> 3) & 7];
	uint32_t	k = v == BF_CUCKOO ? 4 + (flags >> 3) % 29 : 1 + (flags >> 3) % 8;
	bf_params	params;
	bf_status	st;

	/*
	 * Planning with the exact blocked model takes milliseconds (scalable
	 * remembers recent plans): few scalable shapes, the others by bits.
	 */
	if (v == BF_SCALABLE)
		st = bf_plan(v, (1 + (uint64_t) (n0 % 16)) * (flags & 0x80 ? 100000 : 1), p, n0,
					 &params);
	else
		st = bf_plan_bits(v, flags & 0x80 ? (UINT64_C(1) << 23) + ((uint64_t) n0 << 13) :
						  1 + (uint64_t) n0 * 8, k, n0, &params);
	FZ_ASSERT(st == BF_OK, "fallback plan: %s", bf_status_message(st));
	memset(s, 0, sizeof(*s));
	s->b = alloc_patterned(params.total_bytes, 0xEE);
	s->len = params.total_bytes;
	bf_init(&params, s->b);
	st = bf_open(s->b, s->len, &s->f);
	FZ_ASSERT(st == BF_OK, "a fresh filter is refused: %s", bf_status_message(st));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_reader	r = {data, size};
	static slot sl[2];
	uint8_t		flags = fz_u8(&r),
				n0 = fz_u8(&r);
	const uint8_t *a_bytes,
			   *b_bytes;
	size_t		a_len,
				b_len;
	int			ops;

	a_bytes = fz_bytes(&r, fz_u32(&r), &a_len);
	b_bytes = fz_bytes(&r, fz_u32(&r), &b_len);
	if (!slot_open(&sl[0], a_bytes, a_len))
		slot_plan(&sl[0], flags, n0);
	if ((flags & 0x40) || !slot_open(&sl[1], b_bytes, b_len))
	{
		memset(&sl[1], 0, sizeof(sl[1]));
		copy_slot(&sl[1], &sl[0]);
	}

	/* operations on megabyte filters cost 16: a few cover their paths */
	for (ops = 0; ops < MAX_OPS && fz_left(&r) > 0;
		 ops += sl[0].len > SNAPSHOT_MAX || sl[1].len > SNAPSHOT_MAX ? 16 : 1)
	{
		uint8_t		c = fz_u8(&r);
		slot	   *t = &sl[(c >> 4) & 1],
				   *o = &sl[!((c >> 4) & 1)];
		unsigned	m = c >> 5;
		int			n,
					i;

		switch ((c & 15) % OP_COUNT)
		{
			case OP_ADD:
				add_elem(t, pick(&r, t, m));
				break;
			case OP_ADD_MANY:
				{
					int64_t		base = (int64_t) fz_uint(&r, 2) << 8;

					n = 1 + fz_u8(&r);
					for (i = 0; i < n; i++)
						add_elem(t, bf_hash_int64(base + i, t->f.seed));
				}
				break;
			case OP_REMOVE:
				remove_elem(t, pick(&r, t, m));
				break;
			case OP_REMOVE_KNOWN:
				remove_elem(t, pick(&r, t, 3));
				break;
			case OP_CONTAINS:
				{
					bf_hash		h = pick(&r, t, m);
					int			k = known_find(t, h);

					if (!bf_contains(&t->f, h))
						FZ_ASSERT(k < 0, "false negative of a remembered element");
				}
				break;
			case OP_UNION:
				do_union(t, o, m & 1);
				break;
			case OP_INTERSECT:
				do_intersect(t, o, m & 1);
				break;
			case OP_FILL:
				fz_check_fill(&t->f, t->len);
				break;
			case OP_GROW:
				(void) grow(t);
				break;
			case OP_COPY:
				copy_slot(o, t);
				break;
			case OP_CHECK:
				check_slot(t);
				break;
			case OP_RESET:
				reset_slot(t);
				break;
			case OP_ADD_DUP:
				{
					bf_hash		h = pick(&r, t, m);

					n = 1 + fz_u8(&r) % 32;
					for (i = 0; i < n; i++)
						add_elem(t, h);
				}
				break;
		}
	}
	for (ops = 0; ops < 2; ops++)
	{
		check_slot(&sl[ops]);
		fz_check_fill(&sl[ops].f, sl[ops].len);
		free(sl[ops].b);
		sl[ops].b = NULL;
	}
	return 0;
}
