/*
 * test_scalable.c
 *		Core unit tests of the scalable layout: a chain of blocked stages.
 *
 * The stage table is read back here with the test's own little-endian
 * decoding and checked against the sizing rule (stage j holds n0 * 2^j
 * items at p (1 - r) r^j, r = 0.85, sized by the exact blocked model).
 * Growth from n0 = 1000 to 100 n0 must add the stages the rule says, lose
 * nothing, and stay within the requested rate at 1 % and 0.1 %, measured
 * against the model of each stage; repeated elements must not grow the
 * chain; unions keep every element and f | f is f; intersection is offered
 * only where it cannot lose an element; hostile stage tables are refused or
 * harmless under ASan.
 */
#include <math.h>
#include <stdint.h>

#include "bf_internal.h"
#include "check.h"

#define R				0.85
#define STAGE_HEADER	64

/* Offsets of the stage header, as documented */
#define ST_BITS			0
#define ST_CAPACITY		8
#define ST_HELD			16
#define ST_HASHES		24
#define ST_LEVEL		28

/* A filter in a malloc'd buffer of exactly its size, grown as needed */
typedef struct chain
{
	unsigned char *buf;
	size_t		len;
	bf_filter	f;
	int			grow_failed;
} chain;

/*
 * The rate budget of a stage at 'level': p0 = p (1 - R) at level 0, then
 * each level's R times the one before (multiplied out level by level, not
 * pow(), so that the test asks for the very doubles of STORAGE.md's rule)
 */
static double
level_rate(double p, unsigned level)
{
	return level == 0 ? p * (1.0 - R) : level_rate(p, level - 1) * R;
}

static void
chain_new(chain *c, uint64_t n0, double p, uint64_t seed)
{
	bf_params	params;
	bf_status	st = bf_plan(BF_SCALABLE, n0, p, seed, &params);

	if (st != BF_OK)
	{
		printf("cannot plan a scalable filter: %s\n", bf_status_message(st));
		exit(2);
	}
	c->len = (size_t) params.total_bytes;
	c->buf = check_malloc(c->len);
	c->grow_failed = 0;
	bf_init(&params, c->buf);
	st = bf_open(c->buf, c->len, &c->f);
	if (st != BF_OK)
	{
		printf("cannot open a new scalable filter: %s\n", bf_status_message(st));
		exit(2);
	}
}

/* Replaces c's bytes with a copy of 'len' bytes at 'b' (which it frees) */
static bf_status
chain_adopt(chain *c, unsigned char *b, size_t len)
{
	free(c->buf);
	c->buf = b;
	c->len = len;
	return bf_open(c->buf, c->len, &c->f);
}

/* bf_add, growing the chain as the SQL layer does */
static bf_status
chain_add(chain *c, bf_hash h)
{
	bf_status	st;

	while ((st = bf_add(&c->f, h)) == BF_E_FULL)
	{
		uint64_t	bytes = bf_grow_bytes(&c->f);
		unsigned char *grown;

		if (bytes == 0 || bytes > BF_MAX_BYTES)
		{
			c->grow_failed = 1;
			return st;
		}
		grown = check_malloc((size_t) bytes);
		memset(grown, 0xA5, (size_t) bytes);	/* grow must write every byte */
		bf_grow(&c->f, grown);
		st = chain_adopt(c, grown, (size_t) bytes);
		if (st != BF_OK)
		{
			c->grow_failed = 1;
			return st;
		}
	}
	return st;
}

static void
chain_fill(chain *c, uint64_t from, uint64_t to)
{
	uint64_t	i;

	for (i = from; i < to; i++)
		chain_add(c, check_key(i, 0, c->f.seed));
}

/* A new chain of n0 at 1 % holding keys [from, to) */
static void
chain_of(chain *c, uint64_t n0, uint64_t seed, uint64_t from, uint64_t to)
{
	chain_new(c, n0, 0.01, seed);
	chain_fill(c, from, to);
}

/* dst = dst | src, in place or into new bytes as the SQL layer does */
static bf_status
chain_union(chain *dst, const bf_filter *src)
{
	uint64_t	bytes = bf_scalable_ops.union_bytes(&dst->f, src, NULL, NULL);
	unsigned char *out;
	bf_status	st;

	if (bytes == BF_HEADER_SIZE + dst->f.payload_bytes)
	{
		st = bf_scalable_ops.merge(&dst->f, src, false, NULL, NULL);
		if (st == BF_OK)
			bf_set_items(&dst->f, dst->f.items + src->items);
		return st;
	}
	out = check_malloc((size_t) bytes);
	memset(out, 0x5A, (size_t) bytes);
	st = bf_scalable_ops.union_into(&dst->f, src, out, NULL, NULL);
	if (st != BF_OK)
	{
		free(out);
		return st;
	}
	return chain_adopt(dst, out, (size_t) bytes);
}

/* The stage records of a serialised filter, read with the test's decoding */
typedef struct rec
{
	unsigned long long bits,
				capacity,
				held;
	unsigned long hashes,
				level;
	const unsigned char *blocks;
} rec;

static unsigned
read_stages(const unsigned char *buf, rec *out, unsigned max)
{
	unsigned	s = (unsigned) check_le32(buf + 12),
				i;
	const unsigned char *p = buf + BF_HEADER_SIZE;

	for (i = 0; i < s && i < max; i++)
	{
		out[i].bits = check_le64(p + ST_BITS);
		out[i].capacity = check_le64(p + ST_CAPACITY);
		out[i].held = check_le64(p + ST_HELD);
		out[i].hashes = check_le32(p + ST_HASHES);
		out[i].level = check_le32(p + ST_LEVEL);
		out[i].blocks = p + STAGE_HEADER;
		p += STAGE_HEADER + out[i].bits / 8;
	}
	return s;
}

