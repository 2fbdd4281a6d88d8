/*
 * test_format.c
 *		Core unit tests: planning, the serialised header, round trips, the
 *		bit positions of both layouts, edge sizes and hostile input to
 *		bf_open.
 *
 * The header is read back here with the test's own little-endian decoding
 * and judged by an independent reference validator written from the rules
 * of STORAGE.md section 3; bit positions are recomputed from STORAGE.md
 * sections 7 and 8, and its worked examples (section 10) are reproduced
 * byte for byte.  A mistake shared by bf_init and bf_open cannot hide.
 */
#include <math.h>
#include <stdint.h>

#include "bf.h"
#include "check.h"

/* Field offsets of the 64-byte header, as documented */

#define MAX_BITS		((BF_MAX_BYTES - BF_HEADER_SIZE) * 8)

/*
 * Largest classic bit count whose padded payload keeps the whole filter
 * within BF_MAX_BYTES: MAX_BITS itself would round its payload up to a
 * 2^30-byte filter.
 */
#define CLASSIC_MAX_BITS	((BF_MAX_BYTES - BF_HEADER_SIZE) / 8 * 64)

static const bf_variant variants[] = {BF_BLOCKED, BF_CLASSIC};

static const char *
vname(bf_variant v)
{
	return v == BF_BLOCKED ? "blocked" : v == BF_CLASSIC ? "classic" : "?";
}

/* A freshly initialised filter of 'p' in a buffer of exactly its size */
static unsigned char *
new_filter(const bf_params *p)
{
	unsigned char *buf = check_malloc((size_t) p->total_bytes);

	bf_init(p, buf);
	return buf;
}

static int
bit_is_set(const unsigned char *payload, uint64_t i)
{
	return (payload[i / 8] >> (i % 8)) & 1;
}

/* Payload bits at or past 'bits' that are set (classic padding) */
static uint64_t
padding_bits_set(const unsigned char *payload, uint64_t bits,
				 uint64_t payload_bytes)
{
	uint64_t	i,
				n = 0;

	for (i = bits; i < payload_bytes * 8; i++)
		n += bit_is_set(payload, i);
	return n;
}

static uint64_t
payload_bits_set(const unsigned char *payload, uint64_t bits)
{
	uint64_t	i,
				n = 0;

	for (i = 0; i < bits; i++)
		n += bit_is_set(payload, i);
	return n;
}

static uint64_t
expected_payload(bf_variant v, uint64_t bits)
{
	if (v == BF_BLOCKED)
		return bits / 8;
	return (bits + 63) / 64 * 8;
}

/*
 * The reference validator: accept or reject from the rules of STORAGE.md
 * section 3 alone.  Returns 1 when the bytes are a valid filter.
 */
static int
ref_valid(const unsigned char *b, size_t len)
{
	unsigned	variant = check_ref_head(b, len);
	unsigned long long bits,
				payload;

	if (variant != BF_BLOCKED && variant != BF_CLASSIC)
		return 0;
	bits = check_le64(b + OFF_BITS);
	if (variant == BF_BLOCKED && bits % 512 != 0)
		return 0;
	payload = check_le64(b + OFF_PAYLOAD);
	if (payload != expected_payload((bf_variant) variant, bits))
		return 0;
	if (!check_ref_tail(b, len, payload))
		return 0;
	if (variant == BF_CLASSIC &&
		padding_bits_set(b + BF_HEADER_SIZE, bits, payload) != 0)
		return 0;
	return 1;
}

/* ---------------------------------------------------------------------- */

static void
check_fresh_header(const bf_params *p, const unsigned char *b,
				   const char *what)
{
	bf_filter	f;
	bf_status	st;
	uint64_t	total = 0,
				i,
				nonzero = 0;

	CHECK(memcmp(b + OFF_MAGIC, "BLMF", 4) == 0, "%s: magic", what);
	CHECK(b[OFF_VERSION] == 1, "%s: version %u", what, b[OFF_VERSION]);
	CHECK(b[OFF_VARIANT] == (unsigned) p->variant, "%s: variant byte %u",
		  what, b[OFF_VARIANT]);
	CHECK(b[OFF_SCHEME] == BF_HASH_SCHEME_CURRENT, "%s: scheme %u", what,
		  b[OFF_SCHEME]);
	CHECK(b[OFF_FLAGS] == 0, "%s: flags %u", what, b[OFF_FLAGS]);
	CHECK(check_le32(b + OFF_VARIANT_WORD) == 0, "%s: reserved", what);
	CHECK(check_le32(b + OFF_HASHES) == p->hashes, "%s: hashes %lu vs %u",
		  what, check_le32(b + OFF_HASHES), (unsigned) p->hashes);
	CHECK(check_le64(b + OFF_SEED) == p->seed, "%s: seed %llx", what,
		  check_le64(b + OFF_SEED));
	CHECK(check_le64(b + OFF_BITS) == p->bits, "%s: bits %llu", what,
		  check_le64(b + OFF_BITS));
	CHECK(check_le64(b + OFF_ITEMS) == 0, "%s: items %llu", what,
		  check_le64(b + OFF_ITEMS));
	CHECK(check_le64(b + OFF_EXPECTED) == p->expected_items,
		  "%s: expected %llu", what, check_le64(b + OFF_EXPECTED));
	CHECK(check_le_double(b + OFF_TARGET) == p->target_fpr,
		  "%s: target %g vs %g", what, check_le_double(b + OFF_TARGET),
		  p->target_fpr);
	CHECK(check_le64(b + OFF_PAYLOAD) == p->payload_bytes,
		  "%s: payload %llu", what, check_le64(b + OFF_PAYLOAD));
	for (i = 0; i < p->payload_bytes; i++)
		nonzero += b[BF_HEADER_SIZE + i] != 0;
	CHECK(nonzero == 0, "%s: %llu payload bytes not zero", what,
		  (unsigned long long) nonzero);

	st = bf_open((void *) b, (size_t) p->total_bytes, &f);
	CHECK(st == BF_OK, "%s: bf_open: %s", what, bf_status_message(st));
	if (st == BF_OK)
	{
		CHECK(f.base == b && f.payload == b + BF_HEADER_SIZE,
			  "%s: view pointers", what);
		CHECK(f.variant == p->variant && f.hashes == p->hashes &&
			  f.seed == p->seed && f.bits == p->bits && f.items == 0 &&
			  f.expected_items == p->expected_items &&
			  f.target_fpr == p->target_fpr &&
			  f.payload_bytes == p->payload_bytes,
			  "%s: view fields differ from the plan", what);
		if (p->variant == BF_BLOCKED)
			CHECK(f.blocks == p->bits / 512, "%s: blocks %llu", what,
				  (unsigned long long) f.blocks);
	}
	st = bf_check_header(b, BF_HEADER_SIZE, &total);
	CHECK(st == BF_OK && total == p->total_bytes,
		  "%s: bf_check_header on the header alone: %s, total %llu", what,
		  bf_status_message(st), (unsigned long long) total);
	CHECK(ref_valid(b, (size_t) p->total_bytes), "%s: reference validator",
		  what);
}

static void
check_params_shape(const bf_params *p, const char *what)
{
	CHECK(p->hashes >= 1 && p->hashes <= BF_MAX_HASHES, "%s: hashes %u",
		  what, (unsigned) p->hashes);
	CHECK(p->bits >= 1, "%s: bits 0", what);
	CHECK(p->payload_bytes % 8 == 0, "%s: payload %llu not 8-aligned", what,
		  (unsigned long long) p->payload_bytes);
	CHECK(p->payload_bytes == expected_payload(p->variant, p->bits),
		  "%s: payload %llu for %llu bits", what,
		  (unsigned long long) p->payload_bytes,
		  (unsigned long long) p->bits);
	CHECK(p->total_bytes == BF_HEADER_SIZE + p->payload_bytes,
		  "%s: total %llu", what, (unsigned long long) p->total_bytes);
	if (p->variant == BF_BLOCKED)
		CHECK(p->bits % 512 == 0, "%s: blocked bits %llu not whole blocks",
			  what, (unsigned long long) p->bits);
}

