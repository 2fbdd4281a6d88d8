/*
 * scalable.c
 *		The scalable layout: a chain of blocked stages that grows as items
 *		arrive, keeping the whole chain within the requested rate.
 *
 * Almeida, Baquero, Preguica and Hutchison, "Scalable Bloom Filters" (2007).
 * A filter created for n0 items at rate p starts with one stage; when the
 * last stage holds its capacity, the next add returns BF_E_FULL and the
 * caller grows the filter by one stage (bf_grow).  The stage of level j
 * holds n0 * 2^j items at rate p0 * r^j, with p0 = p (1 - r), so however
 * many stages a chain grows, the rate of the whole chain stays within
 * sum_j p0 r^j < p0 / (1 - r) = p.
 *
 * r = 0.85: a smaller r makes the later stages tighter (each costs about
 * 1.44 log2(1 / r) bits per item more than the one before), a larger r
 * makes the first ones tighter (p0 = p (1 - r)).  Which is cheaper depends
 * on how many stages the chain will reach, which nobody knows when it is
 * created.  With the exact model at 1 % and 0.1 %, of the ratios 0.8 to
 * 0.9 the paper recommends for a growth of 2, 0.85 is the cheapest for
 * chains of 7 to 8 stages and is never more than 0.9 bits per item (5 %)
 * above the cheaper of 0.8 and 0.9 for any chain of 1 to 12 stages; 0.8
 * is up to 1.6 bits above 0.9 for long chains and 0.9 up to 2.1 bits above
 * 0.8 for short ones (STORAGE.md section 12 has the table).  The model
 * and the plans of stages are in scalable_model.c.
 *
 * Each stage is a blocked filter (blocked.c: 512-bit blocks, block from
 * the high half of the hash, positions from an LCG seeded with the low
 * half) sized with the exact blocked model (blocked_model.c).  Stages of
 * level j > 0 see the hash remixed by a bijective 64-bit finalizer keyed
 * with j, so that the stages answer independently of each other: without
 * it every stage would test the same in-block pattern, and a stranger
 * whose pattern is easy to hit would be so in every stage.
 *
 * Unions keep the stages apart: a stage of src is ORed into a stage of dst
 * of the same level that already has all its bits, or whose capacity holds
 * the items of both; otherwise it is appended to the chain.  The chain is
 * then a list of planned stages whose levels may repeat, and its rate
 * bound is the sum of the rates of the stages it has.
 * Only single-stage chains intersect (see scalable_merge).
 *
 * The payload is S stage records, each a 64-byte little-endian stage
 * header followed by its blocks, so that every block keeps the 64-byte
 * alignment (relative to the filter) that it has in a blocked filter.
 */
#include <math.h>

#include "bf_internal.h"

/* Most stages in a chain; levels run from 0 to MAX_LEVEL */
#define MAX_STAGES		BF_SCALABLE_MAX_STAGES
#define MAX_LEVEL		BF_SCALABLE_MAX_LEVEL

/* The stage header: offsets of its little-endian fields */
#define STAGE_HEADER	64
#define ST_BITS			0		/* u64: bits of the stage's blocks */
#define ST_CAPACITY		8		/* u64: n0 * 2^level */
#define ST_HELD			16		/* u64: items inserted into the stage */
#define ST_HASHES		24		/* u32: k of the stage */
#define ST_LEVEL		28		/* u32: j, 0..63 */
#define ST_RESERVED		32		/* 32 bytes, zero */

/* Keys of the per-level remix (the golden ratio and a Murmur3 constant) */
#define LEVEL_KEY_LO	UINT64_C(0x9E3779B97F4A7C15)
#define LEVEL_KEY_HI	UINT64_C(0xC2B2AE3D27D4EB4F)

/* A decoded stage header and where its blocks are */
typedef struct stage
{
	unsigned char *head;
	unsigned char *blocks;
	uint64_t	bits;
	uint64_t	nblocks;
	uint64_t	capacity;
	uint64_t	held;
	uint32_t	hashes;
	uint32_t	level;
} stage;

static void
stage_read(unsigned char *head, stage *s)
{
	s->head = head;
	s->blocks = head + STAGE_HEADER;
	s->bits = bf_get_le64(head + ST_BITS);
	s->nblocks = s->bits / BF_BLOCK_BITS;
	s->capacity = bf_get_le64(head + ST_CAPACITY);
	s->held = bf_get_le64(head + ST_HELD);
	s->hashes = bf_get_le32(head + ST_HASHES);
	s->level = bf_get_le32(head + ST_LEVEL);
}