static uint64_t
popcount_bytes(const unsigned char *p, uint64_t n)
{
	uint64_t	c = 0,
				i;

	for (i = 0; i < n; i++)
	{
		unsigned char b = p[i];

		for (; b; b &= (unsigned char) (b - 1))
			c++;
	}
	return c;
}

/* The model's rate of the chain as it is: 1 - prod(1 - stage model rate) */
static double
chain_model(const unsigned char *buf)
{
	rec			r[64];
	unsigned	s = read_stages(buf, r, 64),
				i;
	double		none = 1.0;

	for (i = 0; i < s; i++)
		none *= 1.0 - bf_blocked_fpr((double) r[i].bits, (double) r[i].held,
									 (double) r[i].hashes);
	return 1.0 - none;
}

static void
test_plan(void)
{
	static const double rates[] = {0.01, 0.001, 0.5};
	size_t		j;

	check_group("plan: one stage of level 0 sized by the blocked model at p (1 - r)");
	for (j = 0; j < sizeof(rates) / sizeof(rates[0]); j++)
	{
		double		p = rates[j];
		bf_params	params;
		uint64_t	bits,
					cap;
		uint32_t	k;
		chain		c;
		rec			r[1];
		bf_status	st;

		bf_blocked_size(1000, level_rate(p, 0), &bits, &k);
		chain_new(&c, 1000, p, 7);
		CHECK(c.f.variant_word == 1 && c.f.bits == bits && c.f.hashes == k,
			  "p=%g: %u stages, %llu bits, k %u; want 1, %llu, %u", p,
			  c.f.variant_word, (unsigned long long) c.f.bits, c.f.hashes,
			  (unsigned long long) bits, k);
		CHECK(c.f.payload_bytes == STAGE_HEADER + bits / 8,
			  "p=%g: payload %llu", p, (unsigned long long) c.f.payload_bytes);
		CHECK(c.f.expected_items == 1000 && c.f.target_fpr == p,
			  "p=%g: header n0 %llu, p %g", p,
			  (unsigned long long) c.f.expected_items, c.f.target_fpr);
		read_stages(c.buf, r, 1);
		CHECK(r[0].bits == bits && r[0].capacity == 1000 && r[0].held == 0 &&
			  r[0].hashes == k && r[0].level == 0,
			  "p=%g: stage 0 is %llu bits, cap %llu, held %llu, k %lu, level %lu",
			  p, r[0].bits, r[0].capacity, r[0].held, r[0].hashes, r[0].level);
		CHECK(popcount_bytes(c.buf + BF_HEADER_SIZE + 32, 32) == 0,
			  "p=%g: reserved stage bytes set", p);
		CHECK(bf_optimal_bits(BF_SCALABLE, 1000, p, &bits, &k) == BF_OK &&
			  bits == c.f.bits && k == c.f.hashes,
			  "p=%g: bf_optimal_bits disagrees with the plan", p);
		st = bf_capacity(BF_SCALABLE, c.f.bits, p, &cap);
		CHECK(st == BF_OK && cap >= 1000 && cap < 1000 + 1000 * 512 / bits + 2,
			  "p=%g: capacity of the first stage's bits %llu (%s)", p,
			  (unsigned long long) cap, bf_status_message(st));
		st = bf_plan_bits(BF_SCALABLE, 4096, 5, 0, &params);
		CHECK(st == BF_E_UNSUPPORTED, "p=%g: plan_bits: %s", p,
			  bf_status_message(st));
		/* at any size: the variant is not built from bits, not too large */
		st = bf_plan_bits(BF_SCALABLE, UINT64_C(10000000000), 7, 0, &params);
		CHECK(st == BF_E_UNSUPPORTED &&
			  bf_size_bytes(BF_SCALABLE, UINT64_C(10000000000), 7) == 0,
			  "p=%g: plan_bits past 1 GB: %s", p, bf_status_message(st));
		CHECK(bf_grow_bytes(&c.f) == c.len + STAGE_HEADER +
			  (bf_blocked_size(2000, level_rate(p, 1), &bits, &k), bits / 8),
			  "p=%g: grow_bytes %llu", p, (unsigned long long) bf_grow_bytes(&c.f));
		free(c.buf);
	}
	check_group_end();
}

/* Set bits of the stages' blocks */
static uint64_t
stage_bits_set(const unsigned char *buf)
{
	rec			r[64];
	unsigned	s = read_stages(buf, r, 64),
				i;
	uint64_t	set = 0;

	for (i = 0; i < s && i < 64; i++)
		set += popcount_bytes(r[i].blocks, r[i].bits / 8);
	return set;
}

/*
 * The model against a mean over chains: one chain's rate varies with the
 * loads its few small stages happened to get (a first stage of 1000 items
 * has 29 blocks; its rate varies by some 15 % from chain to chain), so the
 * model is compared with the mean rate now of 'seeds' chains, and each
 * chain's measured rate with its own rate now.
 */
static void
model_mean(double p, uint64_t items, int seeds, double *mean_now,
		   double *mean_model)
{
	int			seed;

	*mean_now = 0.0;
	*mean_model = 0.0;
	for (seed = 0; seed < seeds; seed++)
	{
		chain		c;
		bf_fill_stats fill;

		chain_new(&c, 1000, p, 100 + (uint64_t) seed);
		chain_fill(&c, 0, items);
		bf_fill(&c.f, &fill, NULL, NULL);
		*mean_now += fill.fpr / seeds;
		*mean_model += chain_model(c.buf) / seeds;
		free(c.buf);
	}
}

