/*
 * buf.c
 *		A filter in memory that grows: placement, adding with growth, and
 *		unions that need more room, over the owner's allocator (bf.h).
 */
#define _DEFAULT_SOURCE			/* MADV_HUGEPAGE under -std=c99 */

#include "bf_internal.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

/* Payloads on a 64-byte boundary; from 2 MB on, on huge pages */
#define CACHE_LINE	64
#define HUGE_FROM	BF_HUGE_PAGE

void
bf_placement(size_t len, bool aligned, bf_place *place)
{
	place->len = len;
	place->room = len;
	place->align = !aligned ? 1 : len >= HUGE_FROM ? BF_HUGE_PAGE : CACHE_LINE;
	/* whole huge pages, so that every block lies on one */
	if (place->align == BF_HUGE_PAGE)
		place->room = BF_HEADER_SIZE +
			(len - BF_HEADER_SIZE + BF_HUGE_PAGE - 1) / BF_HUGE_PAGE * BF_HUGE_PAGE;
}

void
bf_advise_huge(unsigned char *header, const bf_place *place)
{
#ifdef MADV_HUGEPAGE
	if (place->align == BF_HUGE_PAGE)
		(void) madvise(header + BF_HEADER_SIZE, place->room - BF_HEADER_SIZE,
					   MADV_HUGEPAGE);
#else
	(void) header;
	(void) place;
#endif
}

bf_status
bf_buf_alloc(bf_buf *b, const bf_mem *mem, size_t len, bool aligned)
{
	bf_place	place;
	bf_mem		own = *mem;		/* mem may lie in *b */

	memset(b, 0, sizeof(*b));
	b->mem = own;
	b->aligned = aligned;
	if (len > BF_MAX_BYTES)
	{
		b->wanted = len;
		return BF_E_TOO_LARGE;
	}
	bf_placement(len, aligned, &place);
	b->bytes = own.alloc(own.arg, &place, &b->block);
	if (b->bytes == NULL)
		return BF_E_NO_MEMORY;
	b->len = len;
	return BF_OK;
}

/* Opens bytes this core wrote: they are valid by construction */
static bf_status
open_own(bf_buf *b)
{
	return bf_open(b->bytes, b->len, &b->view);
}

bf_status
bf_buf_create(bf_buf *b, const bf_mem *mem, const bf_params *params,
			  bool aligned)
{
	bf_status	st = bf_buf_alloc(b, mem, params->total_bytes, aligned);

	if (st != BF_OK)
		return st;
	bf_init_yield(params, b->bytes, mem->yield, mem->yield_arg);
	return open_own(b);
}

/* memcpy in pieces, ticking after each */
void
bf_copy_ticking(unsigned char *dst, const unsigned char *src, uint64_t bytes,
				bf_ticker *t)
{
	while (bytes > 0)
	{
		uint64_t	len = bytes < BF_YIELD_BYTES ? bytes : BF_YIELD_BYTES;

		memcpy(dst, src, len);
		dst += len;
		src += len;
		bytes -= len;
		bf_tick(t, len * 8);
	}
}

bf_status
bf_buf_copy(bf_buf *b, const bf_mem *mem, const bf_filter *f, bool aligned)
{
	size_t		len = BF_HEADER_SIZE + f->payload_bytes;
	const unsigned char *src = f->base;	/* f may be b->view */
	bf_mem		own = *mem;		/* mem may lie in *b */
	bf_ticker	t = {own.yield, own.yield_arg, 0};
	bf_status	st = bf_buf_alloc(b, &own, len, aligned);

	if (st != BF_OK)
		return st;
	bf_copy_ticking(b->bytes, src, len, &t);
	return open_own(b);
}

void
bf_buf_free(bf_buf *b)
{
	if (b->block)
		b->mem.free(b->mem.arg, b->block);
	b->block = NULL;
	b->bytes = NULL;
	b->len = 0;
}

/*
 * Room for a grown or merged filter of 'bytes' bytes (0: more stages than
 * the format allows), in a buffer like b
 */
static bf_status
alloc_next(bf_buf *b, uint64_t bytes, bf_buf *next)
{
	if (bytes == 0)
		return BF_E_NO_GROWTH;
	if (bytes > BF_MAX_BYTES)
	{
		b->wanted = bytes;
		return BF_E_TOO_LARGE;
	}
	return bf_buf_alloc(next, &b->mem, (size_t) bytes, b->aligned);
}

