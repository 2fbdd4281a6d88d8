/*
 * fuzz_open.c
 *		libFuzzer target: the validator (bf_check_header, bf_open) on
 *		arbitrary bytes, and every read operation on what it accepts.
 *
 * The input is the serialised filter itself (STORAGE.md), so any filter,
 * for example one copied out of a bytea, is a seed.  bf_open is the one gate
 * untrusted bytes pass; once it says BF_OK, no read operation may touch a
 * byte outside the value, loop forever, or answer nonsense, and none may
 * change a byte.  One add on a copy checks that what was accepted also
 * takes an element and stays valid.
 */
#include "fuzz_common.h"

/* Hashes to probe with: from the input, and the edges of both halves */
static void
probe_hashes(const uint8_t *data, size_t size, uint64_t seed, bf_hash *h, int *n)
{
	static const uint64_t edge[] = {0, 1, UINT64_C(0x8000000000000000), UINT64_MAX};
	int			i,
				j;

	*n = 0;
	h[(*n)++] = bf_hash_bytes(data, size, seed);
	h[(*n)++] = bf_hash_bytes(data, size > 64 ? 64 : size, seed ^ 1);
	h[(*n)++] = bf_hash_int64((int64_t) size, seed);
	if (size >= 80)
	{
		/* the first 16 payload bytes as a raw hash: the fuzzer steers it */
		memcpy(&h[*n].lo, data + 64, 8);
		memcpy(&h[*n].hi, data + 72, 8);
		(*n)++;
	}
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
		{
			h[*n].lo = edge[i];
			h[*n].hi = edge[j];
			(*n)++;
		}
}

/* Whether these 64 header bytes were among the last few hundred seen */
static bool
header_seen(const unsigned char *header)
{
	static unsigned char seen[256][BF_HEADER_SIZE];
	bf_hash		h = bf_hash_bytes(header, BF_HEADER_SIZE, 0);
	unsigned char *slot = seen[h.lo % 256];

	if (memcmp(slot, header, BF_HEADER_SIZE) == 0)
		return true;
	memcpy(slot, header, BF_HEADER_SIZE);
	return false;
}

static void
check_rate(const bf_filter *f, double items)
{
	double		r = bf_filter_model_fpr(f, items);

	FZ_ASSERT(r >= 0.0 && r <= 1.0, "bf_filter_model_fpr(%g items) = %g", items, r);
}

/* Every read operation; the bytes must not change */
static void
read_all(const uint8_t *data, size_t size, bf_filter *f)
{
	bf_hash		h[32];
	int			n,
				i;
	uint64_t	cap,
				grow,
				need;
	bf_filter	again;

	FZ_ASSERT(f->variant >= BF_VARIANT_MIN && f->variant <= BF_VARIANT_MAX,
			  "opened an unknown variant %d", f->variant);
	FZ_ASSERT(strcmp(bf_variant_name(f->variant), "unknown") != 0, "variant has no name");
	probe_hashes(data, size, f->seed, h, &n);
	for (i = 0; i < n; i++)
	{
		if (bf_can_prefetch(f))
			bf_prefetch(f, h[i]);
		(void) bf_contains(f, h[i]);
	}
	fz_check_fill(f, size);

	/*
	 * The blocked model costs milliseconds a call and depends on the header
	 * alone (and on scalable stage headers): skip it for a header seen
	 * recently, so that mutations of the payload are tried at full speed.
	 */
	if (!header_seen(f->base))
	{
		cap = bf_filter_capacity(f);
		FZ_ASSERT(f->target_fpr != 0.0 || cap == 0,
				  "a filter without a target rate has capacity %llu",
				  (unsigned long long) cap);
		check_rate(f, 0.0);
		check_rate(f, 1.0);
		check_rate(f, (double) (f->items % 100000));
		check_rate(f, (double) (f->expected_items % 100000));
		check_rate(f, (double) (cap % 100000));
	}

	/* one-array variants: the size is a function of (variant, bits, k) */
	if (f->variant != BF_SCALABLE && (f->variant != BF_CUCKOO || f->variant_word == 1))
	{
		uint64_t	sz = bf_size_bytes(f->variant, f->bits, f->hashes);

		FZ_ASSERT(sz == size, "bf_size_bytes says %llu for a valid filter of %zu bytes",
				  (unsigned long long) sz, size);
	}

	grow = bf_grow_bytes(f);
	FZ_ASSERT(grow == 0 || grow > size, "bf_grow_bytes %llu <= size %zu",
			  (unsigned long long) grow, size);
	/* scalable says 0 when its chain can take no further stage */
	FZ_ASSERT(f->variant == BF_SCALABLE || (grow != 0) == (f->variant == BF_CUCKOO),
			  "bf_grow_bytes %llu for variant %d", (unsigned long long) grow, f->variant);
	need = bf_union_bytes(f, f, NULL, NULL);
	FZ_ASSERT(need == 0 || need >= size, "bf_union_bytes(f, f) %llu < size %zu",
			  (unsigned long long) need, size);
	FZ_ASSERT(bf_compatible(f, f), "a filter is not compatible with itself");
	FZ_ASSERT(bf_equal(f, f), "a filter is not equal to itself");
	FZ_ASSERT(bf_can_remove(f->variant) ==
			  (f->variant == BF_COUNTING || f->variant == BF_CUCKOO),
			  "bf_can_remove(%d)", f->variant);

	/* the view is exactly what a second bf_open sees */
	FZ_ASSERT(bf_open(f->base, size, &again) == BF_OK, "a second bf_open refused");
	fz_same_view(f, &again, "reading");
	FZ_ASSERT(memcmp(f->base, data, size) == 0, "a read operation modified the filter");
}

