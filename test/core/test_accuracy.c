/*
 * test_accuracy.c
 *		Core unit tests: no false negatives, the measured false-positive rate
 *		against the model, 64-bit index arithmetic and determinism.
 *
 * The measured rate must lie within 4 standard errors of the model's rate
 * for the filter as built, on both sides: a hash or layout that is too good
 * is as wrong as one that is too bad (it means the model, and so the sizing,
 * is not the one the filter follows).
 *
 * Sizes: n = 1e6 by default (1e5 with BF_TEST_QUICK=1).  BF_TEST_BIG=1 adds
 * n = 1e8 for the blocked variant (about 120 MB), a classic filter past
 * 2^32 bits (about 800 MB), proving 64-bit index arithmetic on real memory,
 * and 10^8 probes to hold the model to a fraction of a percent.
 */
#include <math.h>
#include <stdint.h>

#include "bf.h"
#include "check.h"

static const char *
vname(bf_variant v)
{
	return v == BF_BLOCKED ? "blocked" : "classic";
}

/*
 * The keys: check_key's (integers and URLs, hashed by XXH3-128 as scheme 1
 * hashes them), or, for hash scheme 2's integers, integer_key
 */
static bf_hash (*test_key) (unsigned long long i, int stranger,
							uint64_t seed) = check_key;

/*
 * Consecutive integers hashed as hash scheme 2 hashes them (bf_hash_integer):
 * key i is the integer i, stranger i the integer -(i + 1), so that members
 * and strangers are neighbours, the structure a weak mix would show
 */
static bf_hash
integer_key(unsigned long long i, int stranger, uint64_t seed)
{
	return bf_hash_integer(stranger ? -(int64_t) i - 1 : (int64_t) i, seed);
}

static double
seconds_since(clock_t start)
{
	return (double) (clock() - start) / CLOCKS_PER_SEC;
}

/* A planned, opened, empty filter in freshly allocated memory */
static int
build(bf_variant v, uint64_t n, double p, uint64_t seed, built *b)
{
	bf_params	params;
	bf_status	st = bf_plan(v, n, p, seed, &params);

	if (st != BF_OK)
	{
		CHECK(0, "%s n=%llu p=%g: bf_plan: %s", vname(v),
			  (unsigned long long) n, p, bf_status_message(st));
		return 0;
	}
	b->len = (size_t) params.total_bytes;
	b->buf = malloc(b->len);
	if (b->buf == NULL)
		return -1;
	bf_init(&params, b->buf);
	st = bf_open(b->buf, b->len, &b->f);
	CHECK(st == BF_OK, "%s: bf_open: %s", vname(v), bf_status_message(st));
	return st == BF_OK;
}

/*
 * Adds keys [0, n), looks every 'stride'-th of them up again, probes
 * 'probes' strangers, and judges the rate against the filter's own fill
 * and, when 'against_model', against the model.
 */
