/*
 * test_sparse.c
 *		Core unit tests: the sparse form (sparse.c, STORAGE.md section 15).
 *
 * Decoding the sparse form of a filter must give back exactly its bytes,
 * in every variant and at every fill, from empty to full, with the first
 * and the last bit of the payload; the bytes must be those STORAGE.md
 * describes (a vector worked out by hand); the form is chosen only when it
 * is within the limit asked for, and a partial filter of a distributed
 * aggregate shrinks to what issue 28 asks; decoding refuses every malformed
 * input with its own status, and never reads or writes out of bounds (the
 * sanitizer build runs this too).
 */
#include <stdint.h>

#include "bf.h"
#include "check.h"

/* ---- filters to encode ---------------------------------------------- */

static unsigned char *
plain_alloc(void *arg, const bf_place *place, void **block)
{
	(void) arg;
	*block = check_malloc(place->room);
	return *block;
}

static void
plain_free(void *arg, void *block)
{
	(void) arg;
	free(block);
}

static const bf_mem plain_mem = {plain_alloc, plain_free, NULL, NULL, NULL};

/* A filter of 'variant' for 'n' items at 1 %, holding keys [0, added) */
static bf_buf
filled(bf_variant variant, uint64_t n, uint64_t added, uint64_t seed)
{
	bf_params	p;
	bf_buf		b;
	uint64_t	i;
	bf_status	st;

	st = bf_plan(variant, n, 0.01, seed, &p);
	CHECK(st == BF_OK, "plan %s for %llu: %s", bf_variant_name(variant),
		  (unsigned long long) n, bf_status_message(st));
	st = bf_buf_create(&b, &plain_mem, &p, false);
	if (st != BF_OK)
	{
		CHECK(0, "create: %s", bf_status_message(st));
		exit(2);
	}
	for (i = 0; i < added; i++)
	{
		st = bf_buf_add(&b, check_key(i, 0, seed), true);
		if (st != BF_OK)
		{
			CHECK(0, "%s: add %llu: %s", bf_variant_name(variant),
				  (unsigned long long) i, bf_status_message(st));
			break;
		}
	}
	return b;
}

static unsigned long long
set_bits_of(const unsigned char *payload, size_t bytes)
{
	unsigned long long n = 0;
	size_t		i;

	for (i = 0; i < bytes; i++)
		n += (unsigned long long) check_popcount8(payload[i]);
	return n;
}

/*
 * Encodes and decodes 'len' bytes at 'buf' (a header that checks), the plan
 * unlimited; checks that the bytes come back, that the form is no longer
 * than planned and that its head says what STORAGE.md says.  Returns the
 * sparse form's length.
 */
static size_t
round_trip(const char *what, const unsigned char *buf, size_t len)
{
	bf_sparse	plan;
	unsigned char *sparse,
			   *back;
	size_t		n;
	uint64_t	total = 0;
	bf_status	st;

	if (!bf_sparse_plan(buf, len, UINT64_MAX, &plan, NULL, NULL))
	{
		CHECK(0, "%s: no plan without a limit", what);
		return 0;
	}
	CHECK(plan.set_bits == set_bits_of(buf + BF_HEADER_SIZE, len - BF_HEADER_SIZE),
		  "%s: plan counts %llu set bits", what, (unsigned long long) plan.set_bits);
	CHECK(plan.rice <= 32, "%s: Rice parameter %u", what, plan.rice);
	sparse = check_malloc(plan.room);
	n = bf_sparse_encode(buf, len, &plan, sparse, NULL, NULL);
	CHECK(n >= 73 && n <= plan.max_bytes, "%s: encoded %zu bytes, planned at most %llu",
		  what, n, (unsigned long long) plan.max_bytes);
	CHECK(memcmp(sparse, buf, 64) == 0, "%s: the header is not copied as it is", what);
	CHECK(sparse[64] == plan.rice && check_le64(sparse + 65) == plan.set_bits,
		  "%s: r %u and n %llu at bytes 64 and 65", what, sparse[64],
		  check_le64(sparse + 65));
	st = bf_sparse_size(sparse, n, &total);
	CHECK(st == BF_OK && total == len, "%s: decoded size %llu (%s), not %zu", what,
		  (unsigned long long) total, bf_status_message(st), len);
	back = check_malloc(len);
	memset(back, 0xA5, len);
	st = bf_sparse_decode(sparse, n, back, len, NULL, NULL);
	CHECK(st == BF_OK, "%s: decode: %s", what, bf_status_message(st));
	CHECK(st != BF_OK || memcmp(back, buf, len) == 0,
		  "%s: decoding gives other bytes", what);
	free(back);
	free(sparse);
	return n;
}

