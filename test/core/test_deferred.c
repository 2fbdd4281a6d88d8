/*
 * test_deferred.c
 *		Deferred adds (bf_add_later / bf_add_pending) give the bytes of adding
 *		each hash at once, in order, whatever the count relative to the queue
 *		(BF_PENDING, BF_PENDING_KEEP) and wherever the flushes fall.
 */
#include "bf.h"
#include "check.h"

/* A new filter of 'variant' planned for 'items' at 1 % in a fresh buffer */
static unsigned char *
new_filter(bf_variant variant, uint64_t items, bf_filter *f, size_t *len)
{
	bf_params	p;
	unsigned char *buf;

	if (bf_plan(variant, (double) items, 0.01, 42, &p) != BF_OK)
	{
		CHECK(0, "cannot plan %s", bf_variant_name(variant));
		exit(2);
	}
	*len = (size_t) p.total_bytes;
	buf = check_malloc(*len);
	bf_init(&p, buf);
	if (bf_open(buf, *len, f) != BF_OK)
	{
		CHECK(0, "cannot open a new %s filter", bf_variant_name(variant));
		exit(2);
	}
	return buf;
}

/*
 * n keys added at once and deferred, flushing after every 'flush_every'
 * keys (0: only at the end): same bytes, same items count
 */
static void
compare(bf_variant variant, uint64_t n, uint64_t flush_every)
{
	bf_filter	direct,
				deferred;
	size_t		len,
				len2;
	unsigned char *a = new_filter(variant, 2000, &direct, &len);
	unsigned char *b = new_filter(variant, 2000, &deferred, &len2);
	bf_pending	q;
	uint64_t	i;
	int			queued = 1;

	q.count = 0;
	for (i = 0; i < n; i++)
	{
		bf_hash		h = check_key(i, 0, direct.seed);

		CHECK(bf_add(&direct, h) == BF_OK, "%s: add %llu",
			  bf_variant_name(variant), (unsigned long long) i);
		if (!bf_add_later(&deferred, &q, h))
		{
			queued = 0;
			bf_add(&deferred, h);
		}
		if (flush_every && (i + 1) % flush_every == 0)
			bf_add_pending(&deferred, &q);
	}
	bf_add_pending(&deferred, &q);
	CHECK(q.count == 0, "%s: %u left queued", bf_variant_name(variant), q.count);
	CHECK(len == len2 && memcmp(a, b, len) == 0,
		  "%s: %llu keys, flushing every %llu: bytes differ (queued: %d)",
		  bf_variant_name(variant), (unsigned long long) n,
		  (unsigned long long) flush_every, queued);
	CHECK(deferred.items == n, "%s: items %llu after %llu adds",
		  bf_variant_name(variant), (unsigned long long) deferred.items,
		  (unsigned long long) n);
	/* only the blocked variant prefetches a single line, so only it queues */
	CHECK(queued == (variant == BF_BLOCKED) || n == 0,
		  "%s: queued %d", bf_variant_name(variant), queued);
	free(a);
	free(b);
}

int
main(void)
{
	static const uint64_t counts[] = {
		0, 1, BF_PENDING_KEEP - 1, BF_PENDING_KEEP, BF_PENDING_KEEP + 1,
		BF_PENDING - 1, BF_PENDING, BF_PENDING + 1,
		2 * BF_PENDING - BF_PENDING_KEEP, 2 * BF_PENDING - BF_PENDING_KEEP + 1,
		1000, 1999
	};
	static const uint64_t flushes[] = {0, 1, 7, BF_PENDING, 100};
	int			v;

	check_group("deferred adds equal direct adds, every variant");
	for (v = BF_VARIANT_MIN; v <= BF_VARIANT_MAX; v++)
	{
		size_t		c,
					fl;

		for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			for (fl = 0; fl < sizeof(flushes) / sizeof(flushes[0]); fl++)
				compare((bf_variant) v, counts[c], flushes[fl]);
	}
	check_group_end();
	return check_summary("test_deferred");
}
