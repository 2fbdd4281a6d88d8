/*
 * test_hash.c
 *		Core unit tests: element hashing.  XXH3-128 with seed of canonical
 *		bytes (both hash schemes; integers in scheme 1: bf_hash_int64), and
 *		scheme 2's hash of integers, two 64-bit finalisers (bf_hash_integer).
 *
 * The expected values come from two places: xxHash itself and the
 * finaliser written out here from STORAGE.md section 5, and constants
 * computed once independently (in Python) and written down, so that a
 * change of hashing (which would make every stored filter unreadable) fails
 * even if the library and the core changed together.
 */
#include <math.h>
#include <stdint.h>
#include <xxhash.h>

#include "bf.h"
#include "check.h"

static bf_hash
reference(const void *data, size_t len, uint64_t seed)
{
	XXH128_hash_t x = XXH3_128bits_withSeed(data, len, (XXH64_hash_t) seed);
	bf_hash		h;

	h.lo = x.low64;
	h.hi = x.high64;
	return h;
}

static int
same(bf_hash a, bf_hash b)
{
	return a.lo == b.lo && a.hi == b.hi;
}

static void
le_bytes(int64_t v, unsigned char out[8])
{
	uint64_t	u = (uint64_t) v;
	int			i;

	for (i = 0; i < 8; i++)
		out[i] = (unsigned char) (u >> (8 * i));
}

static const uint64_t seeds[] = {
	0, 1, 2, UINT64_C(0x8000000000000000), UINT64_MAX
};

#define NSEEDS (sizeof(seeds) / sizeof(seeds[0]))

static void
test_integers(void)
{
	static const int64_t values[] = {
		0, 1, 42, 255, 256, -1, -42, INT64_MAX, INT64_MIN,
		INT64_C(0x0102030405060708), INT64_C(2147483647),
		INT64_C(-2147483648), INT64_C(4294967296)
	};
	size_t		i,
				s;

	check_group("integers hash as 8 little-endian bytes");
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		for (s = 0; s < NSEEDS; s++)
		{
			unsigned char le[8];
			bf_hash		a = bf_hash_int64(values[i], seeds[s]),
						b;

			le_bytes(values[i], le);
			b = bf_hash_bytes(le, 8, seeds[s]);
			CHECK(same(a, b), "int64 %lld seed %llx: %016llx%016llx vs bytes %016llx%016llx",
				  (long long) values[i], (unsigned long long) seeds[s],
				  (unsigned long long) a.hi, (unsigned long long) a.lo,
				  (unsigned long long) b.hi, (unsigned long long) b.lo);
			CHECK(same(a, reference(le, 8, seeds[s])),
				  "int64 %lld seed %llx differs from XXH3-128",
				  (long long) values[i], (unsigned long long) seeds[s]);
		}
	{
		static const unsigned char b42[8] = {42, 0, 0, 0, 0, 0, 0, 0};
		static const unsigned char minus1[8] = {
			0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF
		};
		static const unsigned char minus2[8] = {
			0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF
		};
		static const unsigned char min[8] = {0, 0, 0, 0, 0, 0, 0, 0x80};

		CHECK(same(bf_hash_int64(42, 0), bf_hash_bytes(b42, 8, 0)),
			  "42 is not {42,0,0,0,0,0,0,0}");
		CHECK(same(bf_hash_int64(-1, 0), bf_hash_bytes(minus1, 8, 0)),
			  "-1 is not eight 0xFF bytes");
		CHECK(same(bf_hash_int64(-2, 7), bf_hash_bytes(minus2, 8, 7)),
			  "-2 is not FE FF .. FF");
		CHECK(same(bf_hash_int64(INT64_MIN, 0), bf_hash_bytes(min, 8, 0)),
			  "INT64_MIN is not 00 .. 00 80");
		/* 42 is not hashed as 4 bytes, nor as text */
		CHECK(!same(bf_hash_int64(42, 0), bf_hash_bytes(b42, 4, 0)),
			  "42 hashes like its 4-byte form");
		CHECK(!same(bf_hash_int64(42, 0), bf_hash_bytes("42", 2, 0)),
			  "42 hashes like the text \"42\"");
		CHECK(!same(bf_hash_int64(1, 0), bf_hash_int64(-1, 0)) &&
			  !same(bf_hash_int64(0, 0), bf_hash_int64(INT64_MIN, 0)),
			  "sign lost");
	}
	check_group_end();
}