/*
 * Growth from n0 = 1000 to 100 n0: 7 stages (capacity 127 n0), every stage
 * but the last full, stage j planned for 1000 * 2^j at p0 r^j, no false
 * negatives, the rate measured on strangers within sampling error of the
 * rate the chain's fill gives, that within a few per cent of the model
 * (over several chains), and everything within p.
 */
static void
test_growth(void)
{
	static const double rates[] = {0.01, 0.001};
	uint64_t	n = 100000,
				probes = check_quick() ? 400000 : 4000000;
	size_t		j;

	check_group("growth to 100 n0: stages, no false negatives, rate within p");
	for (j = 0; j < 2; j++)
	{
		double		p = rates[j],
					measured,
					sigma,
					mean_now,
					mean_model,
					bound = 0.0;
		chain		c;
		rec			r[64];
		unsigned	s,
					i;
		uint64_t	missing = 0,
					held = 0,
					bits = 0;
		bf_fill_stats fill;
		bf_status	st;

		chain_new(&c, 1000, p, 11);

		/* one full stage answers at p0 */
		chain_fill(&c, 0, 1000);
		CHECK(c.f.variant_word == 1, "p=%g: %u stages after n0 items", p, c.f.variant_word);
		measured = check_measure(&c.f, probes);
		bf_fill(&c.f, &fill, NULL, NULL);
		sigma = sqrt(fill.fpr / (double) probes);
		model_mean(p, 1000, 200, &mean_now, &mean_model);
		CHECK(fabs(measured - fill.fpr) <= 4 * sigma + 0.01 * fill.fpr,
			  "p=%g: one stage measures %.6f, its fill says %.6f", p,
			  measured, fill.fpr);
		CHECK(fabs(mean_now - mean_model) <= 0.05 * mean_model &&
			  mean_model <= level_rate(p, 0),
			  "p=%g: one stage: mean rate now %.6f, model %.6f, p0 %.6f", p,
			  mean_now, mean_model, level_rate(p, 0));
		printf("     p=%g, n0 items, 1 stage: measured %.6f, rate now %.6f; over 200 chains %.6f, model %.6f, p0 = %.6f\n",
			   p, measured, fill.fpr, mean_now, mean_model,
			   level_rate(p, 0));

		chain_fill(&c, 1000, n);
		CHECK(!c.grow_failed, "p=%g: growth failed", p);
		s = read_stages(c.buf, r, 64);
		CHECK(s == 7 && c.f.variant_word == 7, "p=%g: %u stages, want 7", p, s);
		for (i = 0; i < s && i < 64; i++)
		{
			uint64_t	pb;
			uint32_t	pk;

			bf_blocked_size(1000.0 * (1 << i), level_rate(p, i), &pb, &pk);
			CHECK(r[i].level == i && r[i].capacity == 1000ULL << i &&
				  r[i].bits == pb && r[i].hashes == pk,
				  "p=%g: stage %u: level %lu, capacity %llu, %llu bits, k %lu",
				  p, i, r[i].level, r[i].capacity, r[i].bits, r[i].hashes);
			CHECK(i + 1 == s ? r[i].held <= r[i].capacity :
				  r[i].held == r[i].capacity,
				  "p=%g: stage %u holds %llu of %llu", p, i, r[i].held,
				  r[i].capacity);
			held += r[i].held;
			bits += r[i].bits;
			bound += level_rate(p, i);
		}
		CHECK(c.f.bits == bits, "p=%g: header bits %llu, stages %llu", p,
			  (unsigned long long) c.f.bits, (unsigned long long) bits);
		CHECK(c.f.items == n && held <= n && held > n - n * p,
			  "p=%g: items %llu, held %llu", p,
			  (unsigned long long) c.f.items, (unsigned long long) held);
		for (i = 0; i < n; i++)
			missing += !bf_contains(&c.f, check_key(i, 0, c.f.seed));
		CHECK(missing == 0, "p=%g: %llu false negatives", p,
			  (unsigned long long) missing);

		measured = check_measure(&c.f, probes);
		bf_fill(&c.f, &fill, NULL, NULL);
		sigma = sqrt(fill.fpr / (double) probes);
		model_mean(p, n, 8, &mean_now, &mean_model);
		CHECK(fabs(measured - fill.fpr) <= 4 * sigma + 0.01 * fill.fpr,
			  "p=%g: measured %.6f, rate now %.6f (sigma %.6f)", p, measured,
			  fill.fpr, sigma);
		CHECK(fabs(mean_now - mean_model) <= 0.03 * mean_model,
			  "p=%g: over 8 chains rate now %.6f, model %.6f", p,
			  mean_now, mean_model);
		CHECK(measured <= p + 4 * sqrt(p / (double) probes) && mean_model <= p,
			  "p=%g: measured %.6f, model %.6f: above p", p, measured,
			  mean_model);
		CHECK(bound < p, "p=%g: sum of stage rates %.6f", p, bound);
		CHECK(fill.stages == 7, "p=%g: fill stages %u", p, fill.stages);
		CHECK(fill.bits_set == stage_bits_set(c.buf),
			  "p=%g: bits_set %llu, counted %llu", p,
			  (unsigned long long) fill.bits_set,
			  (unsigned long long) stage_bits_set(c.buf));
		CHECK(fabs(fill.estimated_items - (double) held) <= 0.03 * (double) held,
			  "p=%g: estimated %.0f distinct items, held %llu", p,
			  fill.estimated_items, (unsigned long long) held);
		printf("     p=%g, 100 n0 items, %u stages, %llu bytes (%.2f bits/item): measured %.6f, rate now %.6f; over 8 chains %.6f, model %.6f; bound %.6f; estimate %.0f\n",
			   p, s, (unsigned long long) c.len, 8.0 * (double) c.len / (double) n,
			   measured, fill.fpr, mean_now, mean_model, bound,
			   fill.estimated_items);

		/* round trip: the same bytes answer alike */
		{
			unsigned char *copy = check_malloc(c.len);
			bf_filter	g;
			uint64_t	differ = 0;

			memcpy(copy, c.buf, c.len);
			st = bf_open(copy, c.len, &g);
			CHECK(st == BF_OK, "p=%g: copy does not open: %s", p,
				  bf_status_message(st));
			if (st == BF_OK)
			{
				for (i = 0; i < 20000; i++)
					differ += bf_contains(&g, check_key(i, i % 2, g.seed)) !=
						bf_contains(&c.f, check_key(i, i % 2, c.f.seed));
				CHECK(differ == 0 && bf_equal(&g, &c.f),
					  "p=%g: the copy answers %llu probes differently", p,
					  (unsigned long long) differ);
			}
			free(copy);
		}
		free(c.buf);
	}
	check_group_end();
}