static void
measure(bf_variant v, uint64_t n, double p, uint64_t probes, uint64_t stride,
		int against_model)
{
	built		b;
	uint64_t	i,
				missing = 0,
				positives = 0,
				looked = 0;
	double		model,
				se,
				measured,
				fill,
				fill_se;
	clock_t		t0 = clock();
	double		t_add,
				t_probe;
	int			r = build(v, n, p, 0, &b);

	if (r < 0)
	{
		printf("     %s n=%llu: cannot allocate, skipped\n", vname(v),
			   (unsigned long long) n);
		return;
	}
	if (r == 0)
		return;
	for (i = 0; i < n; i++)
		bf_add(&b.f, test_key(i, 0, b.f.seed));
	t_add = seconds_since(t0);
	for (i = 0; i < n; i += stride)
	{
		missing += !bf_contains(&b.f, test_key(i, 0, b.f.seed));
		looked++;
	}
	t0 = clock();
	for (i = 0; i < probes; i++)
		positives += bf_contains(&b.f, test_key(i, 1, b.f.seed));
	t_probe = seconds_since(t0);

	model = bf_filter_model_fpr(&b.f, (double) n);
	se = sqrt(model * (1 - model) / (double) probes);
	measured = (double) positives / (double) probes;
	fill = check_fill_rate(&b.f);
	fill_se = sqrt(fill * (1 - fill) / (double) probes);
	printf("     %s n=%-9llu p=%-6g k=%-2u %6.2f bits/item: measured %.6f, "
		   "model %.6f (%+.2f SE), from fill %.6f (%+.2f SE); add %.2f s, "
		   "%llu probes %.2f s\n",
		   vname(v), (unsigned long long) n, p, (unsigned) b.f.hashes,
		   (double) b.f.bits / (double) n, measured, model,
		   se > 0 ? (measured - model) / se : 0.0, fill,
		   fill_se > 0 ? (measured - fill) / fill_se : 0.0, t_add,
		   (unsigned long long) probes, t_probe);
	CHECK(fabs(measured - fill) <= 4 * fill_se,
		  "%s n=%llu p=%g: measured %.6f, but the fill predicts %.6f "
		  "(SE %.6f)", vname(v), (unsigned long long) n, p, measured, fill,
		  fill_se);
	if (!against_model)
	{
		free(b.buf);
		return;
	}
	CHECK(missing == 0, "%s n=%llu p=%g: %llu false negatives in %llu", vname(v),
		  (unsigned long long) n, p, (unsigned long long) missing,
		  (unsigned long long) looked);
	CHECK(b.f.items == n, "%s: items %llu", vname(v),
		  (unsigned long long) b.f.items);
	CHECK(measured <= model + 4 * se,
		  "%s n=%llu p=%g: measured %.6f above model %.6f + 4 SE (%.6f)",
		  vname(v), (unsigned long long) n, p, measured, model, se);
	CHECK(measured >= model - 4 * se,
		  "%s n=%llu p=%g: measured %.6f below model %.6f - 4 SE (%.6f)",
		  vname(v), (unsigned long long) n, p, measured, model, se);
	/* and the filter meets what it was built for, within sampling error */
	CHECK(measured <= p + 4 * sqrt(p * (1 - p) / (double) probes),
		  "%s n=%llu p=%g: measured %.6f above the target", vname(v),
		  (unsigned long long) n, p, measured);
	free(b.buf);
}

static void
test_fpr(int quick)
{
	static const bf_variant vs[] = {BF_BLOCKED, BF_CLASSIC};
	static const double ps[] = {0.01, 0.001};
	uint64_t	n = quick ? 100000 : 1000000;
	size_t		v,
				j;

	check_group(quick ? "no false negatives, FPR within 4 SE of the model (n = 1e5)" :
				"no false negatives, FPR within 4 SE of the model (n = 1e6)");
	for (v = 0; v < 2; v++)
		for (j = 0; j < 2; j++)
			measure(vs[v], n, ps[j], n, 1, 1);
	/*
	 * A small filter is one draw of the loads, so its rate strays from the
	 * model by more than the probes' error (it showed +-2.6 SE at n = 2000);
	 * it is judged against its own fill only.
	 */
	for (v = 0; v < 2; v++)
		measure(vs[v], 2000, 0.01, quick ? 200000 : 1000000, 1, 0);
	check_group_end();
}

/*
 * The same judgement for consecutive integers hashed by hash scheme 2
 * (bf_hash_integer, two finalisers of the value instead of XXH3): the
 * layouts take their block, bits and positions from its two halves, which
 * must serve as well as XXH3's
 */
static void
test_fpr_integers(int quick)
{
	static const bf_variant vs[] = {BF_BLOCKED, BF_CLASSIC};
	static const double ps[] = {0.01, 0.001};
	uint64_t	n = quick ? 100000 : 1000000;
	size_t		v,
				j;

	check_group(quick ? "integers by bf_hash_integer: FPR within 4 SE (n = 1e5)" :
				"integers by bf_hash_integer: FPR within 4 SE (n = 1e6)");
	test_key = integer_key;
	for (v = 0; v < 2; v++)
		for (j = 0; j < 2; j++)
			measure(vs[v], n, ps[j], n, 1, 1);
	test_key = check_key;
	check_group_end();
}

