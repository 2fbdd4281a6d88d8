/*
 * test_buf.c
 *		Core unit tests: the growable filter (buf.c) over a caller's
 *		allocator, placement, describing filters and the variant list.
 *
 * A bf_buf that grows must hold exactly the bytes of adding to the grown
 * filter by hand; a union through bf_buf_merge or bf_merge_new must equal
 * bf_union_into's; every allocation must be placed as bf_placement says
 * and freed once; an allocator that fails leaves nothing behind.
 */
#include <stdint.h>

#include "bf.h"
#include "check.h"

/* A counting allocator that may be told to fail */
typedef struct heap
{
	int			live;			/* blocks not yet freed */
	int			allocs;
	int			fail_after;		/* -1: never */
	int			misplaced;		/* payloads not on their boundary */
} heap;

static unsigned char *
heap_alloc(void *arg, const bf_place *place, void **block)
{
	heap	   *h = arg;
	size_t		align = place->align < 8 ? 8 : place->align;
	size_t		pad = (align - BF_HEADER_SIZE % align) % align;
	unsigned char *p;

	if (h->fail_after >= 0 && h->allocs >= h->fail_after)
		return NULL;
	p = check_malloc(pad + place->room + align);
	*block = p;
	p += (align - (uintptr_t) p % align) % align + pad;
	if ((uintptr_t) (p + BF_HEADER_SIZE) % place->align != 0 ||
		place->room < place->len)
		h->misplaced++;
	h->live++;
	h->allocs++;
	return p;
}

static void
heap_free(void *arg, void *block)
{
	heap	   *h = arg;

	h->live--;
	free(block);
}

static void
heap_init(heap *h, bf_mem *mem)
{
	memset(h, 0, sizeof(*h));
	h->fail_after = -1;
	mem->alloc = heap_alloc;
	mem->free = heap_free;
	mem->arg = h;
	mem->yield = NULL;
	mem->yield_arg = NULL;
}

static void
test_placement(void)
{
	bf_place	p;

	check_group("placement: 64-byte payloads, huge pages from 2 MB, none unaligned");
	bf_placement(1000, true, &p);
	CHECK(p.align == 64 && p.room == 1000 && p.len == 1000, "1000 bytes: align %zu room %zu", p.align, p.room);
	bf_placement(BF_HUGE_PAGE - 1, true, &p);
	CHECK(p.align == 64, "just under 2 MB: align %zu", p.align);
	bf_placement(BF_HUGE_PAGE + 100, true, &p);
	CHECK(p.align == BF_HUGE_PAGE && p.room == BF_HEADER_SIZE + 2 * BF_HUGE_PAGE,
		  "2 MB + 100: align %zu room %zu", p.align, p.room);
	bf_placement(BF_HEADER_SIZE + BF_HUGE_PAGE, true, &p);
	CHECK(p.room == BF_HEADER_SIZE + BF_HUGE_PAGE, "a payload of exactly one huge page: room %zu", p.room);
	bf_placement(BF_HUGE_PAGE * 3, false, &p);
	CHECK(p.align == 1 && p.room == BF_HUGE_PAGE * 3, "unaligned: align %zu room %zu", p.align, p.room);
	check_group_end();
}

/* Adds keys [0, n) to a scalable filter through a bf_buf and by hand */
static void
test_growth(void)
{
	heap		h;
	bf_mem		mem;
	bf_buf		b;
	bf_params	p;
	unsigned char *by_hand;
	bf_filter	f;
	size_t		len;
	uint64_t	i,
				n = 5000;
	bf_status	st;

	check_group("bf_buf_add grows a scalable filter to the bytes of growing by hand");
	heap_init(&h, &mem);
	CHECK(bf_plan(BF_SCALABLE, 100, 0.01, 7, &p) == BF_OK, "plan");
	CHECK(bf_buf_create(&b, &mem, &p, true) == BF_OK, "create");
	len = (size_t) p.total_bytes;
	by_hand = check_malloc(len);
	bf_init(&p, by_hand);
	CHECK(bf_open(by_hand, len, &f) == BF_OK, "open by hand");
	for (i = 0; i < n; i++)
	{
		bf_hash		x = bf_hash_int64((int64_t) i, 7);

		CHECK((st = bf_buf_add(&b, x, true)) == BF_OK, "add %llu: %d", (unsigned long long) i, (int) st);
		while (bf_add_new(&f, x) == BF_E_FULL)
		{
			size_t		next_len = (size_t) bf_grow_bytes(&f);
			unsigned char *next = check_malloc(next_len);

			bf_grow(&f, next);
			free(by_hand);
			by_hand = next;
			len = next_len;
			CHECK(bf_open(by_hand, len, &f) == BF_OK, "open grown");
		}
	}
	CHECK(b.len == len && memcmp(b.bytes, by_hand, len) == 0,
		  "bytes differ (%zu against %zu)", b.len, len);
	CHECK(h.allocs > 1 && h.live == 1 && h.misplaced == 0,
		  "allocs %d live %d misplaced %d", h.allocs, h.live, h.misplaced);
	bf_buf_free(&b);
	CHECK(h.live == 0, "%d blocks not freed", h.live);
	free(by_hand);
	check_group_end();
}