/* A filter's bytes, encoded and decoded, and validated after */
static size_t
round_trip_buf(const char *what, const bf_buf *b)
{
	bf_filter	f;
	size_t		n = round_trip(what, b->bytes, b->len);
	unsigned char *copy = check_malloc(b->len);

	memcpy(copy, b->bytes, b->len);
	CHECK(bf_open(copy, b->len, &f) == BF_OK, "%s: the bytes encoded do not open", what);
	free(copy);
	return n;
}

/* ---- the groups ----------------------------------------------------- */

static void
test_variants(void)
{
	static const bf_variant variants[] = {BF_BLOCKED, BF_CLASSIC, BF_COUNTING,
	BF_SCALABLE, BF_CUCKOO};
	/* items added to a filter sized for 2000: none, one, a few, full, over */
	static const uint64_t added[] = {0, 1, 3, 20, 200, 2000, 6000};
	char		what[96];
	unsigned	v,
				a;

	check_group("every variant round trips at every fill, growing ones through stages");
	for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++)
		for (a = 0; a < sizeof(added) / sizeof(added[0]); a++)
		{
			bf_buf		b = filled(variants[v], 2000, added[a], 7 + a);
			bf_filter	f;

			snprintf(what, sizeof(what), "%s with %llu of 2000 items",
					 bf_variant_name(variants[v]), (unsigned long long) added[a]);
			CHECK(bf_open(b.bytes, b.len, &f) == BF_OK, "%s: does not open", what);
			if ((variants[v] == BF_SCALABLE || variants[v] == BF_CUCKOO) && added[a] == 6000)
				CHECK(f.variant_word > 1, "%s: %u stages", what, f.variant_word);
			round_trip_buf(what, &b);
			bf_buf_free(&b);
		}
	check_group_end();
}

/* A blocked header over 'bytes' of payload (any payload bit pattern is valid) */
static unsigned char *
blocked_bytes(size_t bytes, size_t *len)
{
	bf_params	p;
	unsigned char *b;

	CHECK(bf_plan_bits(BF_BLOCKED, bytes * 8, 5, 3, &p) == BF_OK, "plan");
	*len = (size_t) p.total_bytes;
	b = check_malloc(*len);
	bf_init(&p, b);
	return b;
}

static void
test_bit_patterns(void)
{
	static const double fills[] = {0.0001, 0.001, 0.01, 0.05, 0.2, 0.5, 0.9};
	size_t		len,
				bytes = 8192,
				i;
	unsigned char *b = blocked_bytes(bytes, &len);
	unsigned char *payload = b + BF_HEADER_SIZE;
	uint64_t	rng = 12345;
	char		what[64];
	unsigned	f;

	check_group("payload bit patterns: first, last, runs, all ones, random fills");
	round_trip("empty", b, len);
	payload[0] = 1;
	round_trip("bit 0 alone", b, len);
	payload[0] = 0;
	payload[bytes - 1] = 0x80;
	round_trip("the last bit alone", b, len);
	payload[0] = 1;
	round_trip("the first and the last bit", b, len);
	memset(payload, 0xFF, bytes);
	round_trip("every bit", b, len);
	memset(payload, 0, bytes);
	memset(payload + 100, 0xFF, 300);
	round_trip("a run of ones", b, len);
	for (f = 0; f < sizeof(fills) / sizeof(fills[0]); f++)
	{
		for (i = 0; i < bytes * 8; i++)
		{
			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			if ((double) (rng >> 11) / 9007199254740992.0 < fills[f])
				payload[i >> 3] |= (unsigned char) (1u << (i & 7));
			else
				payload[i >> 3] &= (unsigned char) ~(1u << (i & 7));
		}
		snprintf(what, sizeof(what), "random, %g of the bits", fills[f]);
		round_trip(what, b, len);
	}
	/* every gap from 0 to 300 after bit 0, at the payload's end too */
	for (i = 0; i <= 300; i++)
	{
		memset(payload, 0, bytes);
		payload[0] = 1;
		payload[(1 + i) >> 3] |= (unsigned char) (1u << ((1 + i) & 7));
		payload[bytes - 1] |= 0x80;
		snprintf(what, sizeof(what), "gap %zu", i);
		round_trip(what, b, len);
	}
	free(b);
	check_group_end();
}