/* Every length class of XXH3 (0, 1-3, 4-8, 9-16, 17-128, 129-240, longer) */
static void
test_bytes_against_xxh3(void)
{
	size_t		big = check_quick() ? 100000 : 3000000,
				len,
				s,
				off;
	unsigned char *buf = check_malloc(big + 8);
	uint64_t	x = 1;
	unsigned long mismatches = 0;

	check_group("bf_hash_bytes is XXH3-128 with seed at every length");
	for (len = 0; len < big + 8; len++)
	{
		x = x * UINT64_C(6364136223846793005) + 1;
		buf[len] = (unsigned char) (x >> 56);
	}
	for (len = 0; len <= 1100; len++)
		for (s = 0; s < NSEEDS; s++)
			for (off = 0; off < 2; off++)	/* aligned and unaligned */
				mismatches += !same(bf_hash_bytes(buf + off, len, seeds[s]),
									reference(buf + off, len, seeds[s]));
	CHECK(mismatches == 0, "%lu mismatches for lengths 0..1100", mismatches);
	for (s = 0; s < NSEEDS; s++)
		CHECK(same(bf_hash_bytes(buf + 3, big, seeds[s]),
				   reference(buf + 3, big, seeds[s])),
			  "%lu bytes, seed %llx", (unsigned long) big,
			  (unsigned long long) seeds[s]);
	/* an empty input may come with any pointer, even NULL */
	CHECK(same(bf_hash_bytes(NULL, 0, 0), reference("", 0, 0)),
		  "NULL, 0 differs from the empty string");
	free(buf);
	check_group_end();
}

static void
test_seeds(void)
{
	unsigned long same_seed_differs = 0,
				lo_equal = 0,
				hi_equal = 0;
	int			i;
	size_t		s,
				t;

	check_group("seeds: the same seed repeats, different seeds differ");
	for (i = 0; i < 2000; i++)
	{
		char		key[32];
		int			len = snprintf(key, sizeof(key), "key-%d", i);

		for (s = 0; s < NSEEDS; s++)
		{
			bf_hash		a = bf_hash_bytes(key, (size_t) len, seeds[s]);

			same_seed_differs += !same(a, bf_hash_bytes(key, (size_t) len,
														seeds[s]));
			same_seed_differs += !same(bf_hash_int64(i, seeds[s]),
									   bf_hash_int64(i, seeds[s]));
			for (t = 0; t < s; t++)
			{
				bf_hash		b = bf_hash_bytes(key, (size_t) len, seeds[t]);
				bf_hash		c = bf_hash_int64(i, seeds[s]),
							d = bf_hash_int64(i, seeds[t]);

				lo_equal += (a.lo == b.lo) + (c.lo == d.lo);
				hi_equal += (a.hi == b.hi) + (c.hi == d.hi);
			}
		}
	}
	CHECK(same_seed_differs == 0, "%lu repeats differ", same_seed_differs);
	/* each half must change with the seed: blocks and positions both move */
	CHECK(lo_equal == 0 && hi_equal == 0,
		  "different seeds agree: %lu low halves, %lu high halves",
		  lo_equal, hi_equal);
	check_group_end();
}

/*
 * A hash that left some output bit stuck would still pass the tests above;
 * every bit of both halves must be set for about half of many keys:
 * check_balance takes the hashes of n keys, key(i) for i < n
 */
static void
check_balance(bf_hash (*key) (int), int n)
{
	unsigned long ones[128];
	unsigned long halves_equal = 0;
	int			i,
				b,
				worst = 0;
	double		worst_dev = 0.0;

	memset(ones, 0, sizeof(ones));
	for (i = 0; i < n; i++)
	{
		bf_hash		h = key(i);

		halves_equal += h.lo == h.hi;
		for (b = 0; b < 64; b++)
		{
			ones[b] += (h.lo >> b) & 1;
			ones[64 + b] += (h.hi >> b) & 1;
		}
	}
	for (b = 0; b < 128; b++)
	{
		/* 6 standard deviations of a fair coin over n keys */
		double		dev = ((double) ones[b] - n / 2.0) / (0.5 * sqrt((double) n));

		if (dev < 0)
			dev = -dev;
		if (dev > worst_dev)
		{
			worst_dev = dev;
			worst = b;
		}
	}
	CHECK(worst_dev < 6.0, "bit %d of the %s half is set %lu times in %d",
		  worst % 64, worst < 64 ? "low" : "high", ones[worst], n);
	CHECK(halves_equal == 0, "%lu keys with equal halves", halves_equal);
	printf("     most unbalanced output bit: %.2f standard deviations\n",
		   worst_dev);
}

static bf_hash
bytes_key(int i)
{
	return check_key((unsigned long long) i, 0, 0);
}

static void
test_bit_balance(void)
{
	check_group("output bits are balanced");
	check_balance(bytes_key, 100000);
	check_group_end();
}

