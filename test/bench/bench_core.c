/*
 * bench_core.c
 *		Micro-benchmarks of the filter core, without PostgreSQL.
 *
 * For every variant the core offers, at n = 1e6 and n = 1e8 items (1 %),
 * in one filter per variant and n that holds n items when the lookups run:
 *   - ns per add and per lookup, hit (an added key) and miss (a stranger),
 *     with 64-bit keys hashed by bf_hash_int64 before the clock starts, so
 *     that the figure is the filter's own cost;
 *   - the same with 60-byte URL-like strings hashed by bf_hash_bytes inside
 *     the timed loop (what one SQL call pays, less the executor);
 *   - ns per hit when lookups are serialised (an lfence after each on
 *     x86-64), i.e. the latency of one lookup rather than the throughput of
 *     many overlapping ones;
 *   - the memory-latency floor, measured now: one dependent random read
 *     (pointer chasing through a random cyclic permutation of cache lines)
 *     in an array of the filter's size;
 *   - the false-positive rate measured on the misses.
 *
 * The blocked layout touches one cache line per lookup, so its serialised
 * lookup should cost about one floor: the ratio is printed.  Independent
 * lookups in a loop overlap their misses (memory-level parallelism), which
 * is why they can come out below the floor.
 *
 * Build (the bench target of the Makefile does this):
 *		cc -std=c99 -O2 -Isrc/core test/bench/bench_core.c <every src/core .c file> -lxxhash -lm
 * Usage: bench_core [n ...]   (default: 1000000 100000000)
 * Environment: BENCH_CORE_BUDGET  seconds one variant may take at one n
 *                                 (estimated from the smaller n; default 120)
 *              BENCH_CORE_LOOKUPS lookups per figure (default 10000000)
 *              BENCH_REPEAT       rounds of the latency ratio (default 5)
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bf.h"

#define FPR			0.01
#define SEED		0
#define CHUNK		65536		/* keys hashed (or formatted) per timed batch */
#define URL_STRIDE	64			/* bytes per formatted URL in a batch */
#define MAX_BYTES_LARGE	((uint64_t) 1 << 30)
/* filters this large are out of cache here (2 x this machine's 32 MB L3) */
#define OUT_OF_CACHE	((uint64_t) 64 << 20)
#define RATIO_TARGET	1.5

typedef struct owned
{
	unsigned char *buf;
	bf_filter	f;
} owned;

typedef struct result
{
	double		add,
				hit,
				miss,
				add_url,
				hit_url,
				miss_url,
				hit_serial,
				floor_ns,
				ratio,			/* median of the per-round hit_serial / floor */
				fpr;
	uint64_t	bytes;
	double		seconds;
} result;

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void
die(const char *what, bf_status st)
{
	fprintf(stderr, "bench_core: %s: %s\n", what, bf_status_message(st));
	exit(1);
}

static void *
alloc_aligned(size_t bytes)
{
	void	   *p;

	if (posix_memalign(&p, 64, bytes) != 0)
	{
		fprintf(stderr, "bench_core: out of memory (%zu bytes)\n", bytes);
		exit(1);
	}
	return p;
}

