/*
 * check.h
 *		A minimal assertion kit shared by the core unit tests.
 *
 * CHECK records a failure and prints where and why, then carries on, so one
 * run reports every broken property instead of the first.  Each test prints
 * one line per group of checks (check_group / check_group_end) and ends with
 * check_summary(), whose value is main's exit status.
 *
 * Helpers are static inline so that a test may leave some unused.
 *
 * Environment understood by every test:
 *		BF_TEST_QUICK=1		shorten big cases (the sanitizer build sets it)
 *		BF_TEST_BIG=1		run the very large cases (ignored when QUICK is set)
 */
#ifndef BF_CHECK_H
#define BF_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"

static int	check_total;		/* checks evaluated */
static int	check_failed;		/* checks that failed, in all */
static int	check_group_failed; /* failures at the start of the group */
static const char *check_group_name;
static clock_t check_group_start;

#if defined(__GNUC__)
static inline void check_fail(const char *file, int line, const char *cond,
					   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#endif

static inline void
check_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list		ap;

	check_failed++;
	va_start(ap, fmt);
	report_failure(stdout, "  FAIL ", file, line, cond, fmt, ap);
	va_end(ap);
}

/* CHECK(cond, fmt, ...): the message should say what was seen */
#define CHECK(cond, ...) \
	do { \
		check_total++; \
		if (!(cond)) \
			check_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

static inline void
check_group(const char *name)
{
	check_group_name = name;
	check_group_failed = check_failed;
	check_group_start = clock();
}

static inline void
check_group_end(void)
{
	double		secs = (double) (clock() - check_group_start) / CLOCKS_PER_SEC;
	int			failed = check_failed - check_group_failed;

	printf("%-4s %s (%.2f s)\n", failed ? "FAIL" : "ok", check_group_name, secs);
	if (failed)
		printf("     %d check(s) failed in this group\n", failed);
	fflush(stdout);
}

/* Prints the final line; the value is main's exit status */
static inline int
check_summary(const char *program)
{
	printf("%s: %s, %d checks, %d failed\n", program,
		   check_failed ? "FAILED" : "passed", check_total, check_failed);
	return check_failed ? 1 : 0;
}

static inline int
check_env_set(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* True in the sanitizer build: big cases shrink */
static inline int
check_quick(void)
{
	return check_env_set("BF_TEST_QUICK");
}

static inline void *
check_malloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
	{
		printf("out of memory allocating %lu bytes\n", (unsigned long) n);
		exit(2);
	}
	return p;
}

/* High 64 bits of a 64 x 64-bit product, in 32-bit pieces */
static inline uint64_t
check_mulhi(uint64_t a, uint64_t b)
{
	uint64_t	a0 = a & 0xFFFFFFFFu,
				a1 = a >> 32,
				b0 = b & 0xFFFFFFFFu,
				b1 = b >> 32;
	uint64_t	p00 = a0 * b0,
				p01 = a0 * b1,
				p10 = a1 * b0,
				p11 = a1 * b1;
	uint64_t	mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);

	return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

static inline int
check_popcount8(unsigned char c)
{
	int			n = 0;

	for (; c; c &= (unsigned char) (c - 1))
		n++;
	return n;
}

/* Little-endian readers independent of the core's own */
static inline unsigned long long
check_le64(const unsigned char *p)
{
	unsigned long long v = 0;
	int			i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline unsigned long
check_le32(const unsigned char *p)
{
	return (unsigned long) p[0] | (unsigned long) p[1] << 8 |
		(unsigned long) p[2] << 16 | (unsigned long) p[3] << 24;
}

static inline void
check_put_le64(unsigned char *p, unsigned long long v)
{
	int			i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char) (v >> (8 * i));
}

static inline void
check_put_le32(unsigned char *p, unsigned long v)
{
	int			i;

	for (i = 0; i < 4; i++)
		p[i] = (unsigned char) (v >> (8 * i));
}

static inline double
check_le_double(const unsigned char *p)
{
	unsigned long long bits = check_le64(p);
	double		d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static inline void
check_put_double(unsigned char *p, double d)
{
	unsigned long long bits;

	memcpy(&bits, &d, sizeof(bits));
	check_put_le64(p, bits);
}

#ifdef BF_H

/*
 * Test keys, drawn from two namespaces that never meet: key i of the "added"
 * set is the integer i (even i) or the URL https://example.com/page/<i> (odd
 * i); stranger i is the integer -(i + 1) (even i) or
 * https://example.com/other/<i> (odd i).  Integers hash as 8 bytes and the
 * URLs are longer, so no stranger shares canonical bytes with an added key.
 */
static inline bf_hash
check_key(unsigned long long i, int stranger, uint64_t seed)
{
	static const char page[] = "https://example.com/page/";
	static const char other[] = "https://example.com/other/";
	char		url[64];
	char		digits[24];
	size_t		len,
				nd = 0;

	if (i % 2 == 0)
		return bf_hash_int64(stranger ? -(int64_t) i - 1 : (int64_t) i, seed);
	/* by hand rather than snprintf: the big runs make 10^8 of these */
	len = stranger ? sizeof(other) - 1 : sizeof(page) - 1;
	memcpy(url, stranger ? other : page, len);
	do
	{
		digits[nd++] = (char) ('0' + i % 10);
		i /= 10;
	} while (i);
	while (nd)
		url[len++] = digits[--nd];
	return bf_hash_bytes(url, len, seed);
}

/* A filter in a malloc'd buffer of exactly its size */
typedef struct built
{
	unsigned char *buf;
	size_t		len;
	bf_filter	f;
} built;

/* bf_open of b's bytes (new, grown or replaced); a failure ends the test */
static inline void
check_open_built(built *b)
{
	bf_status	st = bf_open(b->buf, b->len, &b->f);

	if (st != BF_OK)
	{
		CHECK(0, "cannot open a filter: %s", bf_status_message(st));
		exit(2);
	}
}

/* An empty filter of 'p' */
static inline void
check_build_empty(const bf_params *p, built *b)
{
	b->len = (size_t) p->total_bytes;
	b->buf = check_malloc(b->len);
	bf_init(p, b->buf);
	check_open_built(b);
}

/* A filter of 'p' holding keys [from, to), added with bf_add */
static inline void
check_build(const bf_params *p, uint64_t from, uint64_t to, built *b)
{
	uint64_t	i;

	check_build_empty(p, b);
	for (i = from; i < to; i++)
		bf_add(&b->f, check_key(i, 0, b->f.seed));
}

/* Probes 'probes' strangers; returns the fraction found */
static inline double
check_measure(const bf_filter *f, uint64_t probes)
{
	uint64_t	i,
				fp = 0;

	for (i = 0; i < probes; i++)
		fp += bf_contains(f, check_key(i, 1, f->seed));
	return (double) fp / (double) probes;
}

/*
 * The rate a stranger sees in this filter (blocked or classic), from its
 * bits, counted here: it lands in a block (blocked) or anywhere (classic) and
 * finds k positions drawn with replacement from the bits it may test.  Unlike
 * the model it needs no assumption about how evenly the items fell, so it
 * judges small filters, whose loads are a single draw, fairly.
 */
static inline double
check_fill_rate(const bf_filter *f)
{
	uint64_t	i,
				b;
	int			pop[256];
	double		sum = 0.0;

	for (i = 0; i < 256; i++)
		pop[i] = check_popcount8((unsigned char) i);
	if (f->variant == BF_CLASSIC)
	{
		uint64_t	set = 0;

		for (i = 0; i < f->payload_bytes; i++)
			set += (uint64_t) pop[f->payload[i]];
		return pow((double) set / (double) f->bits, f->hashes);
	}
	for (b = 0; b < f->blocks; b++)
	{
		uint64_t	set = 0;

		for (i = 0; i < 64; i++)
			set += (uint64_t) pop[f->payload[b * 64 + i]];
		sum += pow((double) set / 512.0, f->hashes);
	}
	return sum / (double) f->blocks;
}

/* Counts the calls of a yield hook in *(unsigned long *) arg */
static inline void
check_count_yield(void *arg)
{
	(*(unsigned long *) arg)++;
}

/*
 * Union, intersection and fill of a (a and b of about 4 MB of payload) call
 * the yield hook about once a megabyte: 3 to 5 times each
 */
static inline void
check_yields(const char *what, built *a, const built *b)
{
	unsigned long yields = 0;
	bf_fill_stats stats;

	bf_union(&a->f, &b->f, check_count_yield, &yields);
	CHECK(yields >= 3 && yields <= 5, "%s: union yielded %lu times", what, yields);
	yields = 0;
	bf_intersect(&a->f, &b->f, check_count_yield, &yields);
	CHECK(yields >= 3 && yields <= 5, "%s: intersect yielded %lu times", what,
		  yields);
	yields = 0;
	bf_fill(&a->f, &stats, check_count_yield, &yields);
	CHECK(yields >= 3 && yields <= 5, "%s: fill yielded %lu times", what, yields);
}

#endif							/* BF_H */

/*
 * Header field offsets, from STORAGE.md section 2 (written out here rather
 * than taken from the core, so that the tests check the core against the
 * documented layout)
 */
#define OFF_MAGIC		0
#define OFF_VERSION		4
#define OFF_VARIANT		5
#define OFF_SCHEME		6
#define OFF_FLAGS		7
#define OFF_HASHES		8
#define OFF_VARIANT_WORD	12
#define OFF_SEED		16
#define OFF_BITS		24
#define OFF_ITEMS		32
#define OFF_EXPECTED	40
#define OFF_TARGET		48
#define OFF_PAYLOAD		56

#ifdef BF_H

/*
 * The reference rules of STORAGE.md section 3 for a filter of one stage
 * (blocked, classic, counting), from the bytes alone, in two parts around a
 * validator's own rules.  check_ref_head: the length of a header, magic,
 * version, hash scheme (1 or 2: rule 5), flags, a zero variant word, 1 to
 * 64 hashes and 1 to the most bits BF_MAX_BYTES holds; returns the variant
 * byte (whose rules, and the bit count's, are the caller's), or 0 when a
 * rule is broken.
 */
static inline unsigned
check_ref_head(const unsigned char *b, size_t len)
{
	unsigned long hashes;
	unsigned long long bits;

	if (len < BF_HEADER_SIZE)
		return 0;
	if (memcmp(b + OFF_MAGIC, "BLMF", 4) != 0 || b[OFF_VERSION] != 1)
		return 0;
	if ((b[OFF_SCHEME] != 1 && b[OFF_SCHEME] != 2) || b[OFF_FLAGS] != 0 ||
		check_le32(b + OFF_VARIANT_WORD) != 0)
		return 0;
	hashes = check_le32(b + OFF_HASHES);
	if (hashes < 1 || hashes > 64)
		return 0;
	bits = check_le64(b + OFF_BITS);
	if (bits < 1 || bits > (BF_MAX_BYTES - BF_HEADER_SIZE) * 8)
		return 0;
	return b[OFF_VARIANT];
}

/*
 * check_ref_tail, once the caller has 'payload' checked against the bit
 * count: the payload within BF_MAX_BYTES, the target rule and the exact
 * length (so that the caller may then read the payload's padding)
 */
static inline int
check_ref_tail(const unsigned char *b, size_t len, unsigned long long payload)
{
	double		target = check_le_double(b + OFF_TARGET);

	if (BF_HEADER_SIZE + payload > BF_MAX_BYTES)
		return 0;
	/* built from a bit count (both zero) or sized for a rate (both set) */
	if (check_le64(b + OFF_TARGET) == 0)
	{
		if (check_le64(b + OFF_EXPECTED) != 0)
			return 0;
	}
	else if (!(target > 0.0 && target < 1.0) ||
			 check_le64(b + OFF_EXPECTED) == 0)
		return 0;
	return len == BF_HEADER_SIZE + payload;
}

#endif							/* BF_H */

/* splitmix64: a reproducible stream for random cases */
static inline uint64_t
check_random(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* The first min(len, alloc) bytes of src in 'alloc' bytes, zero-padded */
static inline unsigned char *
check_dup(const unsigned char *src, size_t len, size_t alloc)
{
	unsigned char *buf = check_malloc(alloc);

	memcpy(buf, src, len < alloc ? len : alloc);
	if (alloc > len)
		memset(buf + len, 0, alloc - len);
	return buf;
}

/*
 * A damaged copy of a serialised filter, for the mutation loops: its length
 * sometimes a few bytes short or long (*len), then 1 to 4 random bytes
 * overwritten, mostly in the 64-byte header, where the decisions are
 */
static inline unsigned char *
check_damage(const unsigned char *src, size_t srclen, uint64_t *rng,
			 size_t *len)
{
	int			nbytes = 1 + (int) (check_random(rng) % 4),
				j;
	unsigned char *b;

	*len = srclen;
	switch (check_random(rng) % 8)
	{
		case 0:
			*len -= (size_t) (check_random(rng) % 9);
			break;
		case 1:
			*len += (size_t) (check_random(rng) % 9);
			break;
		default:
			break;
	}
	b = check_dup(src, srclen, *len);
	for (j = 0; j < nbytes; j++)
	{
		uint64_t r = check_random(rng);
		size_t		off = (r & 3) ? (size_t) ((r >> 8) % 64) :
			(size_t) ((r >> 8) % *len);

		if (off < *len)
			b[off] = (unsigned char) (r >> 40);
	}
	return b;
}

#endif							/* BF_CHECK_H */
