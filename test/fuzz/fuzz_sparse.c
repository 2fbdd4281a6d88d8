/*
 * fuzz_sparse.c
 *		libFuzzer target: the sparse form (bf_sparse_size, bf_sparse_decode)
 *		on arbitrary bytes, and its round trip on arbitrary filters.
 *
 * The first byte chooses.  Even: the rest is a sparse form, as the text
 * input decodes it from base64; bf_sparse_size and bf_sparse_decode may
 * refuse it, never read past it nor write past the size they declared, and
 * what they accept has exactly the set bits it counts and the header it
 * carries, and encodes back to a form that decodes to the same bytes.  Odd:
 * the rest is a filter's bytes, as the text output sees them; whenever
 * their header checks, the sparse form decodes back to exactly them, within
 * the length planned, whatever the payload holds.
 */
#include "fuzz_common.h"

/* Set bits of a payload, counted byte by byte */
static uint64_t
set_bits(const unsigned char *p, size_t len)
{
	uint64_t	n = 0;
	size_t		i;

	for (i = 0; i < len; i++)
	{
		unsigned	b = p[i];

		for (; b; b &= b - 1)
			n++;
	}
	return n;
}

/*
 * Encodes 'len' bytes whose header checks; decodes them back.  With 'limit'
 * the plan may refuse, and then nothing more is checked.
 */
static void
round_trip(const unsigned char *bytes, size_t len, uint64_t limit)
{
	bf_sparse	plan;
	unsigned char *sparse,
			   *back;
	size_t		n;
	uint64_t	total = 0,
				yields = 0;
	bf_status	st;

	if (!bf_sparse_plan(bytes, len, limit, &plan, fz_yield, &yields))
	{
		FZ_ASSERT(limit != UINT64_MAX, "no plan without a limit for %zu bytes", len);
		return;
	}
	FZ_ASSERT(plan.max_bytes <= limit && plan.room == plan.max_bytes + BF_SPARSE_SLACK &&
			  plan.rice <= BF_SPARSE_MAX_RICE,
			  "plan: %llu bytes at most, limit %llu, r %u",
			  (unsigned long long) plan.max_bytes, (unsigned long long) limit, plan.rice);
	FZ_ASSERT(plan.set_bits == set_bits(bytes + BF_HEADER_SIZE, len - BF_HEADER_SIZE),
			  "plan counts %llu set bits", (unsigned long long) plan.set_bits);
	sparse = malloc(plan.room);
	FZ_ASSERT(sparse != NULL, "out of memory");
	n = bf_sparse_encode(bytes, len, &plan, sparse, fz_yield, &yields);
	FZ_ASSERT(n >= BF_SPARSE_HEAD && n <= plan.max_bytes, "encoded %zu bytes of at most %llu",
			  n, (unsigned long long) plan.max_bytes);
	st = bf_sparse_size(sparse, n, &total);
	FZ_ASSERT(st == BF_OK && total == len, "the form's size: %s, %llu for %zu bytes",
			  bf_status_message(st), (unsigned long long) total, len);
	back = malloc(len);
	FZ_ASSERT(back != NULL, "out of memory");
	st = bf_sparse_decode(sparse, n, back, total, fz_yield, &yields);
	FZ_ASSERT(st == BF_OK && memcmp(back, bytes, len) == 0,
			  "decoding the form gives other bytes: %s", bf_status_message(st));
	free(back);
	free(sparse);
}

/* A sparse form from the input: refused, or decoded to what it says */
static void
decode(const unsigned char *in, size_t len)
{
	uint64_t	total = 0,
				yields = 0;
	bf_status	st = bf_sparse_size(in, len, &total);
	unsigned char *out;
	bf_filter	f;
	fz_reader	count = {in + BF_HEADER_SIZE + 1, 8};

	FZ_ASSERT(bf_status_message(st) != NULL, "no message");
	if (st != BF_OK)
	{
		/* the header's own refusals are bf_check_header's */
		uint64_t	t;
		bf_status	hs = bf_check_header(in, len, &t);

		FZ_ASSERT(hs == st || (hs == BF_OK && st >= BF_E_SPARSE_RICE),
				  "bf_sparse_size %d where the header says %d", st, hs);
		return;
	}
	FZ_ASSERT(total >= BF_HEADER_SIZE && total <= BF_MAX_BYTES, "a total of %llu bytes",
			  (unsigned long long) total);
	/* (a header may declare 1 GB: the decoder's own limit is the caller's) */
	if (total > FZ_MAX_ALLOC)
		return;
	out = malloc((size_t) total);
	FZ_ASSERT(out != NULL, "out of memory");
	st = bf_sparse_decode(in, len, out, total, fz_yield, &yields);
	if (st == BF_OK)
	{
		uint64_t	n = fz_uint(&count, 8);

		FZ_ASSERT(memcmp(out, in, BF_HEADER_SIZE) == 0, "the header changed");
		FZ_ASSERT(set_bits(out + BF_HEADER_SIZE, total - BF_HEADER_SIZE) == n,
				  "the payload does not hold the %llu set bits counted", (unsigned long long) n);
		/* what decodes re-encodes to a form of the same bytes */
		round_trip(out, (size_t) total, UINT64_MAX);
		(void) bf_open(out, (size_t) total, &f);
	}
	else
		FZ_ASSERT(st == BF_E_SPARSE_GAP || st == BF_E_SPARSE_END ||
				  st == BF_E_SPARSE_TRAILING,
				  "bf_sparse_decode refused what bf_sparse_size accepted: %s",
				  bf_status_message(st));
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf;
	uint64_t	total;

	if (size < 1)
		return 0;
	buf = fz_dup(data + 1, size - 1);
	if (data[0] % 2 == 0)
		decode(buf, size - 1);
	else if (bf_check_header(buf, size - 1, &total) == BF_OK && total == size - 1)
	{
		round_trip(buf, size - 1, UINT64_MAX);
		/* the text output's limit: fewer base64 groups than the bytes' */
		round_trip(buf, size - 1, (size - 1 + 2) / 3 * 3 - 3);
	}
	else
	{
		bf_sparse	plan;

		FZ_ASSERT(!bf_sparse_plan(buf, size - 1, UINT64_MAX, &plan, NULL, NULL),
				  "a plan for bytes whose header does not check");
	}
	free(buf);
	return 0;
}