/* Repeated elements neither grow the chain nor change a bit */
static void
test_duplicates(void)
{
	chain		c;
	unsigned char *before;
	size_t		len;
	uint64_t	i;
	unsigned	stages;

	check_group("duplicates count as items but neither set bits nor grow");
	chain_of(&c, 1000, 3, 0, 3000);	/* exactly fills stages 0 and 1 */
	stages = c.f.variant_word;
	len = c.len;
	before = check_malloc(len);
	memcpy(before, c.buf, len);
	for (i = 0; i < 5; i++)
		chain_fill(&c, 0, 3000);
	CHECK(c.f.variant_word == stages && c.len == len,
		  "%u stages and %lu bytes after repeats, were %u and %lu",
		  c.f.variant_word, (unsigned long) c.len, stages, (unsigned long) len);
	CHECK(c.len == len && memcmp(before + 64, c.buf + 64, len - 64) == 0,
		  "repeated elements changed the payload");
	CHECK(c.f.items == 18000, "items %llu, want 18000",
		  (unsigned long long) c.f.items);
	CHECK(memcmp(before, c.buf, 32) == 0 && memcmp(before + 40, c.buf + 40, 24) == 0,
		  "repeats changed a header field other than items");
	free(before);
	free(c.buf);
	check_group_end();
}

/* Walk a filter through every add until it must grow: BF_E_FULL changes nothing */
static void
test_full(void)
{
	chain		c;
	unsigned char *before;
	uint64_t	i;
	bf_status	st = BF_OK;

	check_group("a full last stage: BF_E_FULL changing nothing; grow round trip");
	chain_new(&c, 100, 0.01, 5);
	for (i = 0; st == BF_OK && i < 1000; i++)
		st = bf_add(&c.f, check_key(i, 0, c.f.seed));
	CHECK(st == BF_E_FULL, "no BF_E_FULL after %llu adds: %s",
		  (unsigned long long) i, bf_status_message(st));
	before = check_malloc(c.len);
	memcpy(before, c.buf, c.len);
	st = bf_add(&c.f, check_key(i - 1, 0, c.f.seed));
	CHECK(st == BF_E_FULL && memcmp(before, c.buf, c.len) == 0,
		  "BF_E_FULL changed the filter (%s)", bf_status_message(st));
	CHECK(bf_add(&c.f, check_key(0, 0, c.f.seed)) == BF_OK,
		  "a present element is refused by a full filter");
	{
		uint64_t	bytes = bf_grow_bytes(&c.f);
		unsigned char *g = check_malloc((size_t) bytes);
		bf_filter	f;
		rec			r[2];

		memset(g, 0xFF, (size_t) bytes);
		bf_grow(&c.f, g);
		st = bf_open(g, (size_t) bytes, &f);
		CHECK(st == BF_OK, "grown filter: %s", bf_status_message(st));
		CHECK(memcmp(g + 64, c.buf + 64, c.len - 64) == 0 &&
			  memcmp(g, c.buf, 12) == 0 && memcmp(g + 16, c.buf + 16, 8) == 0 &&
			  memcmp(g + 32, c.buf + 32, 24) == 0,
			  "growth changed the old bytes");
		CHECK(read_stages(g, r, 2) == 2 && r[1].level == 1 && r[1].held == 0 &&
			  r[1].capacity == 200 &&
			  popcount_bytes(r[1].blocks, r[1].bits / 8) == 0,
			  "the new stage is not an empty level-1 stage for 200 items");
		CHECK(f.variant_word == 2 && f.bits == c.f.bits + r[1].bits &&
			  f.payload_bytes == c.f.payload_bytes + 64 + r[1].bits / 8,
			  "grown header: %u stages, %llu bits", f.variant_word,
			  (unsigned long long) f.bits);
		if (st == BF_OK)
		{
			st = bf_add(&f, check_key(i - 1, 0, f.seed));
			CHECK(st == BF_OK && bf_contains(&f, check_key(i - 1, 0, f.seed)),
				  "the add after growing: %s", bf_status_message(st));
			CHECK(bf_open(g, (size_t) bytes, &f) == BF_OK,
				  "invalid after the add");
		}
		free(g);
	}
	free(before);
	free(c.buf);
	check_group_end();
}