static void
test_known_answers(void)
{
	static const unsigned char b42[8] = {42, 0, 0, 0, 0, 0, 0, 0};
	static const struct
	{
		const char *name;
		const void *data;
		size_t		len;
		uint64_t	seed;
		int			int64;		/* hash the value 42 through bf_hash_int64 */
		uint64_t	lo,
					hi;
	}			kat[] = {
		{"bf_hash_bytes(\"\", 0, 0)", "", 0, 0, 0,
		UINT64_C(0x6001c324468d497f), UINT64_C(0x99aa06d3014798d8)},
		{"bf_hash_bytes(\"abc\", 3, 0)", "abc", 3, 0, 0,
		UINT64_C(0x78af5f94892f3950), UINT64_C(0x06b05ab6733a6185)},
		{"bf_hash_bytes(\"abc\", 3, 1)", "abc", 3, 1, 0,
		UINT64_C(0x6b4467b443c76228), UINT64_C(0x7577b06fae9ee3ed)},
		{"bf_hash_int64(42, 0)", b42, 8, 0, 1,
		UINT64_C(0x61c2164e8b895a45), UINT64_C(0x9bab3e2f55e1fe86)},
		{"bf_hash_int64(42, 2^64-1)", b42, 8, UINT64_MAX, 1,
		UINT64_C(0xcbe1a6d182f4fb95), UINT64_C(0xc57e8b9e78cd886a)},
		{"bf_hash_bytes(\"https://example.com/page/1\", 25, 0)",
			"https://example.com/page/1", 25, 0, 0,
		UINT64_C(0x41d55866a31d6486), UINT64_C(0x075cd297140ee3c2)},
	};
	size_t		i;

	check_group("known answers (XXH3-128: both schemes; integers in scheme 1)");
	for (i = 0; i < sizeof(kat) / sizeof(kat[0]); i++)
	{
		bf_hash		h = kat[i].int64 ? bf_hash_int64(42, kat[i].seed) :
			bf_hash_bytes(kat[i].data, kat[i].len, kat[i].seed);
		bf_hash		r = reference(kat[i].data, kat[i].len, kat[i].seed);

		printf("     %-52s lo=%016llx hi=%016llx\n", kat[i].name,
			   (unsigned long long) h.lo, (unsigned long long) h.hi);
		CHECK(same(h, r), "%s differs from XXH3_128bits_withSeed", kat[i].name);
		CHECK(h.lo == kat[i].lo && h.hi == kat[i].hi,
			  "%s: want lo=%016llx hi=%016llx", kat[i].name,
			  (unsigned long long) kat[i].lo, (unsigned long long) kat[i].hi);
	}
	check_group_end();
}

/* ---- hash scheme 2: integers (STORAGE.md section 5) ---- */

/* MurmurHash3's fmix64, as STORAGE.md writes it */
static uint64_t
doc_fmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* lo = fmix64(v XOR seed), hi = fmix64(v XOR seed XOR 0x9e3779b97f4a7c15) */
static bf_hash
doc_hash_integer(int64_t v, uint64_t seed)
{
	uint64_t	x = (uint64_t) v ^ seed;
	bf_hash		h;

	h.lo = doc_fmix64(x);
	h.hi = doc_fmix64(x ^ UINT64_C(0x9e3779b97f4a7c15));
	return h;
}

/* STORAGE.md section 5's table of bf_hash_integer, computed in Python */
static void
test_integer_known_answers(void)
{
	static const struct
	{
		int64_t		value;
		uint64_t	seed;
		uint64_t	lo,
					hi;
	}			kat[] = {
		{0, 0, UINT64_C(0x0000000000000000), UINT64_C(0x9ca066f1a4ab2eea)},
		{1, 0, UINT64_C(0xb456bcfc34c2cb2c), UINT64_C(0x25b775faeca8f520)},
		{42, 0, UINT64_C(0x810879608e4259cc), UINT64_C(0x2d1c8760f8047fc7)},
		{-1, 0, UINT64_C(0x64b5720b4b825f21), UINT64_C(0x3cd617bbbcc39640)},
		{42, UINT64_MAX, UINT64_C(0x14e1b569064d7c07), UINT64_C(0x974f2d8fd9a87c28)},
		{-1, UINT64_MAX, UINT64_C(0x0000000000000000), UINT64_C(0x9ca066f1a4ab2eea)},
		{INT64_MIN, 0, UINT64_C(0x8f780810af31a493), UINT64_C(0x11c0b7745eb88d61)},
		{INT64_MAX, 0, UINT64_C(0xabb93df0a930edea), UINT64_C(0xf2a9e4c522cf7451)},
		{42, 1234567, UINT64_C(0x2bf559ea967aedac), UINT64_C(0xf8ddfa0fd0d12ae1)},
	};
	size_t		i;

	check_group("known answers (hash scheme 2's integers)");
	for (i = 0; i < sizeof(kat) / sizeof(kat[0]); i++)
	{
		bf_hash		h = bf_hash_integer(kat[i].value, kat[i].seed);

		printf("     bf_hash_integer(%lld, %llu): lo=%016llx hi=%016llx\n",
			   (long long) kat[i].value, (unsigned long long) kat[i].seed,
			   (unsigned long long) h.lo, (unsigned long long) h.hi);
		CHECK(h.lo == kat[i].lo && h.hi == kat[i].hi,
			  "bf_hash_integer(%lld, %llu): lo=%016llx hi=%016llx, want "
			  "lo=%016llx hi=%016llx", (long long) kat[i].value,
			  (unsigned long long) kat[i].seed, (unsigned long long) h.lo,
			  (unsigned long long) h.hi, (unsigned long long) kat[i].lo,
			  (unsigned long long) kat[i].hi);
	}
	/* the finaliser itself, as section 5's table of fmix64 gives it */
	CHECK(bf_fmix64(1) == UINT64_C(0xb456bcfc34c2cb2c) &&
		  bf_fmix64(UINT64_C(0x123456789abcdef0)) == UINT64_C(0x18b8c062f6f42398) &&
		  bf_fmix64(0) == 0, "bf_fmix64 differs from STORAGE.md section 5");
	check_group_end();
}