/*
 * STORAGE.md's rules worked by hand: a blocked filter of one block with
 * bits 0, 5 and 511 set has n = 3, r = 7 (the least bound, 27 bits:
 * 3 x 8 + (509 >> 7)), gaps 0, 4 and 505 = 3 x 128 + 121, so the codes
 * 1 0000000 | 1 0010000 | 000 1 1001111 (remainders lowest bit first),
 * packed from bit 0 of each byte: 01 09 98 07.
 */
static void
test_vector(void)
{
	static const unsigned char codes[] = {0x01, 0x09, 0x98, 0x07};
	size_t		len;
	unsigned char *b = blocked_bytes(64, &len);
	unsigned char sparse[64 + 9 + 4];
	bf_sparse	plan;
	unsigned char out[128 + 8];
	size_t		n;

	check_group("the bytes of a sparse form worked out by hand");
	b[64] = 0x01 | 0x20;
	b[64 + 63] = 0x80;
	memcpy(sparse, b, 64);
	sparse[64] = 7;
	check_put_le64(sparse + 65, 3);
	memcpy(sparse + 73, codes, sizeof(codes));
	CHECK(bf_sparse_plan(b, len, UINT64_MAX, &plan, NULL, NULL), "no plan");
	CHECK(plan.rice == 7 && plan.set_bits == 3 && plan.max_bytes == sizeof(sparse),
		  "plan: r %u n %llu at most %llu bytes", plan.rice,
		  (unsigned long long) plan.set_bits, (unsigned long long) plan.max_bytes);
	n = bf_sparse_encode(b, len, &plan, out, NULL, NULL);
	CHECK(n == sizeof(sparse) && memcmp(out, sparse, n) == 0,
		  "encoded %zu bytes: %02x %02x %02x %02x", n, out[73], out[74], out[75], out[76]);
	memset(out, 0, sizeof(out));
	CHECK(bf_sparse_decode(sparse, sizeof(sparse), out, len, NULL, NULL) == BF_OK &&
		  memcmp(out, b, len) == 0, "the hand-made bytes do not decode to the filter");
	free(b);
	check_group_end();
}

static void
test_choice(void)
{
	bf_buf		b;
	bf_sparse	plan;
	size_t		n,
				keys;
	uint64_t	shard = 524288 / 32,
				limit;

	check_group("the form is chosen within the limit only; a Citus partial shrinks");
	/* a filter sized for 524,288 keys holding 1/32 of them */
	b = filled(BF_BLOCKED, 524288, shard, 0);
	n = round_trip_buf("a 32nd of its keys", &b);
	keys = (size_t) shard * 8;
	printf("     blocked for 524288 at 1 %%, 16384 keys: %zu bytes, sparse %zu (%.3f x the keys' bytes, base64 %.3f x)\n",
		   b.len, n, (double) n / (double) keys, (double) ((n + 2) / 3 * 4 + 1) / (double) keys);
	CHECK((n + 2) / 3 * 4 + 1 <= 2 * keys, "the sparse text of a partial takes %zu characters for %zu bytes of keys",
		  (n + 2) / 3 * 4 + 1, keys);
	CHECK(n < b.len / 4, "sparse %zu of %zu bytes", n, b.len);
	CHECK(bf_sparse_plan(b.bytes, b.len, UINT64_MAX, &plan, NULL, NULL), "no plan");
	limit = plan.max_bytes;
	/* (at its own bound the sample may say no: a tenth more) */
	CHECK(bf_sparse_plan(b.bytes, b.len, limit + limit / 10, &plan, NULL, NULL) &&
		  plan.max_bytes == limit,
		  "no plan within a tenth more than its bound of %llu bytes", (unsigned long long) limit);
	CHECK(!bf_sparse_plan(b.bytes, b.len, limit - 1, &plan, NULL, NULL),
		  "a plan within one byte less than its bound");
	CHECK(!bf_sparse_plan(b.bytes, b.len, n / 2, &plan, NULL, NULL), "planned within half its length");
	bf_buf_free(&b);

	/* the same filter full: about half its bits set, never sparse */
	b = filled(BF_BLOCKED, 20000, 20000, 0);
	CHECK(!bf_sparse_plan(b.bytes, b.len, b.len, &plan, NULL, NULL),
		  "a full filter planned as sparse");
	round_trip_buf("full blocked", &b);
	bf_buf_free(&b);

	/* bits everywhere but on the words the sample reads: counted all the same */
	b = filled(BF_BLOCKED, 20000, 0, 0);
	{
		size_t		i;

		for (i = 0; i < (b.len - 64) / 8; i++)
			if (i % 32 != 0)
				memset(b.bytes + 64 + i * 8, 0x77, 8);
	}
	CHECK(!bf_sparse_plan(b.bytes, b.len, b.len, &plan, NULL, NULL),
		  "a filter dense off the sampled words planned as sparse");
	bf_buf_free(&b);

	/* headers that do not check, or disagree with the length: no plan */
	b = filled(BF_CLASSIC, 1000, 3, 0);
	CHECK(!bf_sparse_plan(b.bytes, b.len - 8, UINT64_MAX, &plan, NULL, NULL), "a truncated filter planned");
	b.bytes[0] = 'X';
	CHECK(!bf_sparse_plan(b.bytes, b.len, UINT64_MAX, &plan, NULL, NULL), "a bad magic planned");
	bf_buf_free(&b);
	check_group_end();
}