static void
test_header_fields(void)
{
	static const struct
	{
		uint64_t	items;
		double		fpr;
	}			sizes[] = {
		{1, 0.5}, {1, 0.01}, {2, 0.01}, {10, 0.01}, {1000, 0.01},
		{12345, 0.001}, {100000, 1e-6}, {1000000, 0.05}
	};
	static const uint64_t seeds[] = {
		0, 1, UINT64_C(0x0123456789ABCDEF), UINT64_MAX
	};
	size_t		v,
				s,
				k;
	char		what[128];

	check_group("header fields of planned filters (bf_plan, bf_init, bf_open)");
	for (v = 0; v < 2; v++)
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++)
			{
				bf_params	p;
				bf_status	st;
				unsigned char *buf;

				snprintf(what, sizeof(what), "%s n=%llu p=%g seed=%llx",
						 vname(variants[v]),
						 (unsigned long long) sizes[s].items, sizes[s].fpr,
						 (unsigned long long) seeds[k]);
				memset(&p, 0xA5, sizeof(p));
				st = bf_plan(variants[v], sizes[s].items, sizes[s].fpr,
							 seeds[k], &p);
				CHECK(st == BF_OK, "%s: bf_plan: %s", what,
					  bf_status_message(st));
				if (st != BF_OK)
					continue;
				CHECK(p.variant == variants[v] && p.seed == seeds[k] &&
					  p.expected_items == sizes[s].items &&
					  p.target_fpr == sizes[s].fpr,
					  "%s: plan does not echo its arguments", what);
				check_params_shape(&p, what);
				buf = new_filter(&p);
				check_fresh_header(&p, buf, what);
				free(buf);
			}

	/* bf_plan_bits: expected items and target are 0 */
	for (v = 0; v < 2; v++)
	{
		static const uint64_t bitsizes[] = {1, 512, 1000, 4096, 100003};

		for (s = 0; s < sizeof(bitsizes) / sizeof(bitsizes[0]); s++)
		{
			bf_params	p;
			bf_status	st;
			unsigned char *buf;

			snprintf(what, sizeof(what), "%s plan_bits %llu",
					 vname(variants[v]), (unsigned long long) bitsizes[s]);
			st = bf_plan_bits(variants[v], bitsizes[s], 5, 99, &p);
			CHECK(st == BF_OK, "%s: %s", what, bf_status_message(st));
			if (st != BF_OK)
				continue;
			CHECK(p.expected_items == 0 && p.target_fpr == 0.0 &&
				  p.hashes == 5 && p.seed == 99,
				  "%s: plan_bits fields", what);
			check_params_shape(&p, what);
			buf = new_filter(&p);
			check_fresh_header(&p, buf, what);
			free(buf);
		}
	}
	check_group_end();
}

/* ---------------------------------------------------------------------- */

static void
test_round_trip(void)
{
	const uint64_t n = 20000,
				strangers = 100000;
	size_t		v;

	check_group("round trip: bytes copied and reopened answer the same");
	for (v = 0; v < 2; v++)
	{
		bf_params	p;
		bf_filter	f,
					g;
		unsigned char *buf,
				   *copy;
		uint64_t	i,
					missing = 0,
					differ = 0,
					positives = 0;
		bf_status	st;

		st = bf_plan(variants[v], n, 0.01, 7, &p);
		CHECK(st == BF_OK, "%s: plan", vname(variants[v]));
		if (st != BF_OK)
			continue;
		buf = new_filter(&p);
		st = bf_open(buf, (size_t) p.total_bytes, &f);
		CHECK(st == BF_OK, "%s: open", vname(variants[v]));
		for (i = 0; i < n; i++)
			bf_add(&f, check_key(i, 0, f.seed));
		CHECK(f.items == n, "%s: view items %llu", vname(variants[v]),
			  (unsigned long long) f.items);
		CHECK(check_le64(buf + OFF_ITEMS) == n, "%s: header items %llu",
			  vname(variants[v]), check_le64(buf + OFF_ITEMS));

		copy = check_dup(buf, (size_t) p.total_bytes, (size_t) p.total_bytes);
		st = bf_open(copy, (size_t) p.total_bytes, &g);
		CHECK(st == BF_OK, "%s: open copy: %s", vname(variants[v]),
			  bf_status_message(st));
		if (st == BF_OK)
		{
			CHECK(g.items == n && g.seed == 7 && g.bits == p.bits &&
				  g.hashes == p.hashes && g.expected_items == n &&
				  g.target_fpr == 0.01,
				  "%s: copy fields (items %llu)", vname(variants[v]),
				  (unsigned long long) g.items);
			for (i = 0; i < n; i++)
			{
				bf_hash		h = check_key(i, 0, g.seed);

				missing += !bf_contains(&g, h) + !bf_contains(&f, h);
			}
			for (i = 0; i < strangers; i++)
			{
				bf_hash		h = check_key(i, 1, g.seed);
				bool		a = bf_contains(&f, h),
							b = bf_contains(&g, h);

				differ += a != b;
				positives += a;
			}
			CHECK(missing == 0, "%s: %llu false negatives",
				  vname(variants[v]), (unsigned long long) missing);
			CHECK(differ == 0, "%s: %llu strangers answered differently",
				  vname(variants[v]), (unsigned long long) differ);
			/* a filter that says yes to everything would pass the above */
			CHECK(positives < strangers / 50,
				  "%s: %llu of %llu strangers positive at p = 1 %%",
				  vname(variants[v]), (unsigned long long) positives,
				  (unsigned long long) strangers);
		}
		/* the original reopens with the count the adds wrote */
		st = bf_open(buf, (size_t) p.total_bytes, &g);
		CHECK(st == BF_OK && g.items == n, "%s: reopen original",
			  vname(variants[v]));
		CHECK(ref_valid(copy, (size_t) p.total_bytes),
			  "%s: reference validator rejects the filled filter",
			  vname(variants[v]));
		free(copy);
		free(buf);
	}
	check_group_end();
}

/* ---------------------------------------------------------------------- */

static void
ref_set(unsigned char *payload, uint64_t i)
{
	payload[i / 8] |= (unsigned char) (1u << (i % 8));
}

/*
 * Where an element goes, as the layouts document it (another
 * implementation reading f::bytea must find the same bits):
 *
 * blocked: block = mulhi(h.hi, blocks); x = h.lo; k times: set bit x >> 55
 *   of the block, x = x * 6364136223846793005 + 1442695040888963407.
 * classic: x = mulhi(h.lo, m), y = mulhi(h.hi, m); k times: set bit x,
 *   x = (x + y) mod m, y = (y + i) mod m for i = 1, 2, ...
 */
static void
ref_add(bf_variant v, unsigned char *payload, uint64_t bits, uint32_t k,
		bf_hash h)
{
	uint32_t	i;

	if (v == BF_BLOCKED)
	{
		uint64_t	block = check_mulhi(h.hi, bits / 512),
					x = h.lo;

		for (i = 0; i < k; i++)
		{
			ref_set(payload, block * 512 + (x >> 55));
			x = x * UINT64_C(6364136223846793005) +
				UINT64_C(1442695040888963407);
		}
	}
	else
	{
		uint64_t	x = check_mulhi(h.lo, bits),
					y = check_mulhi(h.hi, bits);

		for (i = 0; i < k; i++)
		{
			ref_set(payload, x);
			x = (x + y) % bits;
			y = (y + i + 1) % bits;
		}
	}
}