static void
test_integer_hash(void)
{
	static const int64_t values[] = {
		0, 1, 2, 42, 255, 256, -1, -2, -42, INT64_MAX, INT64_MIN,
		INT64_C(0x0102030405060708), INT64_C(2147483647),
		INT64_C(-2147483648), INT64_C(4294967296),
		(int64_t) UINT64_C(0x9e3779b97f4a7c15)
	};
	const size_t nvalues = sizeof(values) / sizeof(values[0]);
	unsigned long formula = 0,
				like_xxh3 = 0,
				seeds_agree = 0,
				values_agree = 0;
	uint64_t	rng = 2026;
	size_t		i,
				j,
				s,
				t;

	check_group("integers under hash scheme 2: the documented formula");
	for (i = 0; i < nvalues; i++)
		for (s = 0; s < NSEEDS; s++)
		{
			bf_hash		h = bf_hash_integer(values[i], seeds[s]);

			formula += !same(h, doc_hash_integer(values[i], seeds[s]));
			/* not scheme 1's hash: XXH3 of the 8 bytes */
			like_xxh3 += h.lo == bf_hash_int64(values[i], seeds[s]).lo ||
				h.hi == bf_hash_int64(values[i], seeds[s]).hi;
			for (t = 0; t < s; t++)
			{
				bf_hash		g = bf_hash_integer(values[i], seeds[t]);

				seeds_agree += (h.lo == g.lo) + (h.hi == g.hi);
			}
			for (j = 0; j < i; j++)
			{
				bf_hash		g = bf_hash_integer(values[j], seeds[s]);

				values_agree += (h.lo == g.lo) + (h.hi == g.hi);
			}
		}
	for (i = 0; i < 100000; i++)
	{
		int64_t		v = (int64_t) check_random(&rng);
		uint64_t	seed = check_random(&rng);

		formula += !same(bf_hash_integer(v, seed), doc_hash_integer(v, seed));
	}
	CHECK(formula == 0, "%lu hashes differ from STORAGE.md's formula", formula);
	CHECK(like_xxh3 == 0, "%lu halves equal scheme 1's (XXH3 of 8 bytes)",
		  like_xxh3);
	/* fmix64 is a bijection: another seed or value moves both halves */
	CHECK(seeds_agree == 0, "%lu halves equal under different seeds",
		  seeds_agree);
	CHECK(values_agree == 0, "%lu halves equal for different values",
		  values_agree);
	check_group_end();
}

/*
 * Consecutive integers, the keys most columns hold, through bf_hash_integer:
 * every bit of both halves set for about half of them, and the halves never
 * equal (a blocked filter takes its block from hi and its bits from lo)
 */
/* 0, -1, 1, -2, 2, ...: both signs, consecutive */
static bf_hash
integer_key(int i)
{
	return bf_hash_integer(i % 2 ? -(int64_t) (i / 2) - 1 : (int64_t) (i / 2), 0);
}

static void
test_integer_bit_balance(void)
{
	check_group("hash scheme 2's integers: output bits are balanced");
	check_balance(integer_key, 100000);
	check_group_end();
}

int
main(void)
{
	test_known_answers();
	test_integers();
	test_bytes_against_xxh3();
	test_seeds();
	test_bit_balance();
	test_integer_known_answers();
	test_integer_hash();
	test_integer_bit_balance();
	return check_summary("test_hash");
}