/* An allocator that fails: BF_E_NO_MEMORY, the filter as it was */
static void
test_no_memory(void)
{
	heap		h;
	bf_mem		mem;
	bf_buf		b;
	bf_params	p;
	unsigned char *before;
	uint64_t	i;
	bf_status	st = BF_OK;

	check_group("an allocator that fails leaves the filter as it was");
	heap_init(&h, &mem);
	CHECK(bf_plan(BF_SCALABLE, 10, 0.01, 0, &p) == BF_OK, "plan");
	CHECK(bf_buf_create(&b, &mem, &p, false) == BF_OK, "create");
	h.fail_after = 1;
	before = check_malloc(b.len);
	for (i = 0; i < 100000 && st == BF_OK; i++)
	{
		memcpy(before, b.bytes, b.len);
		st = bf_buf_add(&b, bf_hash_int64((int64_t) i, 0), false);
	}
	CHECK(st == BF_E_NO_MEMORY, "status %d", (int) st);
	CHECK(memcmp(before, b.bytes, b.len) == 0, "the refused add changed the filter");
	CHECK(h.live == 1, "%d blocks live", h.live);
	bf_buf_free(&b);
	free(before);
	h.fail_after = 0;
	CHECK(bf_buf_create(&b, &mem, &p, true) == BF_E_NO_MEMORY && b.block == NULL,
		  "create without memory");
	CHECK(bf_buf_alloc(&b, &mem, (size_t) BF_MAX_BYTES + 1, true) == BF_E_TOO_LARGE &&
		  b.wanted == BF_MAX_BYTES + 1 && h.allocs == 1,
		  "past BF_MAX_BYTES: no allocation, wanted %llu", (unsigned long long) b.wanted);
	check_group_end();
}

