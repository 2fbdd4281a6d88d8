/*
 * filter_cache.c
 *		Per-call-site cache of a filter argument.
 *
 * A probe such as  WHERE (SELECT f FROM filters WHERE id = 1) @> url  or a
 * join against a stored filter sees the same large, TOASTed value on every
 * row.  Detoasting it per row would copy the whole filter per row, so the
 * first call detoasts it into an aligned copy in fn_mcxt (filter_buf.c) and
 * later calls reuse the copy as long as they are handed the same value:
 *
 * - an on-disk TOAST pointer is identified by its (toast relation, value id),
 *   which no other stored value shares;
 * - an inline compressed datum is small (it fits in a heap tuple), so it is
 *   compared byte for byte with the one that produced the copy;
 * - an aggregate's in-memory state (agg_state.c) is read in place;
 * - a plain datum needs no detoasting; it is re-read in place on each call,
 *   except that a Const argument is decoded only once, and a datum with the
 *   header of the previous one skips the header checks (bf_open_like): a
 *   small filter from an initplan is handed over anew on every row.  Pointer identity
 *   alone is not trusted otherwise: memory is reused between rows, between
 *   rescans of an initplan, and between assignments of a PL/pgSQL variable
 *   (an external Param whose expression state outlives each value).
 */
#include "bloomfilter.h"

#include "access/detoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "nodes/primnodes.h"

#define FC_NONE			0
#define FC_TOAST		1
#define FC_COMPRESSED	2
#define FC_STABLE		3
#define FC_HEADER		4

/* Is argument 'argno' of the call a Const, fixed for the expression's life? */
static bool
arg_is_const(FmgrInfo *flinfo, int argno)
{
	Node	   *expr = flinfo->fn_expr;
	List	   *args;

	if (expr == NULL)
		return false;
	if (IsA(expr, FuncExpr))
		args = ((FuncExpr *) expr)->args;
	else if (IsA(expr, OpExpr))
		args = ((OpExpr *) expr)->args;
	else
		return false;
	return argno < list_length(args) && IsA(list_nth(args, argno), Const);
}

/* Forgets the cached copy */
static void
cache_reset(FilterCache *fc)
{
	filterbuf_free(&fc->copy);
	if (fc->key)
		pfree(fc->key);
	fc->key = NULL;
	fc->kind = FC_NONE;
}

/*
 * Replaces the cached copy with the stored value 'ext' points to, read from
 * its TOAST table straight into the aligned buffer: a stored filter (never
 * compressed, as the type's storage is external) then costs one copy and
 * its own size in memory, not two of each as detoasting and copying would.
 */
static void
cache_fetch(FunctionCallInfo fcinfo, FilterCache *fc,
			const struct varatt_external *ext)
{
	int32		size = VARATT_EXTERNAL_GET_EXTSIZE(*ext);
	Relation	toastrel;

	cache_reset(fc);
	filterbuf_alloc(&fc->copy, fcinfo->flinfo->fn_mcxt, size, true);
	toastrel = table_open(ext->va_toastrelid, AccessShareLock);
	table_relation_fetch_toast_slice(toastrel, ext->va_valueid, size, 0, size,
									 fc->copy.flat);
	table_close(toastrel, AccessShareLock);
	bloomfilter_open(fc->copy.flat, &fc->copy.view);
	fc->filter = fc->copy.view;
}

/* Replaces the cached copy with a detoasted copy of 'raw' */
static void
cache_detoast(FunctionCallInfo fcinfo, FilterCache *fc, struct varlena *raw)
{
	struct varlena *detoasted;

	cache_reset(fc);
	detoasted = detoast_attr(raw);
	filterbuf_copy(&fc->copy, fcinfo->flinfo->fn_mcxt, detoasted, true);
	pfree(detoasted);
	fc->filter = fc->copy.view;
}

bf_filter *
filter_cache_fetch(FunctionCallInfo fcinfo, FilterCache *fc, int argno)
{
	struct varlena *raw = (struct varlena *) PG_GETARG_POINTER(argno);

	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		struct varatt_external ext;

		VARATT_EXTERNAL_GET_POINTER(ext, raw);
		if (fc->kind == FC_TOAST && fc->valueid == ext.va_valueid &&
			fc->toastrelid == ext.va_toastrelid)
			return &fc->filter;
		if (VARATT_EXTERNAL_IS_COMPRESSED(ext))
			cache_detoast(fcinfo, fc, raw);
		else
			cache_fetch(fcinfo, fc, &ext);
		fc->kind = FC_TOAST;
		fc->toastrelid = ext.va_toastrelid;
		fc->valueid = ext.va_valueid;
		return &fc->filter;
	}
	if (VARATT_IS_COMPRESSED(raw))
	{
		Size		len = VARSIZE(raw);

		if (fc->kind == FC_COMPRESSED && fc->keylen == len &&
			memcmp(fc->key, raw, len) == 0)
			return &fc->filter;
		cache_detoast(fcinfo, fc, raw);
		fc->key = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, len);
		memcpy(fc->key, raw, len);
		fc->keylen = len;
		fc->kind = FC_COMPRESSED;
		return &fc->filter;
	}
	if (VARATT_IS_EXTERNAL_EXPANDED(raw))
	{
		BloomState *state = bloom_state_from_datum(PointerGetDatum(raw), true);

		/* an aggregate's result, read in place */
		if (state)
		{
			fc->filter = state->fb.view;
			fc->kind = FC_NONE;
			return &fc->filter;
		}
	}
	if (VARATT_IS_EXTERNAL(raw))
	{
		/* indirect: nothing identifies it; detoast per call */
		bloomfilter_open(detoast_attr(raw), &fc->filter);
		fc->kind = FC_NONE;
		return &fc->filter;
	}
	if (fc->kind == FC_STABLE && fc->pointer == raw)
		return &fc->filter;
	if (fc->kind == FC_HEADER)
	{
		bf_status	st = bf_open_like(fc->header, &fc->filter, VARDATA_ANY(raw),
									  VARSIZE_ANY_EXHDR(raw), &fc->filter);

		if (st == BF_OK)
		{
			memcpy(fc->header, VARDATA_ANY(raw), BF_HEADER_SIZE);
			return &fc->filter;
		}
		fc->kind = FC_NONE;
	}
	bloomfilter_open(raw, &fc->filter);
	fc->pointer = raw;
	fc->kind = arg_is_const(fcinfo->flinfo, argno) ? FC_STABLE : FC_HEADER;
	if (fc->kind == FC_HEADER)
		memcpy(fc->header, VARDATA_ANY(raw), BF_HEADER_SIZE);
	return &fc->filter;
}
