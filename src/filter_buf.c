/*
 * filter_buf.c
 *		A filter the backend owns and may modify, grow or replace.
 *
 * Its bytes are placed so that the payload starts on a 64-byte boundary:
 * every 512-bit block of a blocked filter is then exactly one cache line,
 * and an add or a probe costs one cache miss, not two.  (A palloc'd varlena
 * puts the payload 68 bytes past an 8-byte boundary, so most blocks would
 * straddle two lines.)  An aligned varlena need not start its chunk, so it
 * must never leave the backend's own hands as a Datum (PostgreSQL may pfree
 * a Datum, e.g. a PL/pgSQL variable's old value): filters that functions
 * return are allocated unaligned.  'alloc' is what to free.
 */
#include "bloomfilter.h"

#include <sys/mman.h>

#include "access/detoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#define CACHE_LINE	64

/*
 * Copies of a filter go in pieces of this size, with a check for query
 * cancel after each: a 1 GB copy takes about half a second
 */
#define COPY_PIECE	(4 * 1024 * 1024)

/*
 * Filters from this size on are placed on 2 MB boundaries and offered to
 * the kernel as transparent huge pages: a probe then costs a cache miss but
 * rarely a TLB miss, which with 4 kB pages would add a page walk per probe.
 */
#define HUGE_PAGE	(2 * 1024 * 1024)
#define HUGE_FROM	HUGE_PAGE

/*
 * Room for 'bytes' serialised bytes; contents undefined.  A huge-page
 * payload is given whole huge pages (the last one partly unused), so that
 * every block of it lies on one.
 */
void
filterbuf_alloc(FilterBuf *fb, MemoryContext mcxt, Size bytes, bool aligned)
{
	Size		boundary = !aligned ? 1 : bytes >= HUGE_FROM ? HUGE_PAGE : CACHE_LINE;
	Size		room = boundary != HUGE_PAGE ? bytes :
		BF_HEADER_SIZE + TYPEALIGN(HUGE_PAGE, bytes - BF_HEADER_SIZE);
	Size		size = VARHDRSZ + room + boundary - 1;
	char	   *raw = MemoryContextAllocExtended(mcxt, size, MCXT_ALLOC_HUGE);
	uintptr_t	payload = (uintptr_t) raw + VARHDRSZ + BF_HEADER_SIZE;
	Size		pad = (boundary - payload % boundary) % boundary;

	fb->alloc = raw;
	fb->mcxt = mcxt;
	fb->aligned = aligned;
	fb->pending.count = 0;
	fb->flat = (struct varlena *) (raw + pad);
	SET_VARSIZE(fb->flat, VARHDRSZ + bytes);
#ifdef MADV_HUGEPAGE
	if (boundary == HUGE_PAGE)
		(void) madvise((char *) fb->flat + VARHDRSZ + BF_HEADER_SIZE,
					   room - BF_HEADER_SIZE, MADV_HUGEPAGE);
#endif
}

/*
 * memmove of n bytes in pieces, front first (so dst may overlap src when it
 * lies below it), honouring query cancel between them
 */
static void
move_interruptible(char *dst, const char *src, Size n)
{
	while (n > 0)
	{
		Size		len = Min(n, COPY_PIECE);

		memmove(dst, src, len);
		dst += len;
		src += len;
		n -= len;
		CHECK_FOR_INTERRUPTS();
	}
}

/* A new, empty filter of the planned shape, opened */
void
filterbuf_create(FilterBuf *fb, MemoryContext mcxt, const bf_params *params)
{
	filterbuf_alloc(fb, mcxt, params->total_bytes, true);
	bf_init_yield(params, VARDATA(fb->flat), bloomfilter_yield, NULL);
	bloomfilter_open(fb->flat, &fb->view);
}

/*
 * The filter as a Datum that may leave the backend's hands: the deferred
 * adds applied, and an aligned filter moved to the start of its chunk (no
 * second copy of a large filter).  The buffer no longer owns it.
 */
struct varlena *
filterbuf_detach(FilterBuf *fb)
{
	struct varlena *bf = fb->alloc;

	filterbuf_flush(fb);
	if ((void *) fb->flat != fb->alloc)
		move_interruptible((char *) bf, (char *) fb->flat, VARSIZE(fb->flat));
	fb->alloc = NULL;
	fb->flat = NULL;
	return bf;
}

/* A copy of a detoasted filter, opened */
void
filterbuf_copy(FilterBuf *fb, MemoryContext mcxt, struct varlena *bf,
			   bool aligned)
{
	filterbuf_alloc(fb, mcxt, VARSIZE_ANY_EXHDR(bf), aligned);
	move_interruptible(VARDATA(fb->flat), VARDATA_ANY(bf), VARSIZE_ANY_EXHDR(bf));
	bloomfilter_open(fb->flat, &fb->view);
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
											 0, size, fb->flat);
			table_close(toastrel, AccessShareLock);
			bloomfilter_open(fb->flat, &fb->view);
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
	fb->alloc = bf;
	fb->flat = bf;
	fb->mcxt = mcxt;
	fb->aligned = false;
	fb->pending.count = 0;
	bloomfilter_open(fb->flat, &fb->view);
}

void
filterbuf_free(FilterBuf *fb)
{
	if (fb->alloc)
		pfree(fb->alloc);
	fb->alloc = NULL;
	fb->flat = NULL;
}