static void
test_union(void)
{
	chain		a,
				b,
				all,
				x;
	uint64_t	i,
				missing = 0,
				probes = check_quick() ? 200000 : 1000000;
	bf_status	st;
	rec			r[64];
	unsigned	s;
	double		measured,
				bound = 0.0;
	unsigned char *before;

	check_group("union: every element kept; stage-wise in place when it fits");

	/* two halves of 100 n0: each 6 stages; the full stages do not fit together */
	chain_of(&a, 1000, 9, 0, 50000);
	chain_of(&b, 1000, 9, 50000, 100000);
	CHECK(a.f.variant_word == 6 && b.f.variant_word == 6, "halves have %u and %u stages",
		  a.f.variant_word, b.f.variant_word);
	CHECK(bf_union_bytes(&a.f, &b.f, NULL, NULL) == a.len + b.f.payload_bytes,
		  "union bytes %llu, want both payloads",
		  (unsigned long long) bf_union_bytes(&a.f, &b.f, NULL, NULL));
	CHECK(bf_union(&a.f, &b.f, NULL, NULL) == BF_E_UNSUPPORTED,
		  "an in-place union that needs room is not refused");
	st = chain_union(&a, &b.f);
	CHECK(st == BF_OK, "union: %s", bf_status_message(st));
	s = read_stages(a.buf, r, 64);
	CHECK(s == 12 && a.f.items == 100000, "union: %u stages, %llu items", s,
		  (unsigned long long) a.f.items);
	for (i = 0; i < 100000; i++)
		missing += !bf_contains(&a.f, check_key(i, 0, a.f.seed));
	CHECK(missing == 0, "union lost %llu elements", (unsigned long long) missing);
	for (i = 0; i < s && i < 64; i++)
		bound += level_rate(0.01, (unsigned) r[i].level);
	measured = check_measure(&a.f, probes);
	CHECK(measured <= bound && measured <= chain_model(a.buf) * 1.1 + 4 * sqrt(0.01 / (double) probes),
		  "union measures %.6f, model %.6f, bound %.6f", measured,
		  chain_model(a.buf), bound);
	printf("     union of two halves: %u stages, measured %.6f, model %.6f, bound (sum of stage rates) %.6f\n",
		   s, measured, chain_model(a.buf), bound);
	/* the union keeps growing from the level after its highest */
	chain_fill(&a, 100000, 130000);
	s = read_stages(a.buf, r, 64);
	CHECK(s == 13 && r[12].level == 6 && !a.grow_failed,
		  "after growing the union: %u stages, last level %lu", s,
		  s == 13 ? r[12].level : 0);
	free(a.buf);
	free(b.buf);

	/* small sets that fit: in place, the bits of the filter built from both */
	chain_of(&a, 1000, 9, 0, 300);
	chain_of(&b, 1000, 9, 300, 600);
	chain_of(&all, 1000, 9, 0, 600);
	CHECK(bf_union_bytes(&a.f, &b.f, NULL, NULL) == a.len, "fitting union needs %llu bytes",
		  (unsigned long long) bf_union_bytes(&a.f, &b.f, NULL, NULL));
	st = bf_union(&a.f, &b.f, NULL, NULL);
	CHECK(st == BF_OK, "in-place union: %s", bf_status_message(st));
	CHECK(memcmp(a.f.payload + 64, all.f.payload + 64, a.f.payload_bytes - 64) == 0,
		  "A | B has other bits than the filter of A and B");
	CHECK(check_le64(a.f.payload + ST_HELD) == 600 && a.f.items == 600,
		  "held %llu, items %llu", check_le64(a.f.payload + ST_HELD),
		  (unsigned long long) a.f.items);
	CHECK(bf_open(a.buf, a.len, &a.f) == BF_OK, "the union does not reopen");

	/* f | f is f (but for the items count) */
	before = check_malloc(all.len);
	memcpy(before, all.buf, all.len);
	CHECK(bf_union_bytes(&all.f, &all.f, NULL, NULL) == all.len, "f | f needs room");
	st = bf_union(&all.f, &all.f, NULL, NULL);
	CHECK(st == BF_OK && memcmp(before + 64, all.buf + 64, all.len - 64) == 0,
		  "f | f changed the payload (%s)", bf_status_message(st));
	free(before);

	/* a stage that fits nowhere is appended; a later one fills its room */
	chain_of(&x, 1000, 9, 1000, 1400);
	chain_fill(&b, 600, 1000);	/* b: one stage, 700 held */
	st = chain_union(&b, &x.f);
	CHECK(st == BF_OK && b.f.variant_word == 2, "700 | 400: %s, %u stages",
		  bf_status_message(st), b.f.variant_word);
	free(x.buf);
	chain_of(&x, 1000, 9, 2000, 2500);
	CHECK(bf_scalable_ops.union_bytes(&b.f, &x.f, NULL, NULL) == b.len,
		  "the room of stage 2 not used");
	st = chain_union(&b, &x.f);
	free(x.buf);
	s = read_stages(b.buf, r, 64);
	CHECK(st == BF_OK && s == 2 && r[0].held == 700 && r[1].held == 900,
		  "[700, 400] | 500: %s, %u stages, held %llu and %llu",
		  bf_status_message(st), s, r[0].held, s > 1 ? r[1].held : 0);
	missing = 0;
	for (i = 300; i < 2500; i++)
		if (i < 1400 || i >= 2000)
			missing += !bf_contains(&b.f, check_key(i, 0, b.f.seed));
	CHECK(missing == 0, "the appended unions lost %llu elements",
		  (unsigned long long) missing);

	/* chains of different lengths (the union the SQL layer asks for) */
	st = chain_union(&b, &all.f);
	missing = 0;
	for (i = 0; i < 2500; i++)
		if (i < 1400 || i >= 2000)
			missing += !bf_contains(&b.f, check_key(i, 0, b.f.seed));
	CHECK(st == BF_OK && missing == 0, "[2 stages] | [1 stage]: %s, %llu lost",
		  bf_status_message(st), (unsigned long long) missing);

	/* 64 stages at most: a full stage appended over and over */
	{
		chain		full,
					acc;
		int			unions = 0;

		chain_of(&full, 10, 9, 0, 10);
		chain_of(&acc, 10, 9, 100, 110);
		while (unions < 100 && (st = chain_union(&acc, &full.f)) == BF_OK)
		{
			unions++;
			/* other elements, so that no stage covers the next */
			free(full.buf);
			chain_of(&full, 10, 9, 1000 + 10 * (uint64_t) unions,
					 1010 + 10 * (uint64_t) unions);
		}
		CHECK(st == BF_E_TOO_LARGE && acc.f.variant_word == 64 && unions == 63,
			  "stage limit: %s after %d unions, %u stages",
			  bf_status_message(st), unions, acc.f.variant_word);
		CHECK(bf_grow_bytes(&acc.f) == 0, "a 64-stage chain offers to grow");
		CHECK(bf_open(acc.buf, acc.len, &acc.f) == BF_OK,
			  "the 64-stage chain does not reopen");
		free(full.buf);
		free(acc.buf);
	}

	/* another plan does not combine */
	chain_new(&x, 2000, 0.01, 9);
	CHECK(bf_scalable_ops.merge(&a.f, &x.f, false, NULL, NULL) == BF_E_INCOMPATIBLE &&
		  bf_scalable_ops.union_into(&a.f, &x.f, all.buf, NULL, NULL) == BF_E_INCOMPATIBLE,
		  "chains of another n0 combine");
	free(x.buf);
	free(a.buf);
	free(b.buf);
	free(all.buf);
	check_group_end();
}