static void
test_layout_positions(void)
{
	static const struct
	{
		bf_variant	v;
		uint64_t	bits;
		uint32_t	k;
	}			shapes[] = {
		{BF_BLOCKED, 512, 6}, {BF_BLOCKED, 1024, 1}, {BF_BLOCKED, 51200, 16},
		{BF_BLOCKED, 512 * 70001, 64}, {BF_CLASSIC, 1, 2}, {BF_CLASSIC, 65, 3},
		{BF_CLASSIC, 1000, 7}, {BF_CLASSIC, 1000003, 10},
		{BF_CLASSIC, 1000003, 64}
	};
	size_t		i;

	check_group("bit positions follow the documented layouts");
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
	{
		bf_params	p;
		bf_filter	f;
		unsigned char *buf,
				   *ref;
		uint64_t	key,
					first_bad = UINT64_MAX;
		char		what[64];

		snprintf(what, sizeof(what), "%s %llu bits k=%u", vname(shapes[i].v),
				 (unsigned long long) shapes[i].bits, (unsigned) shapes[i].k);
		if (bf_plan_bits(shapes[i].v, shapes[i].bits, shapes[i].k, 5, &p) != BF_OK)
		{
			CHECK(0, "%s: no plan", what);
			continue;
		}
		buf = new_filter(&p);
		ref = check_malloc((size_t) p.payload_bytes);
		memset(ref, 0, (size_t) p.payload_bytes);
		if (bf_open(buf, (size_t) p.total_bytes, &f) != BF_OK)
			CHECK(0, "%s: open", what);
		else
			for (key = 0; key < 300 && first_bad == UINT64_MAX; key++)
			{
				bf_hash		h = check_key(key, 0, f.seed);

				bf_add(&f, h);
				ref_add(f.variant, ref, f.bits, f.hashes, h);
				if (memcmp(f.payload, ref, (size_t) f.payload_bytes) != 0)
					first_bad = key;
			}
		CHECK(first_bad == UINT64_MAX,
			  "%s: bits differ from the documented layout after key %llu",
			  what, (unsigned long long) first_bad);
		free(ref);
		free(buf);
	}
	check_group_end();
}

/* ---------------------------------------------------------------------- */

/* Hex digits (white space ignored) into bytes; returns the count */
static size_t
from_hex(const char *hex, unsigned char *out, size_t max)
{
	size_t		n = 0;
	int			half = -1;

	for (; *hex; hex++)
	{
		int			d;

		if (*hex >= '0' && *hex <= '9')
			d = *hex - '0';
		else if (*hex >= 'a' && *hex <= 'f')
			d = *hex - 'a' + 10;
		else
			continue;
		if (half < 0)
			half = d;
		else
		{
			if (n < max)
				out[n] = (unsigned char) (half * 16 + d);
			n++;
			half = -1;
		}
	}
	return n;
}

/*
 * One worked example: a filter of hash scheme 'scheme' from bits, some
 * elements (hashed by the caller as that scheme hashes them), its exact bytes
 */
static void
worked_example(const char *name, unsigned scheme, bf_variant v, uint64_t bits,
			   uint32_t k, uint64_t seed, const bf_hash *adds, int nadds,
			   const bf_hash *absent, int nabsent, const char *hex)
{
	unsigned char want[512];
	size_t		wlen = from_hex(hex, want, sizeof(want));
	bf_params	p;
	bf_filter	f;
	unsigned char *buf;
	int			i;

	if (bf_plan_bits(v, bits, k, seed, &p) != BF_OK)
	{
		CHECK(0, "%s: no plan", name);
		return;
	}
	p.scheme = (uint8_t) scheme;
	buf = new_filter(&p);
	if (bf_open(buf, (size_t) p.total_bytes, &f) != BF_OK)
		CHECK(0, "%s: open", name);
	else
	{
		CHECK(f.scheme == scheme, "%s: opens as scheme %u", name,
			  (unsigned) f.scheme);
		for (i = 0; i < nadds; i++)
			bf_add(&f, adds[i]);
		CHECK(p.total_bytes == wlen && memcmp(buf, want, wlen) == 0,
			  "%s: bytes differ from STORAGE.md", name);
		for (i = 0; i < nadds; i++)
			CHECK(bf_contains(&f, adds[i]), "%s: element %d absent", name, i);
		for (i = 0; i < nabsent; i++)
			CHECK(!bf_contains(&f, absent[i]), "%s: stranger %d present",
				  name, i);
	}
	free(buf);
}

/*
 * STORAGE.md section 10: the documented bytes, reproduced by the core.  The
 * examples are filters of hash scheme 2, which hashes integers by
 * bf_hash_integer; the filters releases 1.0 and 1.1 built from the same
 * queries, of scheme 1 (integers by XXH3 of their 8 bytes: bf_hash_int64),
 * are checked too, as the section's earlier editions documented them.
 */