/* Runs judged against the model too, timed together: measure()'s arguments */
typedef struct run
{
	bf_variant	v;
	uint64_t	n;
	double		p;
	uint64_t	probes;
	uint64_t	stride;
} run;

static void
measure_all(const char *group, const run *runs, size_t nruns)
{
	clock_t		t0 = clock();
	size_t		i;

	check_group(group);
	for (i = 0; i < nruns; i++)
		measure(runs[i].v, runs[i].n, runs[i].p, runs[i].probes, runs[i].stride, 1);
	printf("     took %.1f s of CPU in all\n", seconds_since(t0));
	check_group_end();
}

/*
 * n = 1e8: positions must reach every block of a 120 MB filter, and 10^8
 * probes hold the model to 0.1 % of the rate.  A single filter's rate
 * strays from the model by its own draw of block loads too, but with
 * 2 million blocks that adds only about 12 % to the probes' error.
 */
static void
test_big(void)
{
	/* every 10th key looked up again */
	static const run runs[] = {{BF_BLOCKED, 100000000, 0.01, 100000000, 10}};

	measure_all("n = 1e8, blocked at 1 %, 10^8 probes (BF_TEST_BIG)", runs, 1);
}

/*
 * 10^8 probes at 0.1 %, where their standard error is 0.3 % of the rate,
 * against filters big enough that the draw of their loads matters little
 * (blocked: 3e5 blocks; classic: one big array, no blocks).
 */
static void
test_precision(void)
{
	static const run runs[] = {
		{BF_BLOCKED, 10000000, 0.001, 100000000, 1},
		{BF_CLASSIC, 1000000, 0.001, 100000000, 1},
	};

	measure_all("model precision at 0.1 %: 10^8 probes (BF_TEST_BIG)", runs, 2);
}

/* ---------------------------------------------------------------------- */

/*
 * Bits set in each 1 % slice of the payload.  A position computed in 32
 * bits (or 16) would leave the top of a large filter empty; a skewed
 * mapping would crowd one end.
 */
static void
check_spread(const built *b, const char *what)
{
	uint64_t	counts[100];
	uint64_t	total = 0,
				lo,
				hi,
				i;
	int			s,
				pop[256];
	double		mean;
	/* slices in whole bytes; for blocked also in whole blocks */
	uint64_t	unit = b->f.variant == BF_BLOCKED ? 64 : 1;
	uint64_t	units = b->f.payload_bytes / unit;

	for (s = 0; s < 256; s++)
		pop[s] = check_popcount8((unsigned char) s);
	memset(counts, 0, sizeof(counts));
	for (s = 0; s < 100; s++)
	{
		lo = units * (uint64_t) s / 100 * unit;
		hi = units * (uint64_t) (s + 1) / 100 * unit;
		for (i = lo; i < hi; i++)
			counts[s] += (uint64_t) pop[b->f.payload[i]];
		total += counts[s];
	}
	mean = (double) total / 100.0;
	CHECK(counts[0] > 0 && counts[99] > 0,
		  "%s: first 1 %% has %llu bits, last 1 %% %llu", what,
		  (unsigned long long) counts[0], (unsigned long long) counts[99]);
	for (s = 0; s < 100; s++)
		CHECK(fabs((double) counts[s] - mean) < 0.1 * mean,
			  "%s: slice %d has %llu bits set, mean %.0f", what, s,
			  (unsigned long long) counts[s], mean);
	printf("     %s: bits set in the first / last 1 %%: %llu / %llu "
		   "(mean %.0f)\n", what, (unsigned long long) counts[0],
		   (unsigned long long) counts[99], mean);
}

