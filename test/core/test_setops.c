/*
 * test_setops.c
 *		Core unit tests: union, intersection, equality and fill statistics.
 *
 * Union must give exactly the bytes of the filter built from both sets;
 * intersection must keep every common element; filters of another shape
 * are refused without being touched; the fill statistics must agree with
 * a popcount done here and estimate the number of distinct items.
 */
#include <math.h>
#include <stdint.h>

#include "bf.h"
#include "check.h"

static const bf_variant variants[] = {BF_BLOCKED, BF_CLASSIC};

static const char *
vname(bf_variant v)
{
	return v == BF_BLOCKED ? "blocked" : "classic";
}

typedef struct built
{
	unsigned char *buf;
	size_t		len;
	bf_filter	f;
} built;

/* A filter of 'p' holding keys [from, to) */
static void
build(const bf_params *p, uint64_t from, uint64_t to, built *b)
{
	uint64_t	i;

	b->len = (size_t) p->total_bytes;
	b->buf = check_malloc(b->len);
	bf_init(p, b->buf);
	if (bf_open(b->buf, b->len, &b->f) != BF_OK)
	{
		CHECK(0, "cannot open a new filter");
		exit(2);
	}
	for (i = from; i < to; i++)
		bf_add(&b->f, check_key(i, 0, b->f.seed));
}

static unsigned
popcount8(unsigned char c)
{
	unsigned	n = 0;

	for (; c; c &= (unsigned char) (c - 1))
		n++;
	return n;
}

static void
test_union_intersect(void)
{
	size_t		v;

	check_group("union is the filter of both sets; intersection keeps the common part");
	for (v = 0; v < 2; v++)
	{
		const char *n = vname(variants[v]);
		bf_params	p;
		built		a,
					b,
					all,
					inter;
		unsigned char *and;
		uint64_t	i,
					missing = 0,
					nonzero;
		bf_status	st;

		bf_plan(variants[v], 10000, 0.01, 3, &p);
		build(&p, 0, 6000, &a);
		build(&p, 4000, 10000, &b);
		build(&p, 0, 10000, &all);
		build(&p, 0, 6000, &inter);

		and = check_malloc(a.len);
		for (i = 0; i < a.len; i++)
			and[i] = a.buf[i] & b.buf[i];

		st = bf_union(&a.f, &b.f, NULL, NULL);
		CHECK(st == BF_OK, "%s: union: %s", n, bf_status_message(st));
		CHECK(memcmp(a.f.payload, all.f.payload, a.f.payload_bytes) == 0,
			  "%s: A | B differs from the filter of A and B", n);
		CHECK(bf_equal(&a.f, &all.f), "%s: bf_equal(A | B, built)", n);
		CHECK(a.f.items == 12000 && check_le64(a.buf + 32) == 12000,
			  "%s: union items %llu (header %llu), want 12000", n,
			  (unsigned long long) a.f.items, check_le64(a.buf + 32));
		for (i = 0; i < 10000; i++)
			missing += !bf_contains(&a.f, check_key(i, 0, a.f.seed));
		CHECK(missing == 0, "%s: union lost %llu elements", n,
			  (unsigned long long) missing);
		st = bf_open(a.buf, a.len, &a.f);
		CHECK(st == BF_OK, "%s: the union does not reopen: %s", n,
			  bf_status_message(st));

		st = bf_intersect(&inter.f, &b.f, NULL, NULL);
		CHECK(st == BF_OK, "%s: intersect: %s", n, bf_status_message(st));
		CHECK(memcmp(inter.f.payload, and + 64, inter.f.payload_bytes) == 0,
			  "%s: A & B is not the bitwise AND", n);
		missing = 0;
		for (i = 4000; i < 6000; i++)
			missing += !bf_contains(&inter.f, check_key(i, 0, inter.f.seed));
		CHECK(missing == 0, "%s: intersection lost %llu common elements", n,
			  (unsigned long long) missing);
		CHECK(inter.f.items == 6000, "%s: intersection items %llu", n,
			  (unsigned long long) inter.f.items);
		st = bf_open(inter.buf, inter.len, &inter.f);
		CHECK(st == BF_OK, "%s: the intersection does not reopen: %s", n,
			  bf_status_message(st));

		/* union with itself and with an empty filter changes no bit */
		{
			built		e;
			unsigned char *before = check_malloc(all.len);

			build(&p, 0, 0, &e);
			memcpy(before, all.buf, all.len);
			bf_union(&all.f, &e.f, NULL, NULL);
			bf_union(&all.f, &all.f, NULL, NULL);
			CHECK(memcmp(before + 64, all.buf + 64, all.len - 64) == 0,
				  "%s: A | empty | A changed the bits", n);
			bf_intersect(&e.f, &all.f, NULL, NULL);
			nonzero = 0;
			for (i = 0; i < e.f.payload_bytes; i++)
				nonzero += e.f.payload[i] != 0;
			CHECK(e.f.items == 0 && nonzero == 0,
				  "%s: empty & A is not empty (%llu bytes set)", n,
				  (unsigned long long) nonzero);
			free(before);
			free(e.buf);
		}
		free(and);
		free(a.buf);
		free(b.buf);
		free(all.buf);
		free(inter.buf);
	}
	check_group_end();
}