/* The sparse form of len bytes at buf, malloc'd with room to spare */
static unsigned char *
sparse_of(const unsigned char *buf, size_t len, size_t *n)
{
	bf_sparse	plan;
	unsigned char *s;

	if (!bf_sparse_plan(buf, len, UINT64_MAX, &plan, NULL, NULL))
	{
		CHECK(0, "no plan");
		exit(2);
	}
	s = check_malloc(plan.room);
	*n = bf_sparse_encode(buf, len, &plan, s, NULL, NULL);
	return s;
}

/* bf_sparse_size, then bf_sparse_decode when it passes: the first failure */
static bf_status
decode_status(const unsigned char *s, size_t n)
{
	uint64_t	total;
	bf_status	st = bf_sparse_size(s, n, &total);
	unsigned char *out;

	if (st != BF_OK)
		return st;
	out = check_malloc((size_t) total);
	st = bf_sparse_decode(s, n, out, total, NULL, NULL);
	free(out);
	return st;
}

static void
test_malformed(void)
{
	size_t		len,
				n,
				i;
	unsigned char *b = blocked_bytes(64, &len);
	unsigned char *s,
			   *t;
	uint64_t	total;
	bf_status	st;
	unsigned	bit;

	check_group("malformed sparse bytes: each refused with its status");
	/* bits 0, 5 and 511: the 77 bytes of test_vector, 27 bits of codes */
	b[64] = 0x01 | 0x20;
	b[64 + 63] = 0x80;
	s = sparse_of(b, len, &n);
	CHECK(n == 77 && s[76] == 0x07, "the vector's form: %zu bytes", n);
	t = check_malloc(73 + 4096);
	CHECK(decode_status(s, n) == BF_OK, "the valid form");

	CHECK(decode_status(s, 10) == BF_E_SHORT, "10 bytes");
	CHECK(decode_status(s, 64) == BF_E_SPARSE_END, "the header alone");
	CHECK(decode_status(s, 72) == BF_E_SPARSE_END, "without the last byte of n");
	memcpy(t, s, n);
	memcpy(t, "BLMX", 4);
	CHECK(decode_status(t, n) == BF_E_MAGIC, "another magic");
	memcpy(t, s, n);
	check_put_le64(t + 56, 1 << 30);
	CHECK(decode_status(t, n) == BF_E_PAYLOAD, "a header whose payload disagrees");
	/* the largest blocked filter: its size is known from 73 bytes */
	{
		bf_params	p;
		unsigned char big[128];

		CHECK(bf_plan_bits(BF_BLOCKED, 512, 1, 0, &p) == BF_OK, "plan");
		bf_init(&p, big);
		check_put_le64(big + 24, UINT64_C(8589933568));
		check_put_le64(big + 56, UINT64_C(8589933568) / 8);
		memset(big + 64, 0, 9);
		st = bf_sparse_size(big, 73, &total);
		CHECK(st == BF_OK && total == UINT64_C(1073741760), "the largest header: %s, %llu bytes",
			  bf_status_message(st), (unsigned long long) total);
		check_put_le64(big + 24, UINT64_C(8589934080));
		check_put_le64(big + 56, UINT64_C(8589934080) / 8);
		CHECK(bf_sparse_size(big, 73, &total) == BF_E_BITS, "a header past 1 GB");
	}

	memcpy(t, s, n);
	t[64] = 33;
	CHECK(decode_status(t, n) == BF_E_SPARSE_RICE, "r = 33");
	t[64] = 255;
	CHECK(decode_status(t, n) == BF_E_SPARSE_RICE, "r = 255");
	memcpy(t, s, n);
	check_put_le64(t + 65, 513);
	CHECK(decode_status(t, n) == BF_E_SPARSE_COUNT, "more set bits than the payload has");
	check_put_le64(t + 65, UINT64_MAX);
	CHECK(decode_status(t, n) == BF_E_SPARSE_COUNT, "n = 2^64 - 1");
	check_put_le64(t + 65, (n - 73) * 8 / (s[64] + 1) + 1);
	CHECK(decode_status(t, n) == BF_E_SPARSE_COUNT, "more codes than the bytes hold");
	check_put_le64(t + 65, 2);
	CHECK(decode_status(t, n) == BF_E_SPARSE_TRAILING, "one code left over");
	/* the padding read as a fourth code: zero bits past bit 511 */
	check_put_le64(t + 65, 4);
	st = decode_status(t, n);
	CHECK(st == BF_E_SPARSE_GAP, "one code missing: %s", bf_status_message(st));
	/* r = 0, n = 2, codes "1" then zeros to the end: the second one cut */
	memcpy(t, s, n);
	t[64] = 0;
	check_put_le64(t + 65, 2);
	t[73] = 0x01;
	st = decode_status(t, 74);
	CHECK(st == BF_E_SPARSE_END, "one code missing: %s", bf_status_message(st));

	/* trailing bytes and bits */
	memcpy(t, s, n);
	t[n] = 0;
	CHECK(decode_status(t, n + 1) == BF_E_SPARSE_TRAILING, "a zero byte after the codes");
	t[n] = 0x80;
	CHECK(decode_status(t, n + 1) == BF_E_SPARSE_TRAILING, "a byte after the codes");
	for (bit = 3; bit < 8; bit++)
	{
		memcpy(t, s, n);
		t[n - 1] |= (unsigned char) (1u << bit);
		st = decode_status(t, n);
		CHECK(st == BF_E_SPARSE_TRAILING, "padding bit %u set: %s", bit, bf_status_message(st));
	}
	/* every truncation is refused */
	for (i = 0; i < n; i++)
		CHECK(decode_status(s, i) != BF_OK, "%zu of %zu bytes accepted", i, n);

	/* gaps past the end: bit 512 of a 512-bit payload, and a long run of zeros */
	memcpy(t, b, 64);
	t[64] = 0;
	check_put_le64(t + 65, 1);
	memset(t + 73, 0, 64);
	t[73 + 64] = 0x01;
	CHECK(decode_status(t, 73 + 65) == BF_E_SPARSE_GAP, "a gap of 512 in 512 bits: %s",
		  bf_status_message(decode_status(t, 73 + 65)));
	t[73 + 63] = 0x80;
	CHECK(decode_status(t, 73 + 64) == BF_OK, "a gap of 511, to bit 511");
	memcpy(t, b, 64);
	t[64] = 0;
	check_put_le64(t + 65, 1);
	memset(t + 73, 0, 4096);
	CHECK(decode_status(t, 73 + 4096) == BF_E_SPARSE_GAP, "4096 zero bytes");
	t[64] = 32;
	t[73 + 4095] = 0x80;
	st = decode_status(t, 73 + 4096);
	CHECK(st == BF_E_SPARSE_GAP, "a quotient of 32767 with r = 32: %s", bf_status_message(st));
	/* r = 9: quotient 1, remainder 0, a gap of 512 */
	t[64] = 9;
	memset(t + 73, 0, 4096);
	t[73] = 0x02;
	CHECK(decode_status(t, 75) == BF_E_SPARSE_GAP, "a gap of 512 with r = 9: %s",
		  bf_status_message(decode_status(t, 75)));
	/* r = 4: quotient 3 and a remainder of 4 bits fit one byte; quotient 5 not */
	t[64] = 4;
	t[73] = 0x08;
	CHECK(decode_status(t, 74) == BF_OK, "a gap of 48 with r = 4: %s",
		  bf_status_message(decode_status(t, 74)));
	t[73] = 0x20;
	CHECK(decode_status(t, 74) == BF_E_SPARSE_END, "a remainder cut short: %s",
		  bf_status_message(decode_status(t, 74)));

	/* the decoded size the caller gives must be the header's */
	{
		unsigned char *out = check_malloc(len + 8);

		CHECK(bf_sparse_decode(s, n, out, len + 8, NULL, NULL) == BF_E_ARGUMENT,
			  "another total accepted");
		free(out);
	}
	free(t);
	free(s);
	free(b);
	check_group_end();
}