static void
fill_and_spread(bf_variant v, uint64_t bits, uint32_t hashes, uint64_t n,
				const char *what)
{
	bf_params	p;
	built		b;
	bf_status	st = bf_plan_bits(v, bits, hashes, 0, &p);
	uint64_t	i,
				missing = 0;

	CHECK(st == BF_OK, "%s: plan: %s", what, bf_status_message(st));
	if (st != BF_OK)
		return;
	b.len = (size_t) p.total_bytes;
	b.buf = malloc(b.len);
	if (b.buf == NULL)
	{
		printf("     %s: cannot allocate %llu bytes, skipped\n", what,
			   (unsigned long long) p.total_bytes);
		return;
	}
	bf_init(&p, b.buf);
	st = bf_open(b.buf, b.len, &b.f);
	CHECK(st == BF_OK, "%s: open: %s", what, bf_status_message(st));
	if (st == BF_OK)
	{
		for (i = 0; i < n; i++)
			bf_add(&b.f, check_key(i, 0, 0));
		for (i = 0; i < n; i += 7)
			missing += !bf_contains(&b.f, check_key(i, 0, 0));
		CHECK(missing == 0, "%s: %llu false negatives", what,
			  (unsigned long long) missing);
		check_spread(&b, what);
	}
	free(b.buf);
}

static void
test_wide(int quick)
{
	bf_params	p;
	bf_status	st;
	const uint64_t big = (UINT64_C(1) << 32) + 13;
	uint64_t	n = quick ? 200000 : 1000000;

	check_group("64-bit positions: plans past 2^32 bits, spread over wide filters");
	/* a classic filter past 2^32 bits is a valid plan (512 MB) */
	st = bf_plan_bits(BF_CLASSIC, big, 7, 0, &p);
	CHECK(st == BF_OK && p.bits == big &&
		  p.payload_bytes == (big + 63) / 64 * 8 &&
		  p.total_bytes == 64 + (big + 63) / 64 * 8,
		  "classic 2^32+13 bits: %s, %llu bits, %llu bytes",
		  bf_status_message(st), (unsigned long long) p.bits,
		  (unsigned long long) p.payload_bytes);
	/* 2^33 + 13 bits is past the 1 GB limit of a value */
	st = bf_plan_bits(BF_CLASSIC, (UINT64_C(1) << 33) + 13, 7, 0, &p);
	CHECK(st == BF_E_TOO_LARGE, "classic 2^33+13 bits: %s",
		  bf_status_message(st));
	st = bf_plan_bits(BF_BLOCKED, big, 7, 0, &p);
	CHECK(st == BF_OK && p.bits % 512 == 0 && p.bits >= big &&
		  p.bits / 512 == ((UINT64_C(1) << 32) / 512 + 1),
		  "blocked 2^32+13 bits: %s, %llu bits", bf_status_message(st),
		  (unsigned long long) p.bits);

	/* more than 2^16 blocks: 100003 blocks of 64 bytes */
	fill_and_spread(BF_BLOCKED, UINT64_C(100003) * 512, 6, n,
					"blocked, 100003 blocks");
	/* a classic filter of 10^8 bits */
	fill_and_spread(BF_CLASSIC, UINT64_C(100000000), 7, n,
					"classic, 1e8 bits");
	check_group_end();
}

static void
test_wide_big(void)
{
	/* 1.5 * 2^32 bits, 800 MB: a third of the positions lie past 2^32 */
	uint64_t	bits = (UINT64_C(3) << 31) + 13;
	clock_t		t0 = clock();

	check_group("classic filter of 1.5 * 2^32 bits in memory (BF_TEST_BIG)");
	fill_and_spread(BF_CLASSIC, bits, 3, 10000000, "classic, 6.4e9 bits");
	printf("     took %.1f s of CPU\n", seconds_since(t0));
	check_group_end();
}

/* ---------------------------------------------------------------------- */

/* Adds keys[order[0..n)] to a new filter and returns its bytes */
static unsigned char *
fill_in_order(bf_variant v, uint64_t seed, const uint64_t *order, uint64_t n,
			  size_t *len)
{
	built		b;
	uint64_t	i;

	if (build(v, 10000, 0.01, seed, &b) != 1)
		return NULL;
	for (i = 0; i < n; i++)
		bf_add(&b.f, check_key(order[i], 0, seed));
	*len = b.len;
	return b.buf;
}