static void
test_incompatible(void)
{
	size_t		v;

	check_group("filters of another shape are refused and left alone");
	for (v = 0; v < 2; v++)
	{
		const char *n = vname(variants[v]);
		bf_params	p,
					q[4];
		built		a,
					o;
		unsigned char *before;
		int			j;
		static const char *what[] = {"seed", "bits", "hashes", "variant"};

		bf_plan_bits(variants[v], 4096, 5, 1, &p);
		bf_plan_bits(variants[v], 4096, 5, 2, &q[0]);
		bf_plan_bits(variants[v], 8192, 5, 1, &q[1]);
		bf_plan_bits(variants[v], 4096, 6, 1, &q[2]);
		bf_plan_bits(variants[1 - v], 4096, 5, 1, &q[3]);
		build(&p, 0, 100, &a);
		before = check_malloc(a.len);
		memcpy(before, a.buf, a.len);
		for (j = 0; j < 4; j++)
		{
			bf_status	st;

			build(&q[j], 0, 100, &o);
			CHECK(!bf_compatible(&a.f, &o.f), "%s: other %s compatible", n,
				  what[j]);
			CHECK(!bf_equal(&a.f, &o.f), "%s: other %s equal", n, what[j]);
			st = bf_union(&a.f, &o.f, NULL, NULL);
			CHECK(st == BF_E_INCOMPATIBLE, "%s: union, other %s: %s", n,
				  what[j], bf_status_message(st));
			st = bf_intersect(&a.f, &o.f, NULL, NULL);
			CHECK(st == BF_E_INCOMPATIBLE, "%s: intersect, other %s: %s", n,
				  what[j], bf_status_message(st));
			CHECK(memcmp(before, a.buf, a.len) == 0,
				  "%s: refused %s changed the destination", n, what[j]);
			free(o.buf);
		}
		free(before);
		free(a.buf);
	}
	check_group_end();
}

static void
test_equal_and_counts(void)
{
	size_t		v;

	check_group("equality and saturating item counts");
	for (v = 0; v < 2; v++)
	{
		const char *n = vname(variants[v]);
		bf_params	p;
		built		a,
					b;
		uint64_t	key;

		bf_plan(variants[v], 1000, 0.01, 0, &p);
		build(&p, 0, 500, &a);
		build(&p, 0, 500, &b);
		bf_add(&b.f, check_key(7, 0, 0));	/* a duplicate: count only */
		CHECK(bf_equal(&a.f, &b.f) && bf_compatible(&a.f, &b.f),
			  "%s: the same set is not equal", n);
		/* a key whose bits are not all set yet changes the payload */
		for (key = 1000; bf_contains(&b.f, check_key(key, 0, 0)); key++)
			;
		bf_add(&b.f, check_key(key, 0, 0));
		CHECK(!bf_equal(&a.f, &b.f), "%s: equal after a new key", n);

		check_put_le64(a.buf + 32, UINT64_MAX - 5);
		bf_open(a.buf, a.len, &a.f);
		bf_union(&a.f, &b.f, NULL, NULL);
		CHECK(a.f.items == UINT64_MAX && check_le64(a.buf + 32) == UINT64_MAX,
			  "%s: union count did not saturate: %llu", n,
			  (unsigned long long) a.f.items);
		bf_add(&a.f, check_key(1, 0, 0));
		CHECK(a.f.items == UINT64_MAX, "%s: add past saturation: %llu", n,
			  (unsigned long long) a.f.items);
		free(a.buf);
		free(b.buf);
	}
	check_group_end();
}

static unsigned long yields;

static void
count_yield(void *arg)
{
	(void) arg;
	yields++;
}

static void
test_yield(void)
{
	size_t		v;

	check_group("long loops call the yield hook");
	for (v = 0; v < 2; v++)
	{
		const char *n = vname(variants[v]);
		bf_params	p;
		built		a,
					b;
		bf_fill_stats stats;

		/* 4 MB of payload: about one call per megabyte */
		bf_plan_bits(variants[v], UINT64_C(32) << 20, 3, 0, &p);
		build(&p, 0, 1000, &a);
		build(&p, 1000, 2000, &b);
		yields = 0;
		bf_union(&a.f, &b.f, count_yield, NULL);
		CHECK(yields >= 3 && yields <= 5, "%s: union yielded %lu times", n,
			  yields);
		yields = 0;
		bf_intersect(&a.f, &b.f, count_yield, NULL);
		CHECK(yields >= 3 && yields <= 5, "%s: intersect yielded %lu times",
			  n, yields);
		yields = 0;
		bf_fill(&a.f, &stats, count_yield, NULL);
		CHECK(yields >= 3 && yields <= 5, "%s: fill yielded %lu times", n,
			  yields);
		free(a.buf);
		free(b.buf);
	}
	check_group_end();
}