/* The stage record after s */
static inline unsigned char *
stage_end(const stage *s)
{
	return s->blocks + s->bits / 8;
}

/*
 * Reads stage i of f into s, s holding stage i - 1 when i > 0; false past
 * the last.  for (i = 0; stage_visit(f, i, &s); i++) walks every stage.
 */
static inline bool
stage_visit(const bf_filter *f, uint32_t i, stage *s)
{
	if (i >= f->variant_word)
		return false;
	stage_read(i == 0 ? f->payload : stage_end(s), s);
	return true;
}

static void
stage_write(unsigned char *head, uint64_t bits, uint64_t capacity,
			uint64_t held, uint32_t hashes, uint32_t level)
{
	memset(head, 0, STAGE_HEADER);
	bf_put_le64(head + ST_BITS, bits);
	bf_put_le64(head + ST_CAPACITY, capacity);
	bf_put_le64(head + ST_HELD, held);
	bf_put_le32(head + ST_HASHES, hashes);
	bf_put_le32(head + ST_LEVEL, level);
}

/* The hash a stage of 'level' sees; level 0 sees the element's own hash */
static inline bf_hash
level_hash(bf_hash h, uint32_t level)
{
	bf_hash		r;

	if (level == 0)
		return h;
	r.lo = bf_fmix64(h.lo + level * LEVEL_KEY_LO);
	r.hi = bf_fmix64(h.hi + level * LEVEL_KEY_HI);
	return r;
}

/*
 * As blocked.c (the inline bf_blocked_set and bf_blocked_test): the block
 * from the high half of the level's hash, the k positions from the low
 */
static void
stage_set(const stage *s, bf_hash h)
{
	bf_hash		x = level_hash(h, s->level);

	bf_blocked_set(s->blocks + bf_mulhi64(x.hi, s->nblocks) * BF_BLOCK_BYTES,
				   x.lo, s->hashes);
}

static bool
stage_test(const stage *s, bf_hash h)
{
	bf_hash		x = level_hash(h, s->level);

	return bf_blocked_test(s->blocks +
						   bf_mulhi64(x.hi, s->nblocks) * BF_BLOCK_BYTES,
						   x.lo, s->hashes);
}

/* One stage of level 0 for n0 = expected_items (bf_plan sets it) */
static bf_status
scalable_plan(double items, double fpr, bf_params *p)
{
	uint64_t	capacity;
	bf_status	st;

	(void) items;				/* p->expected_items is the exact count */
	st = bf_scalable_plan_stage(p->expected_items, fpr, 0, &capacity, &p->bits,
					&p->hashes);
	if (st != BF_OK)
		return st;
	p->variant_word = 1;
	p->payload_bytes = STAGE_HEADER + p->bits / 8;
	return BF_OK;
}

/* A bit count has no rate to tighten: the chain is planned from (n, p) */
static bf_status
scalable_plan_bits(bf_params *p)
{
	(void) p;
	return BF_E_UNSUPPORTED;
}

static void
scalable_init(const bf_params *p, unsigned char *payload)
{
	stage_write(payload, p->bits, p->expected_items, 0, p->hashes, 0);
}

/*
 * What the header alone can tell: 1 to 64 stages, k of the first stage in
 * range, whole blocks (at least one per stage), the payload they imply, and
 * the (n0, p) the chain is planned from.
 */
static bf_status
scalable_check_header(const bf_params *h)
{
	if (h->variant_word < 1 || h->variant_word > MAX_STAGES)
		return BF_E_FLAGS;
	if (h->hashes < 1 || h->hashes > BF_MAX_HASHES)
		return BF_E_HASHES;
	if (h->bits % BF_BLOCK_BITS != 0 ||
		h->bits < (uint64_t) h->variant_word * BF_BLOCK_BITS ||
		h->bits > BF_MAX_PAYLOAD_BITS)
		return BF_E_BITS;
	if (h->payload_bytes != (uint64_t) h->variant_word * STAGE_HEADER + h->bits / 8)
		return BF_E_PAYLOAD;
	if (h->expected_items < 1 || !(h->target_fpr > 0.0 && h->target_fpr < 1.0))
		return BF_E_TARGET;
	return BF_OK;
}

/*
 * The stage table, O(S): every record lies within the payload and the
 * records add up to it and to the header's bit count; the first stage is
 * of level 0 with the header's k; every stage is exactly the stage its
 * level plans from (n0, p) and holds at most its capacity; reserved bytes
 * are zero.
 */