static void
test_determinism(void)
{
	static const bf_variant vs[] = {BF_BLOCKED, BF_CLASSIC};
	const uint64_t n = 10000;
	uint64_t   *fwd = check_malloc(n * 2 * sizeof(uint64_t)),
			   *rev = check_malloc(n * 2 * sizeof(uint64_t)),
			   *shuf = check_malloc(n * 2 * sizeof(uint64_t));
	uint64_t	i,
				x = 12345;
	size_t		v;

	check_group("determinism: bytes depend on the set and the seed only");
	for (i = 0; i < n; i++)
	{
		fwd[i] = i;
		rev[i] = n - 1 - i;
		shuf[i] = i;
	}
	for (i = n - 1; i > 0; i--)		/* Fisher-Yates with an LCG */
	{
		uint64_t	j,
					t;

		x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		j = (x >> 33) % (i + 1);
		t = shuf[i];
		shuf[i] = shuf[j];
		shuf[j] = t;
	}
	/* the shuffled order again with every key twice */
	for (i = 0; i < n; i++)
		shuf[n + i] = shuf[i];

	for (v = 0; v < 2; v++)
	{
		size_t		la = 0,
					lb = 0,
					lc = 0,
					ld = 0,
					le = 0;
		unsigned char *a = fill_in_order(vs[v], 0, fwd, n, &la),
				   *b = fill_in_order(vs[v], 0, rev, n, &lb),
				   *c = fill_in_order(vs[v], 0, shuf, n, &lc),
				   *d = fill_in_order(vs[v], 1, fwd, n, &ld),
				   *e = fill_in_order(vs[v], 0, shuf, 2 * n, &le);

		if (a && b && c && d && e)
		{
			size_t		k,
						differ = 0;

			CHECK(la == lb && memcmp(a, b, la) == 0,
				  "%s: reverse order gives other bytes", vname(vs[v]));
			CHECK(la == lc && memcmp(a, c, la) == 0,
				  "%s: shuffled order gives other bytes", vname(vs[v]));
			/* duplicates change the count of adds, never the bits */
			CHECK(la == le && memcmp(a + 64, e + 64, la - 64) == 0,
				  "%s: adding every key twice changes the payload",
				  vname(vs[v]));
			CHECK(check_le64(e + 32) == 2 * n && check_le64(a + 32) == n,
				  "%s: item counts %llu and %llu", vname(vs[v]),
				  check_le64(a + 32), check_le64(e + 32));
			CHECK(la == ld, "%s: sizes differ by seed", vname(vs[v]));
			for (k = 64; k < la && k < ld; k++)
				differ += a[k] != d[k];
			/* about half the set bytes move: far from identical */
			CHECK(differ > (la - 64) / 4,
				  "%s: seed 0 and seed 1 payloads differ in only %lu of %lu "
				  "bytes", vname(vs[v]), (unsigned long) differ,
				  (unsigned long) (la - 64));
			CHECK(memcmp(a + 16, d + 16, 8) != 0, "%s: seed not in the header",
				  vname(vs[v]));
			printf("     %s: seed 0 and 1 differ in %lu of %lu payload bytes\n",
				   vname(vs[v]), (unsigned long) differ,
				   (unsigned long) (la - 64));
		}
		else
			CHECK(0, "%s: could not build the filters", vname(vs[v]));
		free(a);
		free(b);
		free(c);
		free(d);
		free(e);
	}
	free(fwd);
	free(rev);
	free(shuf);
	check_group_end();
}

int
main(void)
{
	int			quick = check_quick();
	int			big = !quick && check_env_set("BF_TEST_BIG");

	test_fpr(quick);
	test_fpr_integers(quick);
	test_wide(quick);
	test_determinism();
	if (big)
	{
		test_big();
		test_precision();
		test_wide_big();
	}
	else
		printf("skip n = 1e8, 10^8 probes and the 800 MB classic filter "
			   "(set BF_TEST_BIG=1%s)\n",
			   quick ? " without BF_TEST_QUICK" : "");
	return check_summary("test_accuracy");
}