/* One add on a copy: it must leave a valid filter holding the element */
static void
add_one(const uint8_t *data, size_t size, const bf_filter *f)
{
	unsigned char *copy = fz_dup(data, size);
	bf_filter	g,
				again;
	bf_hash		h = bf_hash_bytes(data, size, f->seed ^ 2);
	bf_status	st;

	FZ_ASSERT(bf_open(copy, size, &g) == BF_OK, "a copy of a valid filter is refused");
	st = bf_add(&g, h);
	if (st == BF_OK)
	{
		FZ_ASSERT(bf_contains(&g, h), "false negative right after bf_add");
		st = bf_open(copy, size, &again);
		FZ_ASSERT(st == BF_OK, "bf_add left an invalid filter: %s", bf_status_message(st));
		fz_same_view(&g, &again, "bf_add");
	}
	else
	{
		FZ_ASSERT((st == BF_E_FULL &&
				   (f->variant == BF_SCALABLE || f->variant == BF_CUCKOO)) ||
				  (st == BF_E_COPIES && f->variant == BF_CUCKOO),
				  "bf_add on variant %d: %s", f->variant, bf_status_message(st));
		FZ_ASSERT(memcmp(copy, data, size) == 0, "a full bf_add changed the filter");
	}
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = fz_dup(data, size);
	uint64_t	total = 0;
	bf_status	hs,
				st;
	bf_filter	f;

	hs = bf_check_header(buf, size, &total);
	FZ_ASSERT(bf_status_message(hs) != NULL, "no message");
	if (hs == BF_OK)
		FZ_ASSERT(total >= BF_HEADER_SIZE && total <= BF_MAX_BYTES,
				  "bf_check_header accepted a total of %llu bytes",
				  (unsigned long long) total);
	if (size > BF_HEADER_SIZE)
	{
		/* the header alone decides, so that a reader can check it first */
		uint64_t	total64 = 0;
		bf_status	h64 = bf_check_header(buf, BF_HEADER_SIZE, &total64);

		FZ_ASSERT(h64 == hs && (hs != BF_OK || total64 == total),
				  "bf_check_header on the header alone: %d, on %zu bytes: %d",
				  h64, size, hs);
	}

	st = bf_open(buf, size, &f);
	FZ_ASSERT(memcmp(buf, data, size) == 0, "bf_open modified its input");
	if (hs != BF_OK)
		FZ_ASSERT(st == hs, "bf_open says %d where bf_check_header said %d", st, hs);
	else if (total > size)
		FZ_ASSERT(st == BF_E_TRUNCATED, "bf_open on a truncated value: %d", st);
	else if (total < size)
		FZ_ASSERT(st == BF_E_TRAILING, "bf_open on a value with trailing bytes: %d", st);
	else
		FZ_ASSERT(st == BF_OK || st == BF_E_PADDING || st == BF_E_LAYOUT,
				  "bf_open's payload checks said %d", st);

	if (st == BF_OK)
	{
		FZ_ASSERT(f.base == buf && f.payload == buf + BF_HEADER_SIZE &&
				  BF_HEADER_SIZE + f.payload_bytes == size,
				  "the view does not describe the buffer");
		read_all(data, size, &f);
		add_one(data, size, &f);
	}
	free(buf);
	return 0;
}
