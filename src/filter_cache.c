/*
 * filter_cache.c
 *		Per-call-site cache of a filter argument.
 *
 * A probe such as  WHERE (SELECT f FROM filters WHERE id = 1) @> url  or a
 * join against a stored filter sees the same large, TOASTed value on every
 * row.  Detoasting it per row would copy the whole filter per row, so the
 * first call reads it once into an aligned copy in fn_mcxt (filterbuf_load) and
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
#include "nodes/primnodes.h"

#define FC_NONE			0
#define FC_TOAST		1
#define FC_COMPRESSED	2
#define FC_STABLE		3
#define FC_HEADER		4

/*
 * The expression of argument 'argno' of the call (a function or an
 * operator), or NULL where the call has no expression
 */
Node *
call_arg_expr(FmgrInfo *flinfo, int argno)
{
	Node	   *expr = flinfo->fn_expr;
	List	   *args;

	if (expr == NULL)
		return NULL;
	if (IsA(expr, FuncExpr))
		args = ((FuncExpr *) expr)->args;
	else if (IsA(expr, OpExpr))
		args = ((OpExpr *) expr)->args;
	else
		return NULL;
	return argno < list_length(args) ? list_nth(args, argno) : NULL;
}

/* Is argument 'argno' of the call a Const, fixed for the expression's life? */
static bool
arg_is_const(FmgrInfo *flinfo, int argno)
{
	Node	   *arg = call_arg_expr(flinfo, argno);

	return arg != NULL && IsA(arg, Const);
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

/* Replaces the cached copy with an aligned copy of 'raw' (filterbuf_load) */
static void
cache_detoast(FunctionCallInfo fcinfo, FilterCache *fc, struct varlena *raw)
{
	cache_reset(fc);
	filterbuf_load(&fc->copy, fcinfo->flinfo->fn_mcxt, raw);
	fc->filter = fc->copy.b.view;
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
		cache_detoast(fcinfo, fc, raw);
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
			fc->filter = state->fb.b.view;
			fc->kind = FC_NONE;
			return &fc->filter;
		}
	}
	if (VARATT_IS_EXTERNAL(raw))
	{
		/* indirect: nothing identifies it; detoast per call */
		filter_open(detoast_attr(raw), &fc->filter);
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
	filter_open(raw, &fc->filter);
	fc->pointer = raw;
	fc->kind = arg_is_const(fcinfo->flinfo, argno) ? FC_STABLE : FC_HEADER;
	if (fc->kind == FC_HEADER)
		memcpy(fc->header, VARDATA_ANY(raw), BF_HEADER_SIZE);
	return &fc->filter;
}

/* The per-call-site cache of the membership functions, made on first use */
CallCache *
call_cache_of(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallCache));
	return (CallCache *) fcinfo->flinfo->fn_extra;
}