static bf_status
scalable_validate(const bf_filter *f)
{
	unsigned char *p = f->payload,
			   *end = f->payload + f->payload_bytes;
	uint64_t	bits = 0;
	uint32_t	i;

	for (i = 0; i < f->variant_word; i++)
	{
		stage		s;
		uint64_t	capacity,
					plan_bits;
		uint32_t	plan_hashes;
		int			b;

		if ((uint64_t) (end - p) < STAGE_HEADER)
			return BF_E_LAYOUT;
		stage_read(p, &s);
		if (s.bits < BF_BLOCK_BITS || s.bits % BF_BLOCK_BITS != 0 ||
			s.bits / 8 > (uint64_t) (end - s.blocks))
			return BF_E_LAYOUT;
		for (b = ST_RESERVED; b < STAGE_HEADER; b++)
			if (p[b] != 0)
				return BF_E_LAYOUT;
		if (i == 0 && (s.level != 0 || s.hashes != f->hashes))
			return BF_E_LAYOUT;
		/* the cheap comparisons first: hostile tables fail before planning */
		if (s.level > MAX_LEVEL || f->expected_items > (UINT64_MAX >> s.level) ||
			s.capacity != f->expected_items << s.level ||
			s.held > s.capacity || s.hashes < 1 || s.hashes > BF_MAX_HASHES)
			return BF_E_LAYOUT;
		if (bf_scalable_plan_stage(f->expected_items, f->target_fpr, s.level, &capacity,
					   &plan_bits, &plan_hashes) != BF_OK ||
			plan_bits != s.bits || plan_hashes != s.hashes)
			return BF_E_LAYOUT;
		bits += s.bits;
		p = stage_end(&s);
	}
	if (p != end || bits != f->bits)
		return BF_E_LAYOUT;
	return BF_OK;
}

/* Present in any stage */
static bool
scalable_contains(const bf_filter *f, bf_hash h)
{
	stage		s;
	uint32_t	i;

	for (i = 0; stage_visit(f, i, &s); i++)
		if (stage_test(&s, h))
			return true;
	return false;
}

/*
 * An element already present (or a false positive) is not inserted again:
 * it would spend capacity without changing any answer, and repeated
 * elements must not make the chain grow.  New elements go into the last
 * stage; when that is full the caller grows the chain first.
 */
typedef enum
{
	ADD_PRESENT,				/* some stage has h: nothing to do */
	ADD_ROOM,					/* the last stage takes it */
	ADD_FULL					/* a new stage is needed first */
} add_case;

/* What adding h means; 's' is left at the last stage */
static add_case
add_case_of(const bf_filter *f, bf_hash h, stage *s)
{
	uint32_t	i = 0;

	/* a valid filter has at least one stage */
	stage_read(f->payload, s);
	for (;;)
	{
		if (stage_test(s, h))
			return ADD_PRESENT;
		if (++i == f->variant_word)
			break;
		stage_read(stage_end(s), s);
	}
	return s->held >= s->capacity ? ADD_FULL : ADD_ROOM;
}

static bool
scalable_add_grows(const bf_filter *f, bf_hash h)
{
	stage		s;

	return add_case_of(f, h, &s) == ADD_FULL;
}

static bf_status
scalable_add(bf_filter *f, bf_hash h)
{
	stage		s;

	switch (add_case_of(f, h, &s))
	{
		case ADD_PRESENT:
			return BF_OK;
		case ADD_FULL:
			return BF_E_FULL;
		case ADD_ROOM:
			break;
	}
	stage_set(&s, h);
	bf_put_le64(s.head + ST_HELD, s.held + 1);
	return BF_OK;
}

/* The next level: one past the highest present (0 when none can follow) */
static uint32_t
next_level(const bf_filter *f)
{
	stage		s;
	uint32_t	i,
				top = 0;

	for (i = 0; stage_visit(f, i, &s); i++)
		if (s.level > top)
			top = s.level;
	return top < MAX_LEVEL ? top + 1 : 0;
}

/*
 * Bytes of the filter with one more stage, even past the 1 GB limit (the
 * caller refuses those with a clear error); UINT64_MAX when the stage is
 * beyond any size, 0 when the chain has its 64 stages or its top level.
 */