static void
test_storage_examples(void)
{
	bf_hash		h[3],
				x[1];
	bf_params	p;
	unsigned char *buf;
	size_t		i;
	unsigned long nonzero = 0;

	check_group("STORAGE.md worked examples, byte for byte");

	h[0] = bf_hash_bytes("hello", 5, 0);
	x[0] = bf_hash_bytes("world", 5, 0);
	worked_example("10.1 classic 64 bits k=3 'hello'", 2, BF_CLASSIC, 64, 3, 0,
				   h, 1, x, 1,
				   "42 4c 4d 46 01 02 02 00 03 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 40 00 00 00 00 00 00 00"
				   "01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 08 00 00 00 00 00 00 00"
				   "00 10 00 40 00 00 02 00");
	/* text hashes alike under both schemes: byte 6 alone differs */
	worked_example("10.1 as scheme 1", 1, BF_CLASSIC, 64, 3, 0, h, 1, x, 1,
				   "42 4c 4d 46 01 02 01 00 03 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 40 00 00 00 00 00 00 00"
				   "01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 08 00 00 00 00 00 00 00"
				   "00 10 00 40 00 00 02 00");

	h[0] = bf_hash_integer(42, 0);
	x[0] = bf_hash_integer(43, 0);
	worked_example("10.2 blocked 512 bits k=6 42", 2, BF_BLOCKED, 512, 6, 0,
				   h, 1, x, 1,
				   "42 4c 4d 46 01 01 02 00 06 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00"
				   "01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 40 00 00 00 00 00 00 00"
				   "00 00 00 20 01 00 00 00 00 00 00 00 04 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "04 00 00 00 00 01 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 08 00 00 00 00 00 00 00 00 00 00 00 00");
	h[0] = bf_hash_int64(42, 0);
	x[0] = bf_hash_int64(43, 0);
	worked_example("10.2 as scheme 1", 1, BF_BLOCKED, 512, 6, 0, h, 1, x, 1,
				   "42 4c 4d 46 01 01 01 00 06 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00"
				   "01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 40 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 20 00 00 00 48 00 00 00 00 00 00 00"
				   "00 00 00 00 10 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 04 00 00 00 00 00 00 00 00 00 00 00 00 08");

	h[0] = bf_hash_bytes("hello", 5, 1234567);
	worked_example("10.3 classic seed 1234567 'hello'", 2, BF_CLASSIC, 64, 3,
				   1234567, h, 1, NULL, 0,
				   "42 4c 4d 46 01 02 02 00 03 00 00 00 00 00 00 00"
				   "87 d6 12 00 00 00 00 00 40 00 00 00 00 00 00 00"
				   "01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 08 00 00 00 00 00 00 00"
				   "00 00 20 00 10 00 10 00");

	h[0] = bf_hash_integer(42, UINT64_MAX);
	h[1] = bf_hash_integer(-1, UINT64_MAX);
	h[2] = bf_hash_bytes("postgres", 8, UINT64_MAX);
	x[0] = bf_hash_bytes("hello", 5, UINT64_MAX);
	worked_example("10.4 blocked 2048 bits k=4 seed -1", 2, BF_BLOCKED, 2048, 4,
				   UINT64_MAX, h, 3, x, 1,
				   "42 4c 4d 46 01 01 02 00 04 00 00 00 00 00 00 00"
				   "ff ff ff ff ff ff ff ff 00 08 00 00 00 00 00 00"
				   "03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "01 00 00 00 00 03 12 00 00 08 00 00 00 00 00 40"
				   "00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 02 00 00 00 21 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00");
	h[0] = bf_hash_int64(42, UINT64_MAX);
	h[1] = bf_hash_int64(-1, UINT64_MAX);
	worked_example("10.4 as scheme 1", 1, BF_BLOCKED, 2048, 4, UINT64_MAX,
				   h, 3, x, 1,
				   "42 4c 4d 46 01 01 01 00 04 00 00 00 00 00 00 00"
				   "ff ff ff ff ff ff ff ff 00 08 00 00 00 00 00 00"
				   "03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 40 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 08 00 00 00 00"
				   "00 00 00 00 00 00 00 10 00 00 00 00 10 00 00 00"
				   "00 00 00 00 00 00 00 00 00 08 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 02 00 00 00 01 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 00 00 40 00 00 00 04 00 00 00 00 00 00 10"
				   "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
				   "00 00 80 00 00 00 00 00 00 00 00 00 00 00 00 00");

	/* 10.5: bloomfilter_create(1000, 0.01), blocked and classic */
	if (bf_plan(BF_BLOCKED, 1000, 0.01, 0, &p) == BF_OK)
	{
		unsigned char want[64];

		from_hex("42 4c 4d 46 01 01 02 00 07 00 00 00 00 00 00 00"
				 "00 00 00 00 00 00 00 00 00 28 00 00 00 00 00 00"
				 "00 00 00 00 00 00 00 00 e8 03 00 00 00 00 00 00"
				 "7b 14 ae 47 e1 7a 84 3f 00 05 00 00 00 00 00 00",
				 want, sizeof(want));
		buf = new_filter(&p);
		for (i = 64; i < p.total_bytes; i++)
			nonzero += buf[i] != 0;
		CHECK(p.total_bytes == 64 + 1280 && memcmp(buf, want, 64) == 0 &&
			  nonzero == 0, "10.5 blocked create(1000, 0.01): header or "
			  "length differs (%llu bytes)", (unsigned long long) p.total_bytes);
		free(buf);
	}
	else
		CHECK(0, "10.5: no blocked plan");
	CHECK(bf_plan(BF_CLASSIC, 1000, 0.01, 0, &p) == BF_OK && p.hashes == 7 &&
		  p.bits == 9586 && p.payload_bytes == 1200,
		  "10.5 classic create(1000, 0.01): k=%u bits=%llu payload=%llu",
		  (unsigned) p.hashes, (unsigned long long) p.bits,
		  (unsigned long long) p.payload_bytes);
	check_group_end();
}

/* ---------------------------------------------------------------------- */

/*
 * Small filters through their whole life: empty, one item, two items, then
 * saturated.  Every bit in range must be reachable and padding never set.
 */
static void
exercise_small(const bf_params *p, const char *what)
{
	unsigned char *buf = new_filter(p);
	size_t		len = (size_t) p->total_bytes;
	bf_filter	f;
	bf_status	st;
	uint64_t	i,
				positives = 0,
				missing = 0;
	/* enough adds that a bit left unset has odds of e^-40 */
	const uint64_t many = 40 * p->bits / p->hashes + 2000;

	st = bf_open(buf, len, &f);
	CHECK(st == BF_OK, "%s: open empty: %s", what, bf_status_message(st));
	if (st != BF_OK)
	{
		free(buf);
		return;
	}
	for (i = 0; i < 10000; i++)
		positives += bf_contains(&f, check_key(i, 1, f.seed));
	CHECK(positives == 0, "%s: empty filter said yes %llu times", what,
		  (unsigned long long) positives);

	bf_add(&f, check_key(0, 0, f.seed));
	CHECK(bf_contains(&f, check_key(0, 0, f.seed)), "%s: 1 item lost", what);
	CHECK(padding_bits_set(f.payload, f.bits, f.payload_bytes) == 0,
		  "%s: padding set after 1 add", what);
	st = bf_open(buf, len, &f);
	CHECK(st == BF_OK && f.items == 1, "%s: reopen after 1 add: %s", what,
		  bf_status_message(st));
	CHECK(payload_bits_set(f.payload, f.bits) >= 1 &&
		  payload_bits_set(f.payload, f.bits) <= f.hashes,
		  "%s: %llu bits set by one add of k = %u", what,
		  (unsigned long long) payload_bits_set(f.payload, f.bits),
		  (unsigned) f.hashes);

	bf_add(&f, check_key(1, 0, f.seed));
	CHECK(bf_contains(&f, check_key(0, 0, f.seed)) &&
		  bf_contains(&f, check_key(1, 0, f.seed)), "%s: 2 items lost", what);
	st = bf_open(buf, len, &f);
	CHECK(st == BF_OK && f.items == 2, "%s: reopen after 2 adds: %s", what,
		  bf_status_message(st));

	for (i = 2; i < many; i++)
		bf_add(&f, check_key(i, 0, f.seed));
	for (i = 0; i < many; i++)
		missing += !bf_contains(&f, check_key(i, 0, f.seed));
	CHECK(missing == 0, "%s: %llu false negatives", what,
		  (unsigned long long) missing);
	CHECK(padding_bits_set(f.payload, f.bits, f.payload_bytes) == 0,
		  "%s: %llu padding bits set after %llu adds", what,
		  (unsigned long long) padding_bits_set(f.payload, f.bits,
												f.payload_bytes),
		  (unsigned long long) many);
	/* 40 m positions over m bits: every bit is hit */
	CHECK(payload_bits_set(f.payload, f.bits) == f.bits,
		  "%s: only %llu of %llu bits reachable", what,
		  (unsigned long long) payload_bits_set(f.payload, f.bits),
		  (unsigned long long) f.bits);
	st = bf_open(buf, len, &f);
	CHECK(st == BF_OK && f.items == many, "%s: reopen saturated: %s", what,
		  bf_status_message(st));
	CHECK(ref_valid(buf, len), "%s: reference validator", what);
	free(buf);
}

static void
test_edge_sizes(void)
{
	static const uint64_t classic_bits[] = {1, 2, 3, 63, 64, 65, 127, 128, 129};
	static const struct
	{
		uint64_t	ask,
					get;
	}			blocked_bits[] = {
		{1, 512}, {2, 512}, {511, 512}, {512, 512}, {513, 1024},
		{1024, 1024}, {1025, 1536}
	};
	static const uint32_t hashes[] = {1, 3, 64};
	size_t		i,
				k,
				v;
	char		what[96];

	check_group("edge sizes: tiny classic, block rounding, 0/1/2 items");
	for (i = 0; i < sizeof(classic_bits) / sizeof(classic_bits[0]); i++)
		for (k = 0; k < sizeof(hashes) / sizeof(hashes[0]); k++)
		{
			bf_params	p;
			bf_status	st;

			snprintf(what, sizeof(what), "classic %llu bits k=%u",
					 (unsigned long long) classic_bits[i],
					 (unsigned) hashes[k]);
			st = bf_plan_bits(BF_CLASSIC, classic_bits[i], hashes[k], 3, &p);
			CHECK(st == BF_OK, "%s: %s", what, bf_status_message(st));
			if (st != BF_OK)
				continue;
			CHECK(p.bits == classic_bits[i], "%s: bits became %llu", what,
				  (unsigned long long) p.bits);
			CHECK(p.payload_bytes == (classic_bits[i] <= 64 ? 8u :
									  classic_bits[i] <= 128 ? 16u : 24u),
				  "%s: payload %llu", what,
				  (unsigned long long) p.payload_bytes);
			check_params_shape(&p, what);
			exercise_small(&p, what);
		}
	for (i = 0; i < sizeof(blocked_bits) / sizeof(blocked_bits[0]); i++)
		for (k = 0; k < sizeof(hashes) / sizeof(hashes[0]); k++)
		{
			bf_params	p;
			bf_status	st;

			snprintf(what, sizeof(what), "blocked %llu bits k=%u",
					 (unsigned long long) blocked_bits[i].ask,
					 (unsigned) hashes[k]);
			st = bf_plan_bits(BF_BLOCKED, blocked_bits[i].ask, hashes[k], 3, &p);
			CHECK(st == BF_OK, "%s: %s", what, bf_status_message(st));
			if (st != BF_OK)
				continue;
			CHECK(p.bits == blocked_bits[i].get, "%s: rounded to %llu, not %llu",
				  what, (unsigned long long) p.bits,
				  (unsigned long long) blocked_bits[i].get);
			check_params_shape(&p, what);
			exercise_small(&p, what);
		}
	/* planned for a single item */
	for (v = 0; v < 2; v++)
	{
		bf_params	p;
		bf_status	st = bf_plan(variants[v], 1, 0.01, 0, &p);

		snprintf(what, sizeof(what), "%s planned for 1 item",
				 vname(variants[v]));
		CHECK(st == BF_OK, "%s: %s", what, bf_status_message(st));
		if (st == BF_OK)
		{
			check_params_shape(&p, what);
			exercise_small(&p, what);
		}
	}
	check_group_end();
}

/* ---------------------------------------------------------------------- */

/* A few filters of each variant to attack, with items in them */
typedef struct victim
{
	const char *name;
	unsigned char *buf;
	size_t		len;
} victim;

static int
make_victims(victim *out)
{
	int			n = 0;
	size_t		v;

	for (v = 0; v < 2; v++)
	{
		bf_params	p[2];
		int			j;

		bf_plan(variants[v], 500, 0.01, 12345, &p[0]);
		if (variants[v] == BF_CLASSIC)
			bf_plan_bits(BF_CLASSIC, 65, 3, 0, &p[1]);
		else
			bf_plan_bits(BF_BLOCKED, 1024, 8, 0, &p[1]);
		for (j = 0; j < 2; j++)
		{
			bf_filter	f;
			uint64_t	i;

			out[n].name = j == 0 ? (v == 0 ? "blocked n=500 p=1%" :
									"classic n=500 p=1%") :
				(v == 0 ? "blocked 1024 bits" : "classic 65 bits");
			out[n].len = (size_t) p[j].total_bytes;
			out[n].buf = new_filter(&p[j]);
			if (bf_open(out[n].buf, out[n].len, &f) == BF_OK)
				for (i = 0; i < 20; i++)
					bf_add(&f, check_key(i, 0, f.seed));
			n++;
		}
	}
	return n;
}

static void
free_victims(victim *vs, int n)
{
	while (n > 0)
		free(vs[--n].buf);
}

static void
test_truncation(void)
{
	victim		vs[4];
	int			nv = make_victims(vs),
				i;

	check_group("truncated and overlong input");
	for (i = 0; i < nv; i++)
	{
		size_t		len;
		unsigned long wrong = 0,
					first_wrong = 0;
		bf_filter	f;
		bf_status	st;
		unsigned char *b;

		for (len = 0; len < vs[i].len; len++)
		{
			/* exactly 'len' bytes, so ASan sees any read past them */
			b = check_dup(vs[i].buf, len, len);
			st = bf_open(b, len, &f);
			if (st != (len < BF_HEADER_SIZE ? BF_E_SHORT : BF_E_TRUNCATED))
			{
				if (wrong++ == 0)
					first_wrong = (unsigned long) len;
			}
			free(b);
		}
		CHECK(wrong == 0,
			  "%s: %lu truncations not BF_E_SHORT (under 64 bytes) or "
			  "BF_E_TRUNCATED (first at length %lu)",
			  vs[i].name, wrong, first_wrong);

		b = check_dup(vs[i].buf, vs[i].len, vs[i].len + 1);
		st = bf_open(b, vs[i].len + 1, &f);
		CHECK(st == BF_E_TRAILING, "%s: one trailing byte: %s", vs[i].name,
			  bf_status_message(st));
		free(b);
		b = check_dup(vs[i].buf, vs[i].len, vs[i].len + 64);
		st = bf_open(b, vs[i].len + 64, &f);
		CHECK(st == BF_E_TRAILING, "%s: 64 trailing bytes: %s", vs[i].name,
			  bf_status_message(st));
		free(b);
		st = bf_open(vs[i].buf, vs[i].len, &f);
		CHECK(st == BF_OK, "%s: the untouched victim: %s", vs[i].name,
			  bf_status_message(st));
	}
	free_victims(vs, nv);
	check_group_end();
}

/*
 * Every header byte set to each of a few values: bf_open must agree with the
 * reference validator, and whatever it accepts must be safe to use.
 */
static void
test_header_bytes(void)
{
	static const unsigned char values[] = {0, 1, 127, 128, 255};
	victim		vs[4];
	int			nv = make_victims(vs),
				i;
	unsigned long tried = 0,
				accepted = 0,
				changed_accepted = 0;

	check_group("every header byte set to 0, 1, 127, 128, 255");
	for (i = 0; i < nv; i++)
	{
		int			off;
		size_t		j;
		char		offsets[512] = "";
		size_t		used = 0;

		for (off = 0; off < BF_HEADER_SIZE; off++)
		{
			int			any = 0;

			for (j = 0; j < sizeof(values); j++)
			{
				unsigned char *b = check_dup(vs[i].buf, vs[i].len, vs[i].len);
				bf_filter	f;
				bf_status	st;
				int			ref,
							changed = vs[i].buf[off] != values[j];

				b[off] = values[j];
				ref = ref_valid(b, vs[i].len);
				st = bf_open(b, vs[i].len, &f);
				tried++;
				CHECK((st == BF_OK) == ref,
					  "%s: byte %d = %u: bf_open says \"%s\", reference %s",
					  vs[i].name, off, values[j], bf_status_message(st),
					  ref ? "accepts" : "rejects");
				if (st == BF_OK)
				{
					uint64_t	k,
								missing = 0;

					accepted++;
					changed_accepted += changed;
					any |= changed;
					/* use it: ASan and UBSan watch */
					for (k = 0; k < 64; k++)
						(void) bf_contains(&f, check_key(k, 1, f.seed));
					for (k = 100; k < 164; k++)
						bf_add(&f, check_key(k, 0, f.seed));
					for (k = 100; k < 164; k++)
						missing += !bf_contains(&f, check_key(k, 0, f.seed));
					CHECK(missing == 0, "%s: byte %d = %u: %llu false negatives",
						  vs[i].name, off, values[j],
						  (unsigned long long) missing);
					(void) bf_filter_capacity(&f);
					(void) bf_filter_model_fpr(&f, (double) f.items);
					st = bf_open(b, vs[i].len, &f);
					CHECK(st == BF_OK, "%s: byte %d = %u: invalid after adds: %s",
						  vs[i].name, off, values[j], bf_status_message(st));
				}
				free(b);
			}
			if (any && used + 8 < sizeof(offsets))
				used += (size_t) snprintf(offsets + used,
										  sizeof(offsets) - used, " %d", off);
		}
		printf("     %s: changed header bytes accepted at offsets%s\n",
			   vs[i].name, used ? offsets : " (none)");
	}
	printf("     %lu mutated headers tried, %lu accepted (%lu of them differing from the original)\n",
		   tried, accepted, changed_accepted);
	free_victims(vs, nv);
	check_group_end();
}

/*
 * Random damage: one to four bytes anywhere (header or payload) set to
 * random values, and sometimes a length off by a little.  bf_open must agree
 * with the reference validator every time.
 */
static void
test_random_mutations(void)
{
	victim		vs[4];
	int			nv = make_victims(vs);
	long		iters = check_quick() ? 5000 : 50000,
				it;
	uint64_t	rng = 42;
	unsigned long accepted = 0,
				disagree = 0;

	check_group("random damage to header, payload and length");
	for (it = 0; it < iters; it++)
	{
		const victim *v = &vs[it % nv];
		size_t		len;
		unsigned char *b = check_damage(v->buf, v->len, &rng, &len);
		bf_filter	f;
		bf_status	st;
		int			ref;

		ref = ref_valid(b, len);
		st = bf_open(b, len, &f);
		if ((st == BF_OK) != ref)
		{
			if (disagree++ < 5)
				CHECK(0, "%s mutation %ld: bf_open says \"%s\", reference %s",
					  v->name, it, bf_status_message(st),
					  ref ? "accepts" : "rejects");
		}
		if (st == BF_OK)
		{
			uint64_t	k;

			accepted++;
			for (k = 0; k < 16; k++)
			{
				bf_add(&f, check_key(k, 0, f.seed));
				(void) bf_contains(&f, check_key(k, 1, f.seed));
			}
		}
		free(b);
	}
	CHECK(disagree == 0, "%lu disagreements with the reference validator",
		  disagree);
	printf("     %ld random mutations, %lu accepted\n", iters, accepted);
	free_victims(vs, nv);
	check_group_end();
}

/* Sets a field in a copy of the victim and expects 'want' from bf_open */
static void
expect_status(const victim *v, int off, const unsigned char *bytes,
			  size_t nbytes, bf_status want, const char *what)
{
	unsigned char *b = check_dup(v->buf, v->len, v->len);
	bf_filter	f;
	bf_status	st;

	memcpy(b + off, bytes, nbytes);
	st = bf_open(b, v->len, &f);
	CHECK(st == want, "%s: %s: got \"%s\", want \"%s\"", v->name, what,
		  bf_status_message(st), bf_status_message(want));
	CHECK((st == BF_OK) == ref_valid(b, v->len),
		  "%s: %s: reference validator disagrees", v->name, what);
	free(b);
}

static void
expect_u8(const victim *v, int off, unsigned val, bf_status want,
		  const char *what)
{
	unsigned char b = (unsigned char) val;

	expect_status(v, off, &b, 1, want, what);
}

/* A valid header of hash scheme 'scheme' opens as a filter of that scheme */
static void
expect_scheme(const victim *v, unsigned scheme)
{
	unsigned char *b = check_dup(v->buf, v->len, v->len);
	bf_filter	f;
	bf_status	st;

	b[OFF_SCHEME] = (unsigned char) scheme;
	st = bf_open(b, v->len, &f);
	CHECK(st == BF_OK && f.scheme == scheme, "%s: scheme %u opens as %u (%s)",
		  v->name, scheme, st == BF_OK ? (unsigned) f.scheme : 0,
		  bf_status_message(st));
	free(b);
}

static void
expect_u32(const victim *v, int off, unsigned long val, bf_status want,
		   const char *what)
{
	unsigned char b[4];

	check_put_le32(b, val);
	expect_status(v, off, b, 4, want, what);
}

static void
expect_u64(const victim *v, int off, unsigned long long val, bf_status want,
		   const char *what)
{
	unsigned char b[8];

	check_put_le64(b, val);
	expect_status(v, off, b, 8, want, what);
}

static void
expect_double(const victim *v, double val, bf_status want, const char *what)
{
	unsigned char b[8];

	check_put_double(b, val);
	expect_status(v, OFF_TARGET, b, 8, want, what);
}

static void
test_hostile_cases(void)
{
	victim		vs[4];
	int			nv = make_victims(vs),
				i,
				off;

	check_group("hostile headers: each field's own status");
	for (i = 0; i < nv; i++)
	{
		const victim *v = &vs[i];
		int			classic = v->buf[OFF_VARIANT] == BF_CLASSIC;
		unsigned long long bits = check_le64(v->buf + OFF_BITS),
					payload = check_le64(v->buf + OFF_PAYLOAD);
		char		what[64];

		expect_status(v, 0, (const unsigned char *) "BLMX", 4, BF_E_MAGIC,
					  "magic BLMX");
		expect_status(v, 0, (const unsigned char *) "blmf", 4, BF_E_MAGIC,
					  "magic blmf");
		expect_u32(v, 0, 0, BF_E_MAGIC, "magic zero");
		expect_u8(v, OFF_VERSION, 0, BF_E_VERSION, "version 0");
		expect_u8(v, OFF_VERSION, 2, BF_E_VERSION, "version 2");
		expect_u8(v, OFF_VERSION, 255, BF_E_VERSION, "version 255");
		expect_u8(v, OFF_VARIANT, 0, BF_E_VARIANT, "variant 0");
		expect_u8(v, OFF_VARIANT, 6, BF_E_VARIANT, "variant 6");
		expect_u8(v, OFF_VARIANT, 9, BF_E_VARIANT, "variant 9");
		expect_u8(v, OFF_VARIANT, 255, BF_E_VARIANT, "variant 255");
		expect_u8(v, OFF_SCHEME, 0, BF_E_HASH_SCHEME, "scheme 0");
		expect_u8(v, OFF_SCHEME, 3, BF_E_HASH_SCHEME, "scheme 3");
		expect_u8(v, OFF_SCHEME, 255, BF_E_HASH_SCHEME, "scheme 255");
		expect_u8(v, OFF_SCHEME, 1, BF_OK, "scheme 1");
		expect_u8(v, OFF_SCHEME, 2, BF_OK, "scheme 2");
		expect_scheme(v, 1);
		expect_scheme(v, 2);
		expect_u8(v, OFF_FLAGS, 1, BF_E_FLAGS, "flags 1");
		expect_u8(v, OFF_FLAGS, 0x80, BF_E_FLAGS, "flags 0x80");
		for (off = OFF_VARIANT_WORD; off < OFF_VARIANT_WORD + 4; off++)
		{
			snprintf(what, sizeof(what), "reserved byte %d", off);
			expect_u8(v, off, 1, BF_E_FLAGS, what);
			expect_u8(v, off, 0x80, BF_E_FLAGS, what);
		}
		expect_u32(v, OFF_HASHES, 0, BF_E_HASHES, "hashes 0");
		expect_u32(v, OFF_HASHES, 65, BF_E_HASHES, "hashes 65");
		expect_u32(v, OFF_HASHES, 0x10001, BF_E_HASHES, "hashes 0x10001");
		expect_u32(v, OFF_HASHES, 0xFFFFFFFFul, BF_E_HASHES, "hashes 2^32-1");
		expect_u32(v, OFF_HASHES, 1, BF_OK, "hashes 1");
		expect_u32(v, OFF_HASHES, 64, BF_OK, "hashes 64");

		/* bits that no payload can agree with */
		expect_u64(v, OFF_BITS, 0, BF_E_BITS, "bits 0");
		expect_u64(v, OFF_BITS, MAX_BITS + 1, BF_E_BITS, "bits past 1 GB");
		expect_u64(v, OFF_BITS, UINT64_MAX, BF_E_BITS, "bits 2^64-1");
		expect_u64(v, OFF_BITS, UINT64_MAX - 62, BF_E_BITS,
				   "bits 2^64-63 (payload rounding would wrap)");
		if (!classic)
		{
			expect_u64(v, OFF_BITS, 500, BF_E_BITS, "blocked bits 500");
			expect_u64(v, OFF_BITS, bits - 1, BF_E_BITS, "blocked bits - 1");
			expect_u64(v, OFF_BITS, bits + 512, BF_E_PAYLOAD,
					   "blocked bits + 512");
		}
		else
		{
			/* classic bits may move inside the last 64-bit word */
			expect_u64(v, OFF_BITS, (bits + 63) / 64 * 64, BF_OK,
					   "classic bits up to the word end");
			expect_u64(v, OFF_BITS, (bits + 63) / 64 * 64 + 1, BF_E_PAYLOAD,
					   "classic bits one word more");
		}
		expect_u64(v, OFF_PAYLOAD, payload + 8, BF_E_PAYLOAD, "payload + 8");
		expect_u64(v, OFF_PAYLOAD, payload - 8, BF_E_PAYLOAD, "payload - 8");
		expect_u64(v, OFF_PAYLOAD, payload + 1, BF_E_PAYLOAD, "payload + 1");
		expect_u64(v, OFF_PAYLOAD, 0, BF_E_PAYLOAD, "payload 0");
		expect_u64(v, OFF_PAYLOAD, UINT64_MAX, BF_E_PAYLOAD, "payload 2^64-1");

		expect_double(v, 1.5, BF_E_TARGET, "target 1.5");
		expect_double(v, 1.0, BF_E_TARGET, "target 1");
		expect_double(v, -0.01, BF_E_TARGET, "target -0.01");
		expect_double(v, NAN, BF_E_TARGET, "target NaN");
		expect_double(v, -NAN, BF_E_TARGET, "target -NaN");
		expect_double(v, HUGE_VAL, BF_E_TARGET, "target +inf");
		expect_double(v, -HUGE_VAL, BF_E_TARGET, "target -inf");
		expect_double(v, -0.0, BF_E_TARGET, "target -0.0");
		if (check_le64(v->buf + OFF_EXPECTED) != 0)
		{
			/* sized for a rate: both fields set */
			expect_double(v, 0.0, BF_E_TARGET, "target 0 with expected items");
			expect_double(v, 0.5, BF_OK, "target 0.5");
			expect_double(v, 1e-300, BF_OK, "target 1e-300");
			expect_u64(v, OFF_EXPECTED, 0, BF_E_TARGET,
					   "expected 0 with a target");
			expect_u64(v, OFF_EXPECTED, UINT64_MAX, BF_OK, "expected 2^64-1");
		}
		else
		{
			/* built from a bit count: both zero, or both set */
			unsigned char both[16];

			expect_double(v, 0.5, BF_E_TARGET, "target 0.5 without expected");
			expect_u64(v, OFF_EXPECTED, 1, BF_E_TARGET,
					   "expected 1 without a target");
			check_put_le64(both, 1000);
			check_put_double(both + 8, 0.01);
			expect_status(v, OFF_EXPECTED, both, 16, BF_OK,
						  "expected 1000 and target 0.01");
		}

		/* seed and items are free */
		expect_u64(v, OFF_SEED, UINT64_MAX, BF_OK, "seed 2^64-1");
		expect_u64(v, OFF_ITEMS, UINT64_MAX, BF_OK, "items 2^64-1");
	}

	/* padding bits of the classic filter of 65 bits: 65..127 */
	for (i = 0; i < nv; i++)
	{
		const victim *v = &vs[i];
		unsigned long long bits = check_le64(v->buf + OFF_BITS),
					payload = check_le64(v->buf + OFF_PAYLOAD),
					b;
		unsigned long wrong = 0;

		if (v->buf[OFF_VARIANT] != BF_CLASSIC || bits != 65)
			continue;
		for (b = bits; b < payload * 8; b++)
		{
			unsigned char *copy = check_dup(v->buf, v->len, v->len);
			bf_filter	f;

			copy[BF_HEADER_SIZE + b / 8] |= (unsigned char) (1u << (b % 8));
			wrong += bf_open(copy, v->len, &f) != BF_E_PADDING;
			free(copy);
		}
		CHECK(wrong == 0, "%s: %lu of %llu padding bits not BF_E_PADDING",
			  v->name, wrong, payload * 8 - bits);
		{
			unsigned char *copy = check_dup(v->buf, v->len, v->len);
			bf_filter	f;
			bf_status	st;

			copy[BF_HEADER_SIZE + 64 / 8] |= 1; /* bit 64: the last real bit */
			st = bf_open(copy, v->len, &f);
			CHECK(st == BF_OK, "%s: last real bit set: %s", v->name,
				  bf_status_message(st));
			free(copy);
		}
	}

	/* the header alone */
	for (i = 0; i < nv; i++)
	{
		uint64_t	total = 0;
		bf_status	st = bf_check_header(vs[i].buf, BF_HEADER_SIZE, &total);

		CHECK(st == BF_OK && total == vs[i].len,
			  "%s: bf_check_header(64 bytes): %s, total %llu of %lu",
			  vs[i].name, bf_status_message(st), (unsigned long long) total,
			  (unsigned long) vs[i].len);
		st = bf_check_header(vs[i].buf, BF_HEADER_SIZE - 1, &total);
		CHECK(st == BF_E_SHORT, "%s: bf_check_header(63 bytes): %s",
			  vs[i].name, bf_status_message(st));
	}

	/*
	 * Largest headers: accepted by bf_check_header, too short for bf_open.
	 * One past the largest must be refused before anyone allocates it: the
	 * declared total would pass BF_MAX_BYTES.
	 */
	{
		static const struct
		{
			bf_variant	variant;
			unsigned long long bits;
			bf_status	want;
		}			big[] = {
			{BF_CLASSIC, CLASSIC_MAX_BITS, BF_OK},
			/* STORAGE.md rule 9a: the padded payload passes the limit */
			{BF_CLASSIC, CLASSIC_MAX_BITS + 1, BF_E_TOO_LARGE},
			{BF_CLASSIC, MAX_BITS, BF_E_TOO_LARGE},
			{BF_CLASSIC, MAX_BITS + 1, BF_E_BITS},
			{BF_BLOCKED, MAX_BITS / 512 * 512, BF_OK},
			{BF_BLOCKED, MAX_BITS / 512 * 512 + 512, BF_E_BITS},
		};
		size_t		j;

		for (j = 0; j < sizeof(big) / sizeof(big[0]); j++)
		{
			bf_params	p;
			unsigned char h[BF_HEADER_SIZE];
			uint64_t	total = 0;
			bf_status	st;
			bf_filter	f;
			unsigned long long pay = expected_payload(big[j].variant,
													  big[j].bits);

			bf_plan_bits(big[j].variant, 64 * 8, 2, 0, &p);
			p.payload_bytes = 0;	/* header only: bf_init writes 64 bytes */
			p.total_bytes = BF_HEADER_SIZE;
			bf_init(&p, h);
			check_put_le64(h + OFF_BITS, big[j].bits);
			check_put_le64(h + OFF_PAYLOAD, pay);
			st = bf_check_header(h, sizeof(h), &total);
			CHECK(st == big[j].want,
				  "%s %llu bits header (%llu bytes in all): got \"%s\", "
				  "want \"%s\"", vname(big[j].variant), big[j].bits,
				  BF_HEADER_SIZE + pay, bf_status_message(st),
				  bf_status_message(big[j].want));
			if (st == BF_OK && big[j].want == BF_OK)
			{
				CHECK(total == BF_HEADER_SIZE + pay && total <= BF_MAX_BYTES,
					  "%s %llu bits: total %llu, limit %llu",
					  vname(big[j].variant), big[j].bits,
					  (unsigned long long) total,
					  (unsigned long long) BF_MAX_BYTES);
				st = bf_open(h, sizeof(h), &f);
				CHECK(st == BF_E_TRUNCATED, "%s %llu bits: bf_open on 64 bytes: %s",
					  vname(big[j].variant), big[j].bits,
					  bf_status_message(st));
			}
		}
	}
	free_victims(vs, nv);
	check_group_end();
}

/* ---------------------------------------------------------------------- */

static void
test_status_messages(void)
{
	int			s;

	check_group("bf_status_message: a sentence for every status");
	for (s = BF_OK; s <= BF_E_INCOMPATIBLE; s++)
	{
		const char *m = bf_status_message((bf_status) s);
		size_t		len = m ? strlen(m) : 0;
		int			t;

		CHECK(m != NULL && len > 1, "status %d: empty message", s);
		if (len > 1)
		{
			CHECK(m[len - 1] == '.', "status %d: \"%s\" lacks a final period",
				  s, m);
			CHECK(m[0] >= 'A' && m[0] <= 'Z', "status %d: \"%s\" not a sentence",
				  s, m);
		}
		/* distinct messages, so a status can be told from its text */
		for (t = BF_OK; t < s; t++)
			CHECK(strcmp(m, bf_status_message((bf_status) t)) != 0,
				  "statuses %d and %d share \"%s\"", t, s, m);
	}
	{
		const char *m = bf_status_message((bf_status) 99);

		CHECK(m != NULL && strlen(m) > 0 && m[strlen(m) - 1] == '.',
			  "out-of-range status: \"%s\"", m ? m : "(null)");
	}
	check_group_end();
}

static void
test_variant_names(void)
{
	static const char *bad[] = {"Blocked", "", "bloom", "BLOCKED", "classic ",
	" classic", "block", "blockedx", "countingx"};
	bf_variant	v;
	size_t		i;

	check_group("variant names: parse and print");
	v = (bf_variant) 0;
	CHECK(bf_variant_parse("blocked", 7, &v) && v == BF_BLOCKED,
		  "parse blocked");
	v = (bf_variant) 0;
	CHECK(bf_variant_parse("classic", 7, &v) && v == BF_CLASSIC,
		  "parse classic");
	/* the length counts, not a terminator */
	v = (bf_variant) 0;
	CHECK(bf_variant_parse("classicXYZ", 7, &v) && v == BF_CLASSIC,
		  "parse a counted prefix");
	CHECK(!bf_variant_parse("blocked", 6, &v), "parse \"blocke\"");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		v = (bf_variant) 77;
		CHECK(!bf_variant_parse(bad[i], strlen(bad[i]), &v) && v == 77,
			  "\"%s\" parsed (or the output was touched)", bad[i]);
	}
	for (i = 0; i < 2; i++)
	{
		const char *name = bf_variant_name(variants[i]);

		v = (bf_variant) 0;
		CHECK(name != NULL && bf_variant_parse(name, strlen(name), &v) &&
			  v == variants[i], "name of variant %d does not round trip",
			  (int) variants[i]);
	}
	CHECK(strcmp(bf_variant_name(BF_BLOCKED), "blocked") == 0 &&
		  strcmp(bf_variant_name(BF_CLASSIC), "classic") == 0,
		  "variant names");
	CHECK(strcmp(bf_variant_name((bf_variant) 0), "unknown") == 0 &&
		  strcmp(bf_variant_name((bf_variant) 9), "unknown") == 0,
		  "unknown variant names");
	check_group_end();
}

