/*
 * filter_buf.c
 *		A filter the backend owns and may modify, grow or replace: the core's
 *		bf_buf (src/core/buf.c) over palloc'd memory, its bytes just past a
 *		varlena header so that they are a Datum as they stand.
 *
 * The core places payloads on 64-byte boundaries (every 512-bit block of a
 * blocked filter one cache line) and large ones on huge pages.  A palloc'd
 * varlena would put the payload 68 bytes past an 8-byte boundary, so an
 * aligned varlena need not start its chunk: it must never leave the
 * backend's own hands as a Datum (PostgreSQL may pfree a Datum, e.g. a
 * PL/pgSQL variable's old value).  Filters that functions return are
 * allocated unaligned, or moved to the start of their chunk by
 * filterbuf_detach.
 */
#include "bloomfilter.h"

#include "access/detoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "miscadmin.h"
#include "utils/memutils.h"

/*
 * A detached filter moves in pieces of this size, with a check for query
 * cancel after each: a 1 GB move takes about half a second
 */
#define MOVE_PIECE	(4 * 1024 * 1024)

/* The core's yield hook: lets long loops honour query cancel */
void
yield_for_interrupts(void *arg)
{
	CHECK_FOR_INTERRUPTS();
}

/* bf_mem's alloc: room in the context 'arg', a varlena header before it */
static unsigned char *
alloc_in_context(void *arg, const bf_place *place, void **block)
{
	Size		size = VARHDRSZ + place->room + place->align - 1;
	char	   *raw = MemoryContextAllocExtended((MemoryContext) arg, size,
												 MCXT_ALLOC_HUGE);
	uintptr_t	payload = (uintptr_t) raw + VARHDRSZ + BF_HEADER_SIZE;
	Size		pad = (place->align - payload % place->align) % place->align;
	struct varlena *flat = (struct varlena *) (raw + pad);

	SET_VARSIZE(flat, VARHDRSZ + place->len);
	bf_advise_huge((unsigned char *) VARDATA(flat), place);
	*block = raw;
	return (unsigned char *) VARDATA(flat);
}

static void
free_in_context(void *arg, void *block)
{
	pfree(block);
}

/* The allocator of filters in 'mcxt' */
static bf_mem
mem_of(MemoryContext mcxt)
{
	bf_mem		mem = {alloc_in_context, free_in_context, mcxt,
	yield_for_interrupts, NULL};

	return mem;
}

/* Opens bytes this backend wrote or read from a stored value */
static void
open_buf(FilterBuf *fb)
{
	fb->pending.count = 0;
	filter_open(filterbuf_flat(fb), &fb->b.view);
}

/* A bf_buf call that can fail only on a bug: palloc reports its own */
static void
check_buf(bf_status st)
{
	if (st != BF_OK)
		elog(ERROR, "could not place a bloomfilter: %s", bf_status_message(st));
}

/* Room for 'bytes' serialised bytes; contents undefined */
void
filterbuf_alloc(FilterBuf *fb, MemoryContext mcxt, Size bytes, bool aligned)
{
	bf_mem		mem = mem_of(mcxt);

	check_buf(bf_buf_alloc(&fb->b, &mem, bytes, aligned));
	fb->pending.count = 0;
}

/* A new, empty filter of the planned shape, opened */
void
filterbuf_create(FilterBuf *fb, MemoryContext mcxt, const bf_params *params)
{
	bf_mem		mem = mem_of(mcxt);

	check_buf(bf_buf_create(&fb->b, &mem, params, true));
	fb->pending.count = 0;
}

/*
 * The filter as a Datum that may leave the backend's hands: the deferred
 * adds applied, and an aligned filter moved to the start of its chunk (no
 * second copy of a large filter).  The buffer no longer owns it.
 */
struct varlena *
filterbuf_detach(FilterBuf *fb)
{
	struct varlena *bf = fb->b.block;
	char	   *src;
	char	   *dst = (char *) bf;
	Size		n;

	/* a buffer that owns its bytes, not yet detached */
	Assert(fb->b.bytes != NULL && bf != NULL);
	filterbuf_flush(fb);
	src = (char *) filterbuf_flat(fb);	/* after the flush: current bytes */
	n = VARSIZE(src);
	/* front first: dst lies below src */
	while (dst != src && n > 0)
	{
		Size		len = Min(n, MOVE_PIECE);

		memmove(dst, src, len);
		dst += len;
		src += len;
		n -= len;
		CHECK_FOR_INTERRUPTS();
	}
	fb->b.block = NULL;
	fb->b.bytes = NULL;
	return bf;
}

/* A copy of a detoasted filter, opened */
void
filterbuf_copy(FilterBuf *fb, MemoryContext mcxt, struct varlena *bf,
			   bool aligned)
{
	bf_filter	view;
	bf_mem		mem = mem_of(mcxt);

	filter_open(bf, &view);
	check_buf(bf_buf_copy(&fb->b, &mem, &view, aligned));
	fb->pending.count = 0;
}