static uint64_t
scalable_grow_bytes(const bf_filter *f)
{
	uint32_t	level = next_level(f);
	uint64_t	capacity,
				bits;
	uint32_t	hashes;
	bf_status	st;

	if (f->variant_word >= MAX_STAGES || level == 0)
		return 0;
	st = bf_scalable_plan_stage(f->expected_items, f->target_fpr, level, &capacity,
					&bits, &hashes);
	if (st != BF_OK)
		return UINT64_MAX;
	return BF_HEADER_SIZE + f->payload_bytes + STAGE_HEADER + bits / 8;
}

/* The filter and, after its last stage, an empty one of the next level */
static void
scalable_grow(const bf_filter *f, unsigned char *dst)
{
	uint32_t	level = next_level(f);
	uint64_t	capacity = 0,
				bits = 0,
				old = BF_HEADER_SIZE + f->payload_bytes;
	uint32_t	hashes = 0;

	(void) bf_scalable_plan_stage(f->expected_items, f->target_fpr, level, &capacity,
					  &bits, &hashes);	/* grow_bytes saw it succeed */
	memcpy(dst, f->base, old);
	stage_write(dst + old, bits, capacity, 0, hashes, level);
	memset(dst + old + STAGE_HEADER, 0, bits / 8);
	bf_put_le32(dst + BF_OFF_VARIANT_WORD, f->variant_word + 1);
	bf_put_le64(dst + BF_OFF_BITS, f->bits + bits);
	bf_put_le64(dst + BF_OFF_PAYLOAD, f->payload_bytes + STAGE_HEADER + bits / 8);
}

/*
 * Union and intersection
 *
 * Only chains planned from the same (n0, p) combine: their stages of a
 * level are then the same shape.  A union takes src's stages in order and
 * puts each into the first stage of the result of its level that
 *   - already has every bit of it set (it adds nothing: the stage keeps the
 *     larger of the two held counts), or else
 *   - has room for it: the items both hold fit that stage's capacity;
 * failing both, the stage is appended to the chain.  So two chains grown
 * alike from sets that fit together merge stage by stage in place, f | f
 * is f, and anything else needs the room of the appended stages.
 */
typedef struct union_plan
{
	uint32_t	stages;			/* stages of the result (may pass 64) */
	uint32_t	appended;		/* of src's stages, how many are appended */
	uint64_t	bits;			/* of the result */
	uint64_t	payload_bytes;	/* of the result */
	int			target[MAX_STAGES]; /* result stage each src stage goes to */
	bool		copied[MAX_STAGES]; /* appended: the stage is its own copy */
	uint64_t	held[2 * MAX_STAGES];	/* items held by each result stage */
} union_plan;

static bool
same_plan(const bf_filter *a, const bf_filter *b)
{
	return a->expected_items == b->expected_items &&
		memcmp(&a->target_fpr, &b->target_fpr, sizeof(double)) == 0 &&
		a->seed == b->seed && a->hashes == b->hashes;
}

/* The stage records of f, in order (f has at most MAX_STAGES) */
static void
stage_list(const bf_filter *f, stage *list)
{
	uint32_t	i;

	for (i = 0; i < f->variant_word; i++)
		stage_read(i == 0 ? f->payload : stage_end(&list[i - 1]), &list[i]);
}

/* Every bit of s is set in t (two stages of one shape) */
static bool
stage_covers(const stage *t, const stage *s)
{
	uint64_t	i;

	for (i = 0; i < s->bits / 8; i += 8)
		if (bf_load64(s->blocks + i) & ~bf_load64(t->blocks + i))
			return false;
	return true;
}

/*
 * Where each stage of src goes.  The bits compared are those of the stages
 * as they are before the union (a stage only gains bits by it), so the
 * plan is the same whether it is made for bf_union_bytes, the merge or
 * bf_union_into.
 */
static void
plan_union(const bf_filter *dst, const bf_filter *src, union_plan *u)
{
	stage		result[2 * MAX_STAGES];
	stage		s[MAX_STAGES];
	uint32_t	i,
				n = dst->variant_word;

	stage_list(dst, result);
	stage_list(src, s);
	for (i = 0; i < n; i++)
		u->held[i] = result[i].held;
	u->appended = 0;
	u->bits = dst->bits;
	u->payload_bytes = dst->payload_bytes;
	for (i = 0; i < src->variant_word; i++)
	{
		uint32_t	t;

		for (t = 0; t < n; t++)
			if (result[t].level == s[i].level &&
				stage_covers(&result[t], &s[i]))
				break;
		u->copied[i] = false;
		if (t < n)
		{
			if (s[i].held > u->held[t])
				u->held[t] = s[i].held;
		}
		else
		{
			for (t = 0; t < n; t++)
				if (result[t].level == s[i].level &&
					s[i].held <= result[t].capacity &&
					u->held[t] <= result[t].capacity - s[i].held)
					break;
			if (t < n)
				u->held[t] += s[i].held;
			else
			{
				result[n] = s[i];
				u->held[n++] = s[i].held;
				u->copied[i] = true;
				u->appended++;
				u->bits += s[i].bits;
				u->payload_bytes += STAGE_HEADER + s[i].bits / 8;
			}
		}
		u->target[i] = (int) t;
	}
	u->stages = n;
}