static void
test_intersect(void)
{
	chain		a,
				b,
				c,
				d;
	uint64_t	i,
				missing = 0;
	bf_status	st;
	unsigned char *before;

	check_group("intersection: single stages AND; longer chains refused unchanged");
	chain_of(&a, 1000, 4, 0, 800);
	chain_of(&b, 1000, 4, 400, 1000);
	st = bf_intersect(&a.f, &b.f, NULL, NULL);
	CHECK(st == BF_OK, "single stages: %s", bf_status_message(st));
	for (i = 400; i < 800; i++)
		missing += !bf_contains(&a.f, check_key(i, 0, a.f.seed));
	CHECK(missing == 0, "intersection lost %llu common elements",
		  (unsigned long long) missing);
	CHECK(check_le64(a.f.payload + ST_HELD) == check_le64(b.f.payload + ST_HELD),
		  "held is not the smaller count");
	CHECK(bf_open(a.buf, a.len, &a.f) == BF_OK, "the intersection does not reopen");

	/* two chains of the same stages whose common elements sit in other stages */
	chain_of(&c, 1000, 4, 0, 3000);
	chain_of(&d, 1000, 4, 1500, 4500);
	before = check_malloc(c.len);
	memcpy(before, c.buf, c.len);
	st = bf_intersect(&c.f, &d.f, NULL, NULL);
	CHECK(st == BF_E_UNSUPPORTED && memcmp(before, c.buf, c.len) == 0,
		  "two-stage chains: %s", bf_status_message(st));
	free(before);
	free(a.buf);
	free(b.buf);
	free(c.buf);
	free(d.buf);
	check_group_end();
}

/* Opens a mutated copy; whatever opens must work (ASan watches) */
static int
try_open(const unsigned char *buf, size_t len, const char *what, int off,
		 unsigned val)
{
	unsigned char *b = check_malloc(len);
	chain		c;
	bf_status	st;
	uint64_t	i,
				missing = 0;
	bf_fill_stats fill;

	memcpy(b, buf, len);
	c.buf = b;
	c.len = len;
	c.grow_failed = 0;
	st = bf_open(c.buf, c.len, &c.f);
	if (st != BF_OK)
	{
		free(c.buf);
		return 0;
	}
	for (i = 0; i < 64; i++)
		(void) bf_contains(&c.f, check_key(i, 1, c.f.seed));
	bf_fill(&c.f, &fill, NULL, NULL);
	(void) bf_filter_capacity(&c.f);
	for (i = 5000; i < 5300; i++)
		chain_add(&c, check_key(i, 0, c.f.seed));
	for (i = 5000; i < 5300; i++)
		missing += !bf_contains(&c.f, check_key(i, 0, c.f.seed));
	CHECK(missing == 0 || c.grow_failed,
		  "%s %d = %u: accepted, then %llu false negatives", what, off, val,
		  (unsigned long long) missing);
	CHECK(bf_open(c.buf, c.len, &c.f) == BF_OK,
		  "%s %d = %u: invalid after adds", what, off, val);
	free(c.buf);
	return 1;
}

