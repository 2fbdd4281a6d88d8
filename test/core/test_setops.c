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

static void
union_intersect(size_t v, const char *n)
{
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
	check_build(&p, 0, 6000, &a);
	check_build(&p, 4000, 10000, &b);
	check_build(&p, 0, 10000, &all);
	check_build(&p, 0, 6000, &inter);

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

		check_build(&p, 0, 0, &e);
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

static void
incompatible(size_t v, const char *n)
{
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
	check_build(&p, 0, 100, &a);
	before = check_malloc(a.len);
	memcpy(before, a.buf, a.len);
	for (j = 0; j < 4; j++)
	{
		bf_status	st;

		check_build(&q[j], 0, 100, &o);
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

static void
equal_and_counts(size_t v, const char *n)
{
	bf_params	p;
	built		a,
				b;
	uint64_t	key;

	bf_plan(variants[v], 1000, 0.01, 0, &p);
	check_build(&p, 0, 500, &a);
	check_build(&p, 0, 500, &b);
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

static void
long_loops(size_t v, const char *n)
{
	bf_params	p;
	built		a,
				b;

	/* 4 MB of payload: about one call per megabyte */
	bf_plan_bits(variants[v], UINT64_C(32) << 20, 3, 0, &p);
	check_build(&p, 0, 1000, &a);
	check_build(&p, 1000, 2000, &b);
	check_yields(n, &a, &b);
	free(a.buf);
	free(b.buf);
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
			check_build(&p, 0, ns[i], &a);
			/* every key twice: the estimate counts distinct items */
			for (j = 0; j < ns[i]; j++)
				bf_add(&a.f, check_key(j, 0, 0));
			for (j = 0; j < a.f.payload_bytes; j++)
				set += check_popcount8(a.f.payload[j]);
			want_rate = check_fill_rate(&a.f);
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
		check_build(&p, 0, 0, &a);
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

/* The groups of checks made on each variant in turn */
static const struct
{
	const char *group;
	void		(*run) (size_t v, const char *n);
}			per_variant[] = {
	{"union is the filter of both sets; intersection keeps the common part",
	union_intersect},
	{"filters of another shape are refused and left alone", incompatible},
	{"equality and saturating item counts", equal_and_counts},
	{"long loops call the yield hook", long_loops},
};

int
main(void)
{
	size_t		g,
				v;

	for (g = 0; g < sizeof(per_variant) / sizeof(per_variant[0]); g++)
	{
		check_group(per_variant[g].group);
		for (v = 0; v < 2; v++)
			per_variant[g].run(v, vname(variants[v]));
		check_group_end();
	}
	test_fill();
	return check_summary("test_setops");
}