static uint64_t
splitmix64(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

/* An empty filter; the buffer is 64-byte aligned, so is the payload */
static void
owned_create(owned *o, bf_variant v, uint64_t n)
{
	bf_params	p;
	bf_status	st = bf_plan(v, n, FPR, SEED, &p);

	if (st != BF_OK)
		die("bf_plan", st);
	o->buf = alloc_aligned(p.total_bytes);
	bf_init(&p, o->buf);
	if ((st = bf_open(o->buf, p.total_bytes, &o->f)) != BF_OK)
		die("bf_open", st);
}

static void
owned_free(owned *o)
{
	free(o->buf);
	o->buf = NULL;
}

static uint64_t
owned_bytes(const owned *o)
{
	return BF_HEADER_SIZE + o->f.payload_bytes;
}

/* The growth protocol of bf.h (as src/filter_buf.c does it) */
static void
owned_grow(owned *o)
{
	uint64_t	bytes = bf_grow_bytes(&o->f);
	unsigned char *next;
	bf_status	st;

	if (bytes == 0 || bytes > BF_MAX_BYTES)
	{
		fprintf(stderr, "bench_core: %s reported full but cannot grow to %" PRIu64 " bytes\n",
				bf_variant_name(o->f.variant), bytes);
		exit(1);
	}
	next = alloc_aligned(bytes);
	bf_grow(&o->f, next);
	free(o->buf);
	o->buf = next;
	if ((st = bf_open(next, bytes, &o->f)) != BF_OK)
		die("bf_open after bf_grow", st);
}

static inline void
owned_add(owned *o, bf_hash h)
{
	bf_status	st;

	while ((st = bf_add(&o->f, h)) != BF_OK)
	{
		if (st != BF_E_FULL)
			die("bf_add", st);
		owned_grow(o);
	}
}

/*
 * URL-like key i, about 60 bytes as in the SQL benchmark:
 * https://example<i % 5000>.com/page/<32 hex digits>
 */
static size_t
format_url(char *out, uint64_t i)
{
	static const char hex[] = "0123456789abcdef";
	static const char prefix[] = "https://example";
	static const char middle[] = ".com/page/";
	char		digits[8];
	size_t		len = 0;
	int			nd = 0,
				d;
	uint64_t	site = i % 5000,
				a = splitmix64(i),
				b = splitmix64(i ^ UINT64_C(0x5555555555555555));

	memcpy(out, prefix, sizeof(prefix) - 1);
	len = sizeof(prefix) - 1;
	do
	{
		digits[nd++] = (char) ('0' + site % 10);
		site /= 10;
	} while (site);
	while (nd)
		out[len++] = digits[--nd];
	memcpy(out + len, middle, sizeof(middle) - 1);
	len += sizeof(middle) - 1;
	for (d = 0; d < 16; d++)
		out[len++] = hex[(a >> (60 - 4 * d)) & 15];
	for (d = 0; d < 16; d++)
		out[len++] = hex[(b >> (60 - 4 * d)) & 15];
	return len;
}

/* Keys of one batch: key(j) for j in [0, count) */
typedef uint64_t (*key_fn) (uint64_t j, uint64_t n);

static uint64_t
key_seq(uint64_t j, uint64_t n)
{
	(void) n;
	return j;
}

/* a random sample of the keys added (0 .. n-1) */
static uint64_t
key_hit(uint64_t j, uint64_t n)
{
	return splitmix64(j ^ UINT64_C(0xA5A5A5A5)) % n;
}

/* strangers: never added */
static uint64_t
key_miss(uint64_t j, uint64_t n)
{
	return n + j;
}

enum op
{
	OP_ADD,
	OP_CONTAINS,
	OP_CONTAINS_SERIAL
};

static inline void
serialise(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__asm__ __volatile__("lfence":::"memory");
#endif
}

/*
 * Runs op over count keys key(j, n), j = first .. first + count - 1, hashed outside the clock (urls =
 * false) or formatted outside the clock and hashed inside it (urls = true).
 * Returns ns per operation; *found counts positive lookups.
 */
static double
run(owned *o, enum op op, bool urls, key_fn key, uint64_t first,
	uint64_t count, uint64_t n, uint64_t *found)
{
	static bf_hash hs[CHUNK];
	static char *strs;
	static size_t lens[CHUNK];
	double		ns = 0;
	uint64_t	base,
				hits = 0;

	if (strs == NULL)
		strs = alloc_aligned((size_t) CHUNK * URL_STRIDE);
	for (base = 0; base < count; base += CHUNK)
	{
		uint64_t	m = count - base < CHUNK ? count - base : CHUNK,
					j;
		double		t0;

		for (j = 0; j < m; j++)
		{
			if (urls)
				lens[j] = format_url(strs + j * URL_STRIDE, key(first + base + j, n));
			else
				hs[j] = bf_hash_int64((int64_t) key(first + base + j, n), SEED);
		}

		t0 = now_ns();
		if (urls)
		{
			uint64_t	seed = o->f.seed;

			switch (op)
			{
				case OP_ADD:
					for (j = 0; j < m; j++)
						owned_add(o, bf_hash_bytes(strs + j * URL_STRIDE, lens[j], seed));
					break;
				case OP_CONTAINS:
					for (j = 0; j < m; j++)
						hits += bf_contains(&o->f, bf_hash_bytes(strs + j * URL_STRIDE, lens[j], seed));
					break;
				case OP_CONTAINS_SERIAL:
					for (j = 0; j < m; j++)
					{
						hits += bf_contains(&o->f, bf_hash_bytes(strs + j * URL_STRIDE, lens[j], seed));
						serialise();
					}
					break;
			}
		}
		else
		{
			switch (op)
			{
				case OP_ADD:
					for (j = 0; j < m; j++)
						owned_add(o, hs[j]);
					break;
				case OP_CONTAINS:
					for (j = 0; j < m; j++)
						hits += bf_contains(&o->f, hs[j]);
					break;
				case OP_CONTAINS_SERIAL:
					for (j = 0; j < m; j++)
					{
						hits += bf_contains(&o->f, hs[j]);
						serialise();
					}
					break;
			}
		}
		ns += now_ns() - t0;
	}
	if (found)
		*found = hits;
	return count ? ns / count : 0;
}

/*
 * Latency floor: an array of 'bytes' whose cache lines form one random
 * cycle (Sattolo's algorithm), each line holding the index of the next, so
 * that every read waits for the one before and no prefetcher can guess.
 */
static uint64_t *
floor_build(uint64_t bytes, uint64_t *lines_out)
{
	uint64_t	lines = bytes / 64 < 2 ? 2 : bytes / 64,
				i;
	uint64_t   *a = alloc_aligned(lines * 64);
	uint64_t	rng = 12345;

	for (i = 0; i < lines; i++)
		a[i * 8] = i;
	for (i = lines - 1; i > 0; i--)
	{
		uint64_t	j = (rng = splitmix64(rng)) % i,	/* j < i: one cycle */
					t = a[i * 8];

		a[i * 8] = a[j * 8];
		a[j * 8] = t;
	}
	*lines_out = lines;
	return a;
}

/* where the chase ended, so that the compiler must do it */
static volatile uint64_t floor_sink;

/* ns per dependent read, 'steps' reads on from *pos */
static double
floor_run(const uint64_t *a, uint64_t steps, uint64_t *pos)
{
	uint64_t	p = *pos,
				s;
	double		t0 = now_ns();

	for (s = 0; s < steps; s++)
		p = a[p * 8];
	*pos = p;
	floor_sink = p;
	return (now_ns() - t0) / steps;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Serialised hits against the floor, alternately 'rounds' times in an
 * array of the filter's size (fresh keys and lines every round, so that
 * nothing measured is still in cache from the round before); medians.
 */
static void
latency_vs_floor(owned *o, uint64_t n, uint64_t per_round, int rounds,
				 result *r)
{
	uint64_t	lines,
				pos = 0;
	uint64_t   *a = floor_build(owned_bytes(o), &lines);
	double		lat[64],
				fl[64],
				ratio[64];
	int			i;

	if (rounds > 64)
		rounds = 64;
	floor_run(a, per_round / 4, &pos);	/* fault in the pages, warm the TLB */
	for (i = 0; i < rounds; i++)
	{
		uint64_t	first = (uint64_t) (i + 1) * per_round * 7;

		if (i % 2 == 0)
		{
			lat[i] = run(o, OP_CONTAINS_SERIAL, false, key_hit, first, per_round, n, NULL);
			fl[i] = floor_run(a, per_round, &pos);
		}
		else
		{
			fl[i] = floor_run(a, per_round, &pos);
			lat[i] = run(o, OP_CONTAINS_SERIAL, false, key_hit, first, per_round, n, NULL);
		}
		ratio[i] = lat[i] / fl[i];
	}
	r->hit_serial = median(lat, rounds);
	r->floor_ns = median(fl, rounds);
	r->ratio = median(ratio, rounds);
	free(a);
}

/*
 * One filter for n items: n - m 64-bit keys, then m URLs (m = n / 2, at
 * most 'lookups'), each kind of add timed on its own; every lookup then
 * sees the filter of its full size holding n items.
 */
static result
bench_variant(bf_variant v, uint64_t n, uint64_t lookups, int rounds)
{
	result		r;
	owned		o;
	uint64_t	found,
				m = n / 2 < lookups ? n / 2 : lookups,
				n_int = n - m;
	double		t0 = now_ns();

	memset(&r, 0, sizeof(r));
	owned_create(&o, v, n);
	r.add = run(&o, OP_ADD, false, key_seq, 0, n_int, n_int, NULL);
	r.add_url = run(&o, OP_ADD, true, key_seq, 0, m, m, NULL);

	r.hit = run(&o, OP_CONTAINS, false, key_hit, 0, lookups, n_int, &found);
	if (found != lookups)
	{
		fprintf(stderr, "bench_core: %s: %" PRIu64 " false negatives\n",
				bf_variant_name(v), lookups - found);
		exit(1);
	}
	r.miss = run(&o, OP_CONTAINS, false, key_miss, 0, lookups, n_int, &found);
	r.fpr = (double) found / lookups;
	r.hit_url = run(&o, OP_CONTAINS, true, key_hit, 0, lookups, m, &found);
	if (found != lookups)
	{
		fprintf(stderr, "bench_core: %s: false negatives on URLs\n",
				bf_variant_name(v));
		exit(1);
	}
	r.miss_url = run(&o, OP_CONTAINS, true, key_miss, 0, lookups, m, NULL);
	latency_vs_floor(&o, n_int, lookups / 10 / rounds + 1, rounds, &r);
	r.bytes = owned_bytes(&o);
	owned_free(&o);
	r.seconds = (now_ns() - t0) / 1e9;
	return r;
}

int
main(int argc, char **argv)
{
	uint64_t	sizes[8] = {1000000, 100000000};
	int			nsizes = 2,
				i,
				v;
	double		budget = getenv("BENCH_CORE_BUDGET") ? atof(getenv("BENCH_CORE_BUDGET")) : 120;
	uint64_t	lookups = getenv("BENCH_CORE_LOOKUPS") ?
		strtoull(getenv("BENCH_CORE_LOOKUPS"), NULL, 10) : 10000000;
	int			rounds = getenv("BENCH_REPEAT") ? atoi(getenv("BENCH_REPEAT")) : 5;
	static const char *const names[] = {"", "blocked", "classic", "counting",
	"scalable", "cuckoo"};
	result		last[BF_VARIANT_MAX + 1];
	uint64_t	last_n[BF_VARIANT_MAX + 1] = {0};

	if (argc > 1)
	{
		nsizes = 0;
		for (i = 1; i < argc && nsizes < 8; i++)
			sizes[nsizes++] = strtoull(argv[i], NULL, 10);
	}
	if (lookups < 1000)
		lookups = 1000;
	if (rounds < 1)
		rounds = 1;

	printf("p = %g, seed %d; %" PRIu64 " lookups per figure (serialised: %" PRIu64 "); "
		   "buffers 64-byte aligned\n", FPR, SEED, lookups, lookups / 10);
	printf("add/hit/miss: 64-bit keys hashed before the clock starts (the filter's own cost)\n");
	printf("+url: 60-byte URL-like strings, bf_hash_bytes inside the timed loop\n");
	printf("one filter per row holds n items: n - m 64-bit keys, then m URLs (m = min(n/2, lookups))\n");
	printf("serial hit: one lookup at a time (lfence after each): latency, not throughput\n");
	printf("floor: one dependent random read in an array of the filter's size (pointer chasing)\n");
	printf("ser/fl: median over %d alternating rounds of serial hit / floor (the columns are medians)\n",
		   rounds);
	printf("fpr: measured on the misses; \"ok\" when at most p + 3 sigma\n");

	for (i = 0; i < nsizes; i++)
	{
		uint64_t	n = sizes[i];
		double		blocked_ratio = -1;
		uint64_t	blocked_bytes = 0;

		printf("\nn = %" PRIu64 "\n", n);
		printf("%-9s %9s %7s %7s %7s %8s %8s %8s %8s %7s %6s %8s %8s\n",
			   "variant", "MB", "add", "hit", "miss", "add+url", "hit+url",
			   "miss+url", "serial", "floor", "ser/fl", "fpr", "seconds");
		printf("%-9s %9s %7s %7s %7s %8s %8s %8s %8s %7s %6s %8s %8s\n",
			   "", "", "ns", "ns", "ns", "ns", "ns", "ns", "hit ns", "ns", "", "", "");
		for (v = BF_VARIANT_MIN; v <= BF_VARIANT_MAX; v++)
		{
			bf_params	p;
			bf_status	st;
			result		r;

			st = bf_plan((bf_variant) v, n, FPR, SEED, &p);
			if (st != BF_OK)
			{
				printf("%-9s skipped: bf_plan says %s\n", bf_variant_name((bf_variant) v),
					   bf_status_message(st));
				continue;
			}
			if (p.total_bytes > MAX_BYTES_LARGE)
			{
				printf("%-9s skipped: the filter would take %.0f MB (more than 1 GB)\n",
					   bf_variant_name((bf_variant) v), p.total_bytes / 1048576.0);
				continue;
			}
			if (last_n[v] && n > last_n[v])
			{
				/*
				 * From the smaller n's figures: every operation a few times
				 * dearer out of cache, plus preparing the keys
				 */
				const result *l = &last[v];
				double		est = (n * l->add +
								   lookups * (l->add_url + l->hit + l->miss + l->hit_url + l->miss_url)) * 4e-9 +
					(n + 5.0 * lookups) * 40e-9;

				if (est > budget)
				{
					printf("%-9s skipped: would take about %.0f s (estimated from n = %" PRIu64
						   "), more than BENCH_CORE_BUDGET = %.0f s\n",
						   names[v], est, last_n[v], budget);
					continue;
				}
			}
			r = bench_variant((bf_variant) v, n, lookups, rounds);
			last[v] = r;
			last_n[v] = n;
			printf("%-9s %9.2f %7.1f %7.1f %7.1f %8.1f %8.1f %8.1f %8.1f %7.1f %6.2f %8.5f %8.1f  %s\n",
				   bf_variant_name((bf_variant) v), r.bytes / 1048576.0,
				   r.add, r.hit, r.miss, r.add_url, r.hit_url, r.miss_url,
				   r.hit_serial, r.floor_ns, r.ratio, r.fpr,
				   r.seconds,
				   r.fpr <= FPR + 3 * sqrt(FPR * (1 - FPR) / lookups) ? "fpr ok" : "FPR ABOVE TARGET");
			if (v == BF_BLOCKED)
			{
				blocked_ratio = r.ratio;
				blocked_bytes = r.bytes;
			}
			fflush(stdout);
		}
		if (blocked_ratio < 0)
			continue;
		if (blocked_bytes >= OUT_OF_CACHE)
			printf("blocked serial hit / floor = %.2f   target <= %.1f (one cache miss per lookup)   %s\n",
				   blocked_ratio, RATIO_TARGET,
				   blocked_ratio <= RATIO_TARGET ? "meets target" : "above target");
		else
			printf("blocked serial hit / floor = %.2f   (no target: a %.1f MB filter stays in cache, "
				   "the floor is a cache hit; the target applies from %d MB)\n",
				   blocked_ratio, blocked_bytes / 1048576.0, (int) (OUT_OF_CACHE >> 20));
	}
	return 0;
}