static void
test_plan_errors(void)
{
	static const double bad_rates[] = {0.0, 1.0, -0.1, 1.5, -0.0};
	bf_params	p;
	bf_status	st;
	size_t		v,
				i;

	check_group("bf_plan and bf_plan_bits argument errors");
	for (v = 0; v < 2; v++)
	{
		const char *n = vname(variants[v]);

		st = bf_plan(variants[v], 0, 0.01, 0, &p);
		CHECK(st == BF_E_ARGUMENT, "%s: items 0: %s", n, bf_status_message(st));
		for (i = 0; i < sizeof(bad_rates) / sizeof(bad_rates[0]); i++)
		{
			st = bf_plan(variants[v], 1000, bad_rates[i], 0, &p);
			CHECK(st == BF_E_ARGUMENT, "%s: fpr %g: %s", n, bad_rates[i],
				  bf_status_message(st));
		}
		st = bf_plan(variants[v], 1000, NAN, 0, &p);
		CHECK(st == BF_E_ARGUMENT, "%s: fpr NaN: %s", n, bf_status_message(st));
		st = bf_plan(variants[v], 1000, HUGE_VAL, 0, &p);
		CHECK(st == BF_E_ARGUMENT, "%s: fpr inf: %s", n, bf_status_message(st));
		st = bf_plan(variants[v], UINT64_C(1000000000000), 1e-9, 0, &p);
		CHECK(st == BF_E_TOO_LARGE, "%s: 1e12 items at 1e-9: %s", n,
			  bf_status_message(st));
		st = bf_plan(variants[v], UINT64_MAX, 0.5, 0, &p);
		CHECK(st == BF_E_TOO_LARGE, "%s: 2^64-1 items: %s", n,
			  bf_status_message(st));
		/* the largest plans stay within BF_MAX_BYTES */
		st = bf_plan(variants[v], UINT64_C(800000000), 0.01, 0, &p);
		CHECK(st == BF_OK && p.total_bytes <= BF_MAX_BYTES,
			  "%s: 8e8 items at 1%%: %s, %llu bytes", n, bf_status_message(st),
			  (unsigned long long) p.total_bytes);
		st = bf_plan(variants[v], UINT64_C(900000000), 0.01, 0, &p);
		CHECK(st == BF_E_TOO_LARGE, "%s: 9e8 items at 1%% (over 1 GB): %s", n,
			  bf_status_message(st));

		st = bf_plan_bits(variants[v], 1000, 0, 0, &p);
		CHECK(st == BF_E_ARGUMENT, "%s: hashes 0: %s", n, bf_status_message(st));
		st = bf_plan_bits(variants[v], 1000, 65, 0, &p);
		CHECK(st == BF_E_ARGUMENT, "%s: hashes 65: %s", n, bf_status_message(st));
		st = bf_plan_bits(variants[v], 0, 3, 0, &p);
		CHECK(st == BF_E_ARGUMENT, "%s: bits 0: %s", n, bf_status_message(st));
		st = bf_plan_bits(variants[v], UINT64_C(1) << 62, 3, 0, &p);
		CHECK(st == BF_E_TOO_LARGE, "%s: bits 2^62: %s", n,
			  bf_status_message(st));
		st = bf_plan_bits(variants[v], UINT64_MAX, 3, 0, &p);
		CHECK(st == BF_E_TOO_LARGE, "%s: bits 2^64-1: %s", n,
			  bf_status_message(st));
		st = bf_plan_bits(variants[v], MAX_BITS + 1, 3, 0, &p);
		CHECK(st == BF_E_TOO_LARGE, "%s: bits one past 1 GB: %s", n,
			  bf_status_message(st));
	}
	/* at the limit: both variants' padding can carry a count past it */
	st = bf_plan_bits(BF_CLASSIC, CLASSIC_MAX_BITS, 3, 0, &p);
	CHECK(st == BF_OK && p.total_bytes <= BF_MAX_BYTES,
		  "classic, the largest: %s", bf_status_message(st));
	st = bf_plan_bits(BF_CLASSIC, CLASSIC_MAX_BITS + 1, 3, 0, &p);
	CHECK(st == BF_E_TOO_LARGE, "classic, one bit past the largest: %s",
		  bf_status_message(st));
	st = bf_plan_bits(BF_CLASSIC, MAX_BITS, 3, 0, &p);
	CHECK(st == BF_E_TOO_LARGE, "classic MAX_BITS pads past the limit: %s",
		  bf_status_message(st));
	st = bf_plan_bits(BF_BLOCKED, MAX_BITS / 512 * 512, 3, 0, &p);
	CHECK(st == BF_OK && p.total_bytes <= BF_MAX_BYTES,
		  "blocked, last whole block under the limit: %s",
		  bf_status_message(st));
	st = bf_plan_bits(BF_BLOCKED, MAX_BITS, 3, 0, &p);
	CHECK(st == BF_E_TOO_LARGE, "blocked MAX_BITS rounds past the limit: %s",
		  bf_status_message(st));
	st = bf_plan(BF_CLASSIC, 1000, 0.01, 0, &p);
	CHECK(st == BF_OK, "sanity: a valid plan");
	st = bf_plan((bf_variant) 0, 1000, 0.01, 0, &p);
	CHECK(st != BF_OK, "variant 0 planned");
	st = bf_plan((bf_variant) 6, 1000, 0.01, 0, &p);
	CHECK(st != BF_OK, "variant 6 planned");
	st = bf_plan_bits((bf_variant) 6, 1000, 3, 0, &p);
	CHECK(st != BF_OK, "variant 6 planned by bits");
	check_group_end();
}

int
main(void)
{
	test_header_fields();
	test_round_trip();
	test_layout_positions();
	test_storage_examples();
	test_edge_sizes();
	test_truncation();
	test_header_bytes();
	test_hostile_cases();
	test_random_mutations();
	test_status_messages();
	test_variant_names();
	test_plan_errors();
	return check_summary("test_format");
}