/*
 * ORs the stages of src into the 'n' result stages whose records start at
 * result[] as the plan says (appended ones already copied there), then
 * writes the held counts of the plan.
 */
static void
apply_union(unsigned char **result, uint32_t n, const bf_filter *src,
			const union_plan *u, bf_ticker *tk)
{
	stage		s[MAX_STAGES];
	uint32_t	i;

	stage_list(src, s);
	for (i = 0; i < src->variant_word; i++)
	{
		stage		t;

		if (u->copied[i])
			continue;
		stage_read(result[u->target[i]], &t);
		if (t.head != s[i].head)	/* not f | f in place */
			bf_merge_words(t.blocks, s[i].blocks, t.bits / 8, false,
						   bf_or_word, bf_and_word, tk);
	}
	for (i = 0; i < n; i++)
		bf_put_le64(result[i] + ST_HELD, u->held[i]);
}

/*
 * In place: a union whose stages all merge (bf_union_bytes equals dst's
 * size), or the intersection of two single-stage chains.
 *
 * Chains of several stages do not intersect: an element both sets hold may
 * sit in stage 1 of one chain and stage 0 of the other (stage boundaries
 * follow the order of arrival), so ANDing stage with stage would lose it,
 * and stages of different levels have different shapes and remixes.  A
 * single stage holds every element of its chain, so two of them AND like
 * blocked filters.  Anything else: BF_E_UNSUPPORTED, changing nothing.
 */
static bf_status
scalable_merge(bf_filter *dst, const bf_filter *src, bool intersect,
			   bf_yield_fn yield, void *arg)
{
	unsigned char *result[MAX_STAGES];
	stage		d[MAX_STAGES];
	bf_ticker	tk = {yield, arg, 0};
	uint32_t	i;

	if (!same_plan(dst, src))
		return BF_E_INCOMPATIBLE;
	stage_list(dst, d);
	if (intersect)
	{
		stage		s;

		/* single stages of one plan: the shape of a blocked filter */
		if (dst->variant_word != 1 || src->variant_word != 1)
			return BF_E_UNSUPPORTED;
		stage_read(src->payload, &s);
		bf_merge_words(d[0].blocks, s.blocks, d[0].bits / 8, true,
					   bf_or_word, bf_and_word, &tk);
		if (s.held < d[0].held)
			bf_put_le64(d[0].head + ST_HELD, s.held);
	}
	else
	{
		union_plan	u;

		plan_union(dst, src, &u);
		if (u.appended != 0)
			return BF_E_UNSUPPORTED;
		for (i = 0; i < dst->variant_word; i++)
			result[i] = d[i].head;
		apply_union(result, dst->variant_word, src, &u, &tk);
	}
	return BF_OK;
}

/* dst's size when every stage of src merges in place, else larger */
static uint64_t
scalable_union_bytes(const bf_filter *dst, const bf_filter *src,
					 bf_yield_fn yield, void *arg)
{
	union_plan	u;

	(void) yield;				/* O(stages): nothing long to interrupt */
	(void) arg;
	if (!same_plan(dst, src))
		return BF_HEADER_SIZE + dst->payload_bytes;
	plan_union(dst, src, &u);
	return u.stages > MAX_STAGES ? 0 : BF_HEADER_SIZE + u.payload_bytes;
}

/*
 * The union in new bytes: dst's header and stages, then src's appended
 * stages, and the rest of src ORed in.  BF_E_TOO_LARGE when the result
 * would need more than 64 stages.
 */