static void
test_hostile(void)
{
	static const unsigned char values[] = {0, 1, 2, 127, 128, 255};
	chain		c;
	size_t		len,
				v;
	int			off;
	unsigned long wrong = 0,
				accepted = 0,
				tried = 0;
	unsigned char *b;
	bf_filter	f;
	bf_status	st;
	rec			r[3];
	unsigned	s;
	char		offsets[600] = "";
	size_t		used = 0;

	check_group("hostile headers and stage tables are refused or harmless");
	chain_of(&c, 20, 1, 0, 100);	/* 3 stages: 20 + 40 + 80 */
	s = read_stages(c.buf, r, 3);
	CHECK(s == 3, "victim has %u stages", s);

	/* every truncation, exactly that long so that ASan sees overreads */
	for (len = 0; len < c.len; len++)
	{
		b = check_malloc(len);
		memcpy(b, c.buf, len);
		st = bf_open(b, len, &f);
		wrong += st != (len < BF_HEADER_SIZE ? BF_E_SHORT : BF_E_TRUNCATED);
		free(b);
	}
	CHECK(wrong == 0, "%lu truncations not refused as short or truncated", wrong);

	/* every header byte and every byte of every stage header, a few values */
	for (off = 0; off < (int) c.len; off++)
	{
		int			in_stage = 0,
					any = 0;
		const unsigned char *p = c.buf + BF_HEADER_SIZE;
		unsigned	i;

		for (i = 0; i < s; i++)
		{
			if (off >= p - c.buf && off < p - c.buf + STAGE_HEADER)
				in_stage = 1;
			p += STAGE_HEADER + r[i].bits / 8;
		}
		if (off >= BF_HEADER_SIZE && !in_stage)
			continue;
		for (v = 0; v < sizeof(values); v++)
		{
			int			ok;

			b = check_malloc(c.len);
			memcpy(b, c.buf, c.len);
			b[off] = values[v];
			tried++;
			ok = try_open(b, c.len, "byte", off, values[v]);
			accepted += ok;
			if (ok && c.buf[off] != values[v])
				any = 1;
			free(b);
		}
		if (any && used + 8 < sizeof(offsets))
			used += (size_t) snprintf(offsets + used, sizeof(offsets) - used,
									  " %d", off);
	}
	printf("     %lu mutations tried, %lu opened; changed bytes accepted at offsets%s\n",
		   tried, accepted, used ? offsets : " (none)");

	/* crafted stage tables */
	{
		unsigned char *s1 = c.buf + BF_HEADER_SIZE + STAGE_HEADER + r[0].bits / 8;
		unsigned char *s2 = s1 + STAGE_HEADER + r[1].bits / 8;
		struct
		{
			const char *what;
			unsigned char *at;
			int			width;
			unsigned long long value;
		}			cases[] = {
			{"stage 1 level 0", s1 + ST_LEVEL, 4, 0},
			{"stage 1 level 2", s1 + ST_LEVEL, 4, 2},
			{"stage 1 level 64", s1 + ST_LEVEL, 4, 64},
			{"stage 1 level 2^32-1", s1 + ST_LEVEL, 4, 0xFFFFFFFFULL},
			{"stage 1 capacity + 1", s1 + ST_CAPACITY, 8, 41},
			{"stage 1 held past capacity", s1 + ST_HELD, 8, 41},
			{"stage 1 k + 1", s1 + ST_HASHES, 4, r[1].hashes + 1},
			{"stage 1 k 0", s1 + ST_HASHES, 4, 0},
			{"stage 1 bits + 512", s1 + ST_BITS, 8, r[1].bits + 512},
			{"stage 1 bits - 512", s1 + ST_BITS, 8, r[1].bits - 512},
			{"stage 1 bits 0", s1 + ST_BITS, 8, 0},
			{"stage 1 bits huge", s1 + ST_BITS, 8, 0xFFFFFFFFFFFFFE00ULL},
			{"stage 2 bits 2^61", s2 + ST_BITS, 8, 1ULL << 61},
			{"stage 1 reserved", s1 + 40, 8, 1},
			{"stage 2 reserved", s2 + 63, 1, 1},
			{"stage 0 level 1", c.buf + 64 + ST_LEVEL, 4, 1},
			{"header: 2 stages", c.buf + 12, 4, 2},
			{"header: 4 stages", c.buf + 12, 4, 4},
			{"header: 65 stages", c.buf + 12, 4, 65},
			{"header: k + 1", c.buf + 8, 4, c.f.hashes + 1},
			{"header: bits - 512", c.buf + 24, 8, c.f.bits - 512},
			{"header: n0 40", c.buf + 40, 8, 40},
			{"header: p 0", c.buf + 48, 8, 0},
		};
		size_t		i;

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			size_t		at = (size_t) (cases[i].at - c.buf);
			int			w;

			b = check_malloc(c.len);
			memcpy(b, c.buf, c.len);
			for (w = 0; w < cases[i].width; w++)
				b[at + w] = (unsigned char) (cases[i].value >> (8 * w));
			st = bf_open(b, c.len, &f);
			CHECK(st != BF_OK, "%s: accepted", cases[i].what);
			free(b);
		}

		/* stages 1 and 2 swapped: levels must not matter for the order, but
		 * the first stage must be level 0 with the header's k */
		b = check_malloc(c.len);
		memcpy(b, c.buf, 64);
		memcpy(b + 64, s1, STAGE_HEADER + r[1].bits / 8);
		memcpy(b + 64 + STAGE_HEADER + r[1].bits / 8, c.buf + 64,
			   STAGE_HEADER + r[0].bits / 8);
		memcpy(b + 64 + 2 * STAGE_HEADER + (r[0].bits + r[1].bits) / 8, s2,
			   STAGE_HEADER + r[2].bits / 8);
		st = bf_open(b, c.len, &f);
		CHECK(st == BF_E_LAYOUT, "level 1 first: %s", bf_status_message(st));
		free(b);
	}
	free(c.buf);
	check_group_end();
}

/*
 * The 1 GB limit: plans past it are refused, and growth reports the size
 * it would need honestly.  grow_bytes reads only the header and the stage
 * headers, so a view over one stage header stands in for filters far too
 * large to allocate here.
 */