/* b takes next's bytes (written and valid), freeing its own */
static bf_status
replace(bf_buf *b, bf_buf *next)
{
	bf_buf_free(b);
	b->bytes = next->bytes;
	b->len = next->len;
	b->block = next->block;
	return open_own(b);
}

bf_status
bf_buf_add(bf_buf *b, bf_hash h, bool as_new)
{
	bf_status	st;

	while ((st = as_new ? bf_add_new(&b->view, h) : bf_add(&b->view, h)) ==
		   BF_E_FULL)
	{
		bf_buf		next;

		st = alloc_next(b, bf_grow_bytes(&b->view), &next);
		if (st != BF_OK)
			return st;
		bf_grow(&b->view, next.bytes);
		st = replace(b, &next);
		if (st != BF_OK)
			return st;
	}
	return st;
}

bf_status
bf_add_check(const bf_filter *f, bf_hash h, uint64_t *wanted)
{
	uint64_t	bytes;

	*wanted = 0;
	if (!bf_add_grows(f, h))
		return BF_OK;
	bytes = bf_grow_bytes(f);
	if (bytes == 0)
		return BF_E_NO_GROWTH;
	if (bytes > BF_MAX_BYTES)
	{
		*wanted = bytes;
		return BF_E_TOO_LARGE;
	}
	return BF_OK;
}

/*
 * The bytes a union of a and b needs when a's own do not do (0 when they
 * do); BF_E_NO_GROWTH when it needs more stages than the format allows
 */
static bf_status
union_size(const bf_filter *a, const bf_filter *src, const bf_mem *mem,
		   uint64_t *bytes)
{
	uint64_t	need = bf_union_bytes(a, src, mem->yield, mem->yield_arg);

	*bytes = need == BF_HEADER_SIZE + a->payload_bytes ? 0 : need;
	return need == 0 ? BF_E_NO_GROWTH : BF_OK;
}

bf_status
bf_buf_merge(bf_buf *b, const bf_filter *src, bool intersect)
{
	const bf_mem *mem = &b->mem;
	uint64_t	need = 0;
	bf_status	st;

	if (!bf_compatible(&b->view, src))
		return BF_E_INCOMPATIBLE;
	if (intersect)
		return bf_intersect(&b->view, src, mem->yield, mem->yield_arg);
	st = union_size(&b->view, src, mem, &need);
	if (st != BF_OK)
		return st;
	if (need == 0)
		return bf_union(&b->view, src, mem->yield, mem->yield_arg);
	{
		bf_buf		next;

		st = alloc_next(b, need, &next);
		if (st != BF_OK)
			return st;
		st = bf_union_into(&b->view, src, next.bytes, mem->yield,
						   mem->yield_arg);
		if (st != BF_OK)
		{
			bf_buf_free(&next);
			return st;
		}
		return replace(b, &next);
	}
}

bf_status
bf_merge_new(const bf_filter *a, const bf_filter *b, bool intersect,
			 const bf_mem *mem, bool aligned, bf_buf *out)
{
	uint64_t	need = 0;
	bf_status	st;
	bf_mem		own = *mem;		/* mem may lie in *out, as bf_buf_alloc allows */

	/* a or b in *out would be wiped below, and out's bytes leaked */
	if (a == &out->view || b == &out->view)
		return BF_E_ARGUMENT;
	mem = &own;
	memset(out, 0, sizeof(*out));
	out->mem = own;
	out->aligned = aligned;
	if (!bf_compatible(a, b))
		return BF_E_INCOMPATIBLE;
	if (!intersect && (st = union_size(a, b, mem, &need)) != BF_OK)
		return st;
	if (need != 0)
	{
		/* a union that grows is written straight into its new bytes */
		st = alloc_next(out, need, out);
		if (st == BF_OK)
			st = bf_union_into(a, b, out->bytes, mem->yield, mem->yield_arg);
		if (st == BF_OK)
			st = open_own(out);
	}
	else
	{
		/* in place, in a copy (the union's size is known: not sized again) */
		st = bf_buf_copy(out, mem, a, aligned);
		if (st == BF_OK)
			st = intersect ?
				bf_intersect(&out->view, b, mem->yield, mem->yield_arg) :
				bf_union(&out->view, b, mem->yield, mem->yield_arg);
	}
	if (st != BF_OK)
	{
		uint64_t	wanted = out->wanted;

		bf_buf_free(out);
		out->wanted = wanted;
	}
	return st;
}