/*
 * Every single-byte change of the sparse form of a few filters: refused, or
 * decoded into a buffer of the header's size (the sanitizers watch it)
 */
static void
test_mutations(void)
{
	static const bf_variant variants[] = {BF_BLOCKED, BF_CLASSIC, BF_COUNTING,
	BF_SCALABLE, BF_CUCKOO};
	static const unsigned char values[] = {0x00, 0xFF, 0x01, 0x80};
	unsigned	v,
				k;
	unsigned long accepted = 0,
				refused = 0;

	check_group("every byte of sparse forms changed: refused or decoded in bounds");
	for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++)
	{
		bf_buf		b = filled(variants[v], 200, 5, 1);
		size_t		n,
					i;
		unsigned char *s = sparse_of(b.bytes, b.len, &n);
		unsigned char *t = check_malloc(n);

		for (i = 0; i < n; i++)
			for (k = 0; k < sizeof(values) / sizeof(values[0]) + 1; k++)
			{
				uint64_t	total;
				bf_status	st;

				memcpy(t, s, n);
				t[i] = k < 4 ? values[k] : (unsigned char) (s[i] ^ 0x10);
				st = bf_sparse_size(t, n, &total);
				if (st == BF_OK && total <= (uint64_t) 1 << 24)
				{
					unsigned char *out = check_malloc((size_t) total);

					st = bf_sparse_decode(t, n, out, total, NULL, NULL);
					free(out);
				}
				if (st == BF_OK)
					accepted++;
				else
					refused++;
			}
		free(t);
		free(s);
		bf_buf_free(&b);
	}
	printf("     %lu changed forms decoded, %lu refused\n", accepted, refused);
	CHECK(accepted > 0 && refused > 0, "accepted %lu, refused %lu", accepted, refused);
	check_group_end();
}