/* Unions of two scalable filters of different stages, three ways */
static void
test_merge(void)
{
	heap		h;
	bf_mem		mem;
	bf_buf		a,
				c,
				out;
	bf_params	p;
	unsigned char *into;
	uint64_t	need,
				i;

	check_group("bf_buf_merge and bf_merge_new equal bf_union_into; inputs unchanged");
	heap_init(&h, &mem);
	CHECK(bf_plan(BF_SCALABLE, 50, 0.01, 3, &p) == BF_OK, "plan");
	CHECK(bf_buf_create(&a, &mem, &p, true) == BF_OK &&
		  bf_buf_create(&c, &mem, &p, true) == BF_OK, "create");
	for (i = 0; i < 40; i++)
		CHECK(bf_buf_add(&a, bf_hash_int64((int64_t) i, 3), true) == BF_OK, "add a");
	for (i = 1000; i < 1400; i++)
		CHECK(bf_buf_add(&c, bf_hash_int64((int64_t) i, 3), true) == BF_OK, "add c");
	need = bf_union_bytes(&a.view, &c.view, NULL, NULL);
	CHECK(need > a.len, "the union needs room: %llu against %zu", (unsigned long long) need, a.len);
	into = check_malloc((size_t) need);
	CHECK(bf_union_into(&a.view, &c.view, into, NULL, NULL) == BF_OK, "union_into");

	CHECK(bf_merge_new(&a.view, &c.view, false, &mem, false, &out) == BF_OK, "merge_new");
	CHECK(out.len == need && memcmp(out.bytes, into, (size_t) need) == 0, "merge_new bytes");
	bf_buf_free(&out);
	CHECK(bf_buf_merge(&a, &c.view, false) == BF_OK, "buf_merge");
	CHECK(a.len == need && memcmp(a.bytes, into, (size_t) need) == 0, "buf_merge bytes");
	CHECK(h.misplaced == 0 && h.live == 2, "misplaced %d live %d", h.misplaced, h.live);

	/* blocked: in place; incompatible filters refused untouched */
	{
		bf_buf		x,
					y,
					z;
		bf_params	q,
					q2;

		CHECK(bf_plan(BF_BLOCKED, 1000, 0.01, 0, &q) == BF_OK &&
			  bf_plan(BF_BLOCKED, 1000, 0.01, 1, &q2) == BF_OK, "plan blocked");
		CHECK(bf_buf_create(&x, &mem, &q, true) == BF_OK &&
			  bf_buf_create(&y, &mem, &q, true) == BF_OK &&
			  bf_buf_create(&z, &mem, &q2, true) == BF_OK, "create blocked");
		CHECK(bf_buf_add(&x, bf_hash_int64(1, 0), false) == BF_OK &&
			  bf_buf_add(&y, bf_hash_int64(2, 0), false) == BF_OK, "add blocked");
		CHECK(bf_merge_new(&x.view, &z.view, false, &mem, true, &out) == BF_E_INCOMPATIBLE &&
			  out.block == NULL, "incompatible merge_new");
		CHECK(bf_buf_merge(&x, &z.view, true) == BF_E_INCOMPATIBLE, "incompatible merge");
		CHECK(bf_merge_new(&x.view, &y.view, true, &mem, true, &out) == BF_OK &&
			  !bf_contains(&out.view, bf_hash_int64(1, 0)) == !bf_contains(&y.view, bf_hash_int64(1, 0)),
			  "intersection");
		bf_buf_free(&out);
		CHECK(bf_buf_merge(&x, &y.view, false) == BF_OK &&
			  bf_contains(&x.view, bf_hash_int64(1, 0)) &&
			  bf_contains(&x.view, bf_hash_int64(2, 0)), "union in place");
		/* arguments inside the buffer they fill */
		CHECK(bf_merge_new(&x.view, &y.view, false, &x.mem, true, &x) == BF_E_ARGUMENT,
			  "merge_new into one of its inputs is refused");
		{
			bf_buf		w = y;
			unsigned char *old = w.bytes;
			void	   *old_block = w.block;
			bf_mem		m = w.mem;

			CHECK(bf_buf_copy(&w, &w.mem, &w.view, true) == BF_OK &&
				  w.len == y.len && memcmp(w.bytes, old, w.len) == 0,
				  "bf_buf_copy of its own view with its own allocator");
			bf_buf_free(&w);
			m.free(m.arg, old_block);	/* y's bytes */
		}
		bf_buf_free(&x);
		bf_buf_free(&z);
	}
	bf_buf_free(&a);
	bf_buf_free(&c);
	CHECK(h.live == 0, "%d blocks not freed", h.live);
	free(into);
	check_group_end();
}

/* bf_describe of an empty filter of 'p', whole and cut to 10 bytes */
static void
describes(const bf_params *p, const char *want)
{
	unsigned char *buf = check_malloc((size_t) p->total_bytes);
	bf_filter	f;
	char		out[192];

	bf_init(p, buf);
	CHECK(bf_open(buf, (size_t) p->total_bytes, &f) == BF_OK, "open");
	bf_describe(&f, out, sizeof(out));
	CHECK(strcmp(out, want) == 0, "\"%s\"", out);
	bf_describe(&f, out, 10);
	CHECK(strlen(out) == 9, "truncated: \"%s\"", out);
	free(buf);
}

static void
test_names(void)
{
	char		expect[128] = "";
	int			v;
	bf_params	p;

	check_group("bf_variant_list names every variant in order; bf_describe");
	for (v = BF_VARIANT_MIN; v <= BF_VARIANT_MAX; v++)
	{
		if (v > BF_VARIANT_MIN)
			strcat(expect, ", ");
		strcat(expect, bf_variant_name((bf_variant) v));
	}
	CHECK(strcmp(bf_variant_list(), expect) == 0, "\"%s\" against \"%s\"", bf_variant_list(), expect);
	CHECK(bf_plan(BF_CLASSIC, 100, 0.01, 0, &p) == BF_OK, "plan");
	describes(&p, "classic, 959 bits, 7 hashes, seed 0, planned for 100 items at 0.01");
	CHECK(bf_plan_bits(BF_BLOCKED, 1024, 3, 5, &p) == BF_OK, "plan bits");
	describes(&p, "blocked, 1024 bits, 3 hashes, seed 5, built from a bit count");
	check_group_end();
}

int
main(void)
{
	test_placement();
	test_growth();
	test_no_memory();
	test_merge();
	test_names();
	return check_summary("test_buf");
}