/* The rate a stranger sees now, from the bits, computed here */
static double
rate_now(const bf_filter *f)
{
	uint64_t	i,
				b;
	double		sum = 0.0;

	if (f->variant == BF_CLASSIC)
	{
		uint64_t	set = 0;

		for (i = 0; i < f->payload_bytes; i++)
			set += popcount8(f->payload[i]);
		return pow((double) set / (double) f->bits, f->hashes);
	}
	for (b = 0; b < f->blocks; b++)
	{
		uint64_t	set = 0;

		for (i = 0; i < 64; i++)
			set += popcount8(f->payload[b * 64 + i]);
		sum += pow((double) set / 512.0, f->hashes);
	}
	return sum / (double) f->blocks;
}

static void
test_fill(void)
{
	static const uint64_t ns[] = {0, 1, 100, 10000, 200000};
	size_t		v,
				i;

	check_group("fill statistics and the distinct-item estimate");
	for (v = 0; v < 2; v++)
		for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		{
			const char *n = vname(variants[v]);
			bf_params	p;
			built		a;
			bf_fill_stats s;
			uint64_t	set = 0,
						j;
			double		want_rate;

			bf_plan(variants[v], 200000, 0.01, 0, &p);
			build(&p, 0, ns[i], &a);
			/* every key twice: the estimate counts distinct items */
			for (j = 0; j < ns[i]; j++)
				bf_add(&a.f, check_key(j, 0, 0));
			for (j = 0; j < a.f.payload_bytes; j++)
				set += popcount8(a.f.payload[j]);
			want_rate = rate_now(&a.f);
			bf_fill(&a.f, &s, NULL, NULL);
			CHECK(s.bits_set == set, "%s n=%llu: bits_set %llu, popcount %llu",
				  n, (unsigned long long) ns[i],
				  (unsigned long long) s.bits_set, (unsigned long long) set);
			CHECK(fabs(s.fill_ratio - (double) set / (double) a.f.bits) < 1e-15,
				  "%s n=%llu: fill_ratio %g", n, (unsigned long long) ns[i],
				  s.fill_ratio);
			CHECK(fabs(s.fpr - want_rate) <= 1e-12 * want_rate,
				  "%s n=%llu: fpr now %.12g, from the bits %.12g", n,
				  (unsigned long long) ns[i], s.fpr, want_rate);
			if (ns[i] == 0)
				CHECK(s.estimated_items == 0.0 && !signbit(s.estimated_items) &&
					  s.fpr == 0.0, "%s: empty filter estimates %g, rate %g",
					  n, s.estimated_items, s.fpr);
			else
			{
				/* 3 % for large n; the estimate is noisy for tiny ones */
				double		tol = ns[i] >= 10000 ? 0.03 : 0.3;

				CHECK(fabs(s.estimated_items - (double) ns[i]) <= tol * (double) ns[i] + 1,
					  "%s n=%llu: estimated %.1f distinct items", n,
					  (unsigned long long) ns[i], s.estimated_items);
			}
			if (ns[i] == 200000)
				printf("     %s n=%llu: fill %.4f, rate now %.5f, estimated "
					   "%.0f items\n", n, (unsigned long long) ns[i],
					   s.fill_ratio, s.fpr, s.estimated_items);
			free(a.buf);
		}
	/* a full filter: every bit set, infinitely many items */
	for (v = 0; v < 2; v++)
	{
		bf_params	p;
		built		a;
		bf_fill_stats s;

		bf_plan_bits(variants[v], 1024, 2, 0, &p);
		build(&p, 0, 0, &a);
		memset(a.f.payload, 0xFF, (size_t) a.f.payload_bytes);
		bf_fill(&a.f, &s, NULL, NULL);
		CHECK(s.bits_set == 1024 && s.fill_ratio == 1.0 && s.fpr == 1.0 &&
			  isinf(s.estimated_items) && s.estimated_items > 0,
			  "%s full: set %llu, fill %g, rate %g, estimate %g",
			  vname(variants[v]), (unsigned long long) s.bits_set,
			  s.fill_ratio, s.fpr, s.estimated_items);
		free(a.buf);
	}
	check_group_end();
}

int
main(void)
{
	test_union_intersect();
	test_incompatible();
	test_equal_and_counts();
	test_yield();
	test_fill();
	return check_summary("test_setops");
}