/* Bytes a grown filter needs, refused past what one value holds */
Size
bloomfilter_checked_size(const bf_filter *view, uint64 bytes)
{
	if (bytes == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter cannot grow further"),
				 errdetail("The %s filter has as many stages as its format allows.",
						   bf_variant_name(view->variant)),
				 errhint("Split the set across several filters, or plan the filter for more items.")));
	if (bytes > BF_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter cannot grow past the 1 GB limit of one value"),
				 errdetail("The %s filter would need " UINT64_FORMAT " bytes.",
						   bf_variant_name(view->variant), bytes),
				 errhint("Split the set across several filters, for example one per day or per hash range.")));
	return (Size) bytes;
}

/* Replaces the bytes with 'next' (already written), freeing the old ones */
static void
replace(FilterBuf *fb, FilterBuf *next)
{
	filterbuf_free(fb);
	fb->flat = next->flat;
	fb->alloc = next->alloc;
	bloomfilter_open(fb->flat, &fb->view);
}

/* Another stage for a growing variant that is full */
static void
grow(FilterBuf *fb)
{
	FilterBuf	next;

	filterbuf_alloc(&next, fb->mcxt,
					bloomfilter_checked_size(&fb->view, bf_grow_bytes(&fb->view)),
					fb->aligned);
	bf_grow(&fb->view, VARDATA(next.flat));
	replace(fb, &next);
}

/* An add the core refused for a reason growing cannot help */
static void
add_failed(const bf_filter *view, bf_status st)
{
	if (st == BF_E_COPIES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter cannot hold another copy of this element"),
				 errdetail("A %s filter stores every addition of an element in the element's two buckets, which hold at most %d copies; growing would not add room for more.",
						   bf_variant_name(view->variant), BF_CUCKOO_MAX_COPIES),
				 errhint("To keep a set rather than count additions, build the filter with bloomfilter_agg, which adds each distinct element once, or use the scalable or blocked variant.")));
	elog(ERROR, "could not add to a bloomfilter: %s", bf_status_message(st));
}

/*
 * Adds one hash, as one more copy (bf_add: bloomfilter_add, whose additions
 * bloomfilter_remove takes back one by one); a growing variant that is full
 * first gets another stage
 */
void
filterbuf_add(FilterBuf *fb, bf_hash h)
{
	bf_status	st;

	while ((st = bf_add(&fb->view, h)) == BF_E_FULL)
		grow(fb);
	if (st != BF_OK)
		add_failed(&fb->view, st);
}

/*
 * Adds one hash to a set (bf_add_new: the aggregates): an element a cuckoo
 * filter already holds is not stored again
 */
void
filterbuf_add_new(FilterBuf *fb, bf_hash h)
{
	bf_status	st;

	while ((st = bf_add_new(&fb->view, h)) == BF_E_FULL)
		grow(fb);
	if (st != BF_OK)
		add_failed(&fb->view, st);
}

/* Applies every deferred add */
void
filterbuf_flush(FilterBuf *fb)
{
	bf_add_pending(&fb->view, &fb->pending);
}

/*
 * Merges 'src' in: in place when the variant can, else into new bytes of
 * the size the union needs.
 */
void
filterbuf_merge(FilterBuf *fb, const bf_filter *src, bool intersect)
{
	bf_status	st;
	uint64		need;

	filterbuf_flush(fb);
	bloomfilter_check_compatible(&fb->view, src);
	need = intersect ? 0 : bf_union_bytes(&fb->view, src, bloomfilter_yield, NULL);
	if (!intersect && need == 0)
		filterbuf_fail(&fb->view, BF_E_TOO_LARGE, false);
	if (need && need != BF_HEADER_SIZE + fb->view.payload_bytes)
	{
		FilterBuf	next;

		filterbuf_alloc(&next, fb->mcxt, bloomfilter_checked_size(&fb->view, need),
						fb->aligned);
		st = bf_union_into(&fb->view, src, VARDATA(next.flat),
						   bloomfilter_yield, NULL);
		if (st == BF_OK)
			replace(fb, &next);
		else
			filterbuf_free(&next);
	}
	else if (intersect)
		st = bf_intersect(&fb->view, src, bloomfilter_yield, NULL);
	else
		st = bf_union(&fb->view, src, bloomfilter_yield, NULL);
	if (st != BF_OK)
		filterbuf_fail(&fb->view, st, intersect);
}

/* Reports a merge the core refused */
void
filterbuf_fail(const bf_filter *view, bf_status st, bool intersect)
{
	if (st == BF_E_UNSUPPORTED)
		bloomfilter_unsupported(view, intersect ? "intersection" : "union",
								"Intersection is offered by blocked, classic and counting filters, and by scalable filters of a single stage.");
	if (st == BF_E_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloomfilter union would need more stages than the format allows"),
				 errdetail("A %s filter holds at most %d stages.",
						   bf_variant_name(view->variant),
						   view->variant == BF_CUCKOO ? BF_CUCKOO_MAX_STAGES :
						   BF_SCALABLE_MAX_STAGES),
				 errhint("Split the set across several filters, or plan the filters for more items.")));
	elog(ERROR, "could not merge bloomfilters: %s", bf_status_message(st));
}