/*
 * An aligned copy of a filter datum of any storage, opened.  A value stored
 * out of line and not compressed (the type's storage is external) is read
 * from its TOAST table straight into the buffer: one copy, and the filter's
 * own size in memory, not two of each as detoasting and copying would take.
 */
void
filterbuf_load(FilterBuf *fb, MemoryContext mcxt, struct varlena *raw)
{
	struct varlena *detoasted;

	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		struct varatt_external ext;

		VARATT_EXTERNAL_GET_POINTER(ext, raw);
		if (!VARATT_EXTERNAL_IS_COMPRESSED(ext))
		{
			int32		size = VARATT_EXTERNAL_GET_EXTSIZE(ext);
			Relation	toastrel;

			filterbuf_alloc(fb, mcxt, size, true);
			toastrel = table_open(ext.va_toastrelid, AccessShareLock);
			table_relation_fetch_toast_slice(toastrel, ext.va_valueid, size,
											 0, size, filterbuf_flat(fb));
			table_close(toastrel, AccessShareLock);
			open_buf(fb);
			return;
		}
	}
	detoasted = VARATT_IS_EXTENDED(raw) ? detoast_attr(raw) : raw;
	filterbuf_copy(fb, mcxt, detoasted, true);
	if (detoasted != raw)
		pfree(detoasted);
}

/* Takes over a palloc'd, detoasted filter of our own (unaligned), opened */
void
filterbuf_adopt(FilterBuf *fb, MemoryContext mcxt, struct varlena *bf)
{
	memset(&fb->b, 0, sizeof(fb->b));
	fb->b.mem = mem_of(mcxt);
	fb->b.block = bf;
	fb->b.bytes = (unsigned char *) VARDATA(bf);
	fb->b.len = VARSIZE(bf) - VARHDRSZ;
	open_buf(fb);
}

void
filterbuf_free(FilterBuf *fb)
{
	bf_buf_free(&fb->b);
}

/*
 * Adds one hash, as one more copy (bf_add: bloomfilter_add, whose additions
 * bloomfilter_remove takes back one by one); a growing variant that is full
 * first gets another stage
 */
void
filterbuf_add(FilterBuf *fb, bf_hash h)
{
	bf_status	st = bf_buf_add(&fb->b, h, false);

	if (st != BF_OK)
		report_buf_failure(&fb->b.view, st, fb->b.wanted, FILTER_ADD);
}

/*
 * Adds one hash to a set (bf_add_new: the aggregates): an element a cuckoo
 * filter already holds is not stored again
 */
void
filterbuf_add_new(FilterBuf *fb, bf_hash h)
{
	bf_status	st = bf_buf_add(&fb->b, h, true);

	if (st != BF_OK)
		report_buf_failure(&fb->b.view, st, fb->b.wanted, FILTER_ADD);
}

/* Applies every deferred add */
void
filterbuf_flush(FilterBuf *fb)
{
	bf_add_pending(&fb->b.view, &fb->pending);
}

/*
 * Merges 'src' in: in place when the variant can, else into new bytes of
 * the size the union needs
 */
void
filterbuf_merge(FilterBuf *fb, const bf_filter *src, bool intersect)
{
	bf_status	st;

	filterbuf_flush(fb);
	if (!bf_compatible(&fb->b.view, src))
		report_incompatible(&fb->b.view, src);
	st = bf_buf_merge(&fb->b, src, intersect);
	if (st != BF_OK)
		report_buf_failure(&fb->b.view, st, fb->b.wanted,
						   intersect ? FILTER_INTERSECT : FILTER_UNION);
}

/*
 * a | b or a & b in new, unaligned bytes, as a Datum; neither input
 * changes.  A union that needs more room than a (growing variants) is
 * sized and checked against the 1 GB limit before anything is copied.
 */
struct varlena *
filter_merge_new(const bf_filter *a, const bf_filter *b, bool intersect)
{
	FilterBuf	out;
	bf_mem		mem = mem_of(CurrentMemoryContext);
	bf_status	st;

	if (!bf_compatible(a, b))
		report_incompatible(a, b);
	st = bf_merge_new(a, b, intersect, &mem, false, &out.b);
	if (st != BF_OK)
		report_buf_failure(a, st, out.b.wanted,
						   intersect ? FILTER_INTERSECT : FILTER_UNION);
	return filterbuf_flat(&out);
}

/* Refuses, before anything is copied, an add of h that f has no room for */
void
filter_check_add(const bf_filter *f, bf_hash h)
{
	uint64		wanted;
	bf_status	st = bf_add_check(f, h, &wanted);

	if (st != BF_OK)
		report_buf_failure(f, st, wanted, FILTER_ADD);
}