static void
test_yields(void)
{
	bf_buf		b = filled(BF_BLOCKED, 3000000, 2000, 0);
	bf_sparse	plan;
	unsigned long yields = 0;
	unsigned char *s,
			   *out;
	size_t		n;

	check_group("planning, encoding and decoding a 3.6 MB filter yield about once a megabyte");
	CHECK(bf_sparse_plan(b.bytes, b.len, UINT64_MAX, &plan, check_count_yield, &yields),
		  "no plan");
	CHECK(yields >= 2 && yields <= 4, "plan yielded %lu times", yields);
	s = check_malloc(plan.room);
	yields = 0;
	n = bf_sparse_encode(b.bytes, b.len, &plan, s, check_count_yield, &yields);
	CHECK(yields >= 2 && yields <= 4, "encode yielded %lu times", yields);
	out = check_malloc(b.len);
	yields = 0;
	CHECK(bf_sparse_decode(s, n, out, b.len, check_count_yield, &yields) == BF_OK &&
		  memcmp(out, b.bytes, b.len) == 0, "decode");
	CHECK(yields >= 2 && yields <= 5, "decode yielded %lu times", yields);
	free(out);
	free(s);
	bf_buf_free(&b);
	check_group_end();
}

int
main(void)
{
	test_vector();
	test_variants();
	test_bit_patterns();
	test_choice();
	test_malformed();
	test_mutations();
	test_yields();
	return check_summary("test_sparse");
}