static bf_status
scalable_union_into(const bf_filter *dst, const bf_filter *src,
					unsigned char *out, bf_yield_fn yield, void *arg)
{
	union_plan	u;
	stage		s[MAX_STAGES];
	unsigned char *result[MAX_STAGES];
	unsigned char *p;
	bf_ticker	tk = {yield, arg, 0};
	uint32_t	i,
				n;

	if (!same_plan(dst, src))
		return BF_E_INCOMPATIBLE;
	plan_union(dst, src, &u);
	if (u.stages > MAX_STAGES)
		return BF_E_TOO_LARGE;
	bf_copy_ticking(out, dst->base, BF_HEADER_SIZE + dst->payload_bytes, &tk);
	p = out + BF_HEADER_SIZE;
	for (n = 0; n < dst->variant_word; n++)
	{
		stage		t;

		result[n] = p;
		stage_read(p, &t);
		p = stage_end(&t);
	}
	stage_list(src, s);
	for (i = 0; i < src->variant_word; i++)
		if (u.copied[i])
		{
			result[n++] = p;
			bf_copy_ticking(p, s[i].head, STAGE_HEADER + s[i].bits / 8, &tk);
			p += STAGE_HEADER + s[i].bits / 8;
		}
	apply_union(result, n, src, &u, &tk);
	bf_put_le32(out + BF_OFF_VARIANT_WORD, u.stages);
	bf_put_le64(out + BF_OFF_BITS, u.bits);
	bf_put_le64(out + BF_OFF_PAYLOAD, u.payload_bytes);
	bf_put_le64(out + BF_OFF_ITEMS, dst->items > UINT64_MAX - src->items ?
				UINT64_MAX : dst->items + src->items);
	return BF_OK;
}

/*
 * Fill: the set bits of all stages, and the distinct items as the sum of
 * the stages' blocked estimates (blocked.c), n_i = -B_i ln(1 - X_i / m_i) /
 * (1 - (1 - 1/512)^k_i); the rate now is that of a stranger
 * passing any stage, 1 - prod(1 - rate of stage i), each stage's rate as
 * in blocked.c, the mean over its blocks of (block fill)^k.  The product
 * is summed as logarithms so that rates far below 1e-16 do not vanish.
 */
static void
scalable_fill(const bf_filter *f, bf_fill_stats *stats, bf_yield_fn yield,
			  void *arg)
{
	uint64_t	set = 0;
	double		log_pass_none = 0.0,
				items = 0.0;
	stage		s;
	uint32_t	i;

	for (i = 0; stage_visit(f, i, &s); i++)
	{
		uint64_t	stage_set;

		log_pass_none += log1p(-bf_blocks_fill(s.blocks, s.nblocks, s.hashes,
											   &stage_set, yield, arg));
		set += stage_set;
		/* the stage's blocked estimate; a full stage explains any count */
		if (stage_set >= s.bits)
			items = INFINITY;
		else if (stage_set > 0)
			items += (double) s.nblocks * -log1p(-(double) stage_set / (double) s.bits) /
				-expm1(s.hashes * log1p(-1.0 / BF_BLOCK_BITS));
	}
	stats->bits_set = set;
	stats->estimated_items = items;
	stats->fpr = log_pass_none < 0.0 ? -expm1(log_pass_none) : 0.0;	/* not -0.0 */
	stats->stages = f->variant_word;
}

/*
 * Two chains combine when they were planned alike (first stage n0, rate
 * p, seed): their stages then come from the same plans, however many each
 * has grown.
 */
static bool
scalable_compatible(const bf_filter *a, const bf_filter *b)
{
	return a->expected_items == b->expected_items &&
		a->target_fpr == b->target_fpr;
}

/* The items the stages present hold within the rate bound */
static uint64_t
scalable_filter_capacity(const bf_filter *f)
{
	stage		s;
	uint64_t	total = 0;
	uint32_t	i;

	for (i = 0; stage_visit(f, i, &s); i++)
		total += s.capacity;
	return total;
}

const bf_variant_ops bf_scalable_ops = {
	.name = "scalable",
	/* sizing: the first stage, and what the stages present hold */
	.size = bf_scalable_size, .capacity = bf_scalable_capacity,
	.fpr = bf_blocked_fpr, .round_bits = bf_blocked_round_bits,
	.plan = scalable_plan, .plan_bits = scalable_plan_bits,
	.filter_capacity = scalable_filter_capacity,
	/* the header and the stages */
	.check_header = scalable_check_header, .init = scalable_init,
	.validate = scalable_validate, .fill = scalable_fill,
	/* elements */
	.add = scalable_add, .contains = scalable_contains,
	.add_grows = scalable_add_grows,
	/* growth and sets */
	.grow_bytes = scalable_grow_bytes, .grow = scalable_grow,
	.compatible = scalable_compatible, .merge = scalable_merge,
	.union_bytes = scalable_union_bytes, .union_into = scalable_union_into
};