static void
test_limits(void)
{
	static const struct
	{
		unsigned long long n0;
		int			beyond;		/* the next stage is past any size */
	}			cases[] = {{UINT64_C(1) << 28, 0}, {UINT64_C(1) << 40, 0},
	{UINT64_C(1) << 62, 1}, {UINT64_C(1) << 63, 1}};
	bf_params	p;
	bf_status	st;
	size_t		i;

	check_group("the 1 GB limit: plans refused, growth sized honestly");
	st = bf_plan(BF_SCALABLE, UINT64_C(200000000), 0.01, 0, &p);
	CHECK(st == BF_OK && p.total_bytes < BF_MAX_BYTES,
		  "a 200M-item first stage: %s", bf_status_message(st));
	st = bf_plan(BF_SCALABLE, UINT64_C(1000000000), 0.01, 0, &p);
	CHECK(st == BF_E_TOO_LARGE, "a 1G-item first stage: %s",
		  bf_status_message(st));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		unsigned char head[STAGE_HEADER];
		bf_filter	f;
		uint64_t	bytes,
					bits1;
		uint32_t	k1;

		memset(head, 0, sizeof(head));
		check_put_le64(head + ST_BITS, UINT64_C(1) << 32);
		check_put_le64(head + ST_CAPACITY, cases[i].n0);
		memset(&f, 0, sizeof(f));
		f.variant = BF_SCALABLE;
		f.payload = head;
		f.variant_word = 1;
		f.hashes = 10;
		f.bits = UINT64_C(1) << 32;
		f.expected_items = cases[i].n0;
		f.target_fpr = 0.01;
		f.payload_bytes = STAGE_HEADER + f.bits / 8;
		bytes = bf_grow_bytes(&f);
		if (cases[i].beyond)
			CHECK(bytes == UINT64_MAX, "n0 = %llu: grow_bytes %llu", cases[i].n0,
				  (unsigned long long) bytes);
		else
		{
			bf_blocked_size(2.0 * (double) cases[i].n0, level_rate(0.01, 1),
							&bits1, &k1);
			CHECK(bytes == BF_HEADER_SIZE + f.payload_bytes + STAGE_HEADER + bits1 / 8 &&
				  bytes > BF_MAX_BYTES,
				  "n0 = %llu: grow_bytes %llu", cases[i].n0,
				  (unsigned long long) bytes);
		}
	}
	check_group_end();
}

/*
 * The worked example of STORAGE.md section 12, byte for byte, of hash scheme
 * 'scheme' (the integer 42 hashed as h42): the growth must keep the scheme
 */
static void
worked_example(unsigned scheme, bf_hash h42, const char *hex)
{
	unsigned char want[320];
	chain		c;
	size_t		i;
	unsigned	v;

	for (i = 0; i < sizeof(want); i++)
	{
		sscanf(hex + 2 * i, "%2x", &v);
		want[i] = (unsigned char) v;
	}
	chain_new(&c, 1, 0.1, 0);
	if (scheme != BF_HASH_SCHEME_CURRENT)
	{
		c.buf[6] = (unsigned char) scheme;
		CHECK(bf_open(c.buf, c.len, &c.f) == BF_OK && c.f.scheme == scheme,
			  "scheme %u: cannot open", scheme);
	}
	chain_add(&c, bf_hash_bytes("hello", 5, 0));
	CHECK(c.len == 192 && memcmp(c.buf + 64, want + 64, 128) == 0 &&
		  check_le64(c.buf + 24) == 512 && check_le32(c.buf + 12) == 1,
		  "scheme %u, after 'hello': %lu bytes", scheme, (unsigned long) c.len);
	chain_add(&c, h42);
	CHECK(c.len == sizeof(want) && memcmp(c.buf, want, sizeof(want)) == 0,
		  "scheme %u, after 'hello' and 42: %lu bytes, not the documented ones",
		  scheme, (unsigned long) c.len);
	free(c.buf);
}

/*
 * As the extension builds it (scheme 2: 42 by bf_hash_integer), and as
 * releases 1.0 and 1.1 built it (scheme 1: 42 by XXH3 of its 8 bytes); the
 * stage headers and the stage of 'hello' are the same in both
 */
static void
test_worked_example(void)
{
	check_group("the worked example of STORAGE.md section 12");
	worked_example(2, bf_hash_integer(42, 0),
				   "424c4d4601040200220000000200000000000000000000000004000000000000"
				   "020000000000000001000000000000009a9999999999b93f0001000000000000"
				   "0002000000000000010000000000000001000000000000002200000000000000"
				   "0000000000000000000000000000000000000000000000000000000000000000"
				   "0400200800000000008080804100000004802000000000010000000000001100"
				   "2800000002000040000000081050081010420080010000020018400000100000"
				   "0002000000000000020000000000000001000000000000001e00000001000000"
				   "0000000000000000000000000000000000000000000000000000000000000000"
				   "0000800802002020000020000100000000000002000080800000408800010000"
				   "0000010004104000010008000000208404040000000000000004004000800004");
	worked_example(1, bf_hash_int64(42, 0),
				   "424c4d4601040100220000000200000000000000000000000004000000000000"
				   "020000000000000001000000000000009a9999999999b93f0001000000000000"
				   "0002000000000000010000000000000001000000000000002200000000000000"
				   "0000000000000000000000000000000000000000000000000000000000000000"
				   "0400200800000000008080804100000004802000000000010000000000001100"
				   "2800000002000040000000081050081010420080010000020018400000100000"
				   "0002000000000000020000000000000001000000000000001e00000001000000"
				   "0000000000000000000000000000000000000000000000000000000000000000"
				   "0040020000080000000910048000220200000000000000000400480000400000"
				   "80040280000008000000000080200c0000000000140008408000000800000000");
	check_group_end();
}

int
main(void)
{
	test_plan();
	test_growth();
	test_duplicates();
	test_full();
	test_union();
	test_intersect();
	test_hostile();
	test_limits();
	test_worked_example();
	return check_summary("test_scalable");
}
