/*
 * bloomfilter.h
 *		PostgreSQL glue of the bloomfilter extension: the varlena type and
 *		the helpers shared by the SQL-callable functions.
 *
 * All filter logic lives in the core (src/core/bf.h); this layer turns SQL
 * values into core calls, caches what can be cached per call site, and
 * turns core status codes into ereports.
 */
#ifndef BLOOMFILTER_H
#define BLOOMFILTER_H

#include "postgres.h"

#include "compat.h"
#include "fmgr.h"
#include "utils/expandeddatum.h"

#include "bf.h"

/*
 * The SQL value: a varlena whose data are exactly the core's serialised
 * filter, so f::bytea yields the bytes STORAGE.md documents.
 */
typedef struct BloomFilter
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	unsigned char data[FLEXIBLE_ARRAY_MEMBER];	/* header, then payload */
} BloomFilter;

#define DatumGetBloomFilterP(d)		((BloomFilter *) PG_DETOAST_DATUM(d))
#define DatumGetBloomFilterPCopy(d) ((BloomFilter *) PG_DETOAST_DATUM_COPY(d))
#define PG_GETARG_BLOOMFILTER_P(n)	DatumGetBloomFilterP(PG_GETARG_DATUM(n))
#define PG_GETARG_BLOOMFILTER_P_COPY(n) \
	DatumGetBloomFilterPCopy(PG_GETARG_DATUM(n))
#define PG_RETURN_BLOOMFILTER_P(x)	PG_RETURN_POINTER(x)

/*
 * A filter the backend owns and may modify, grow or replace, its payload
 * on a 64-byte boundary when it stays inside the backend (filter_buf.c):
 * the core's bf_buf, whose bytes follow a varlena header.
 */
typedef struct FilterBuf
{
	bf_buf		b;				/* bytes, their view (b.view), kept current */
	bf_pending	pending;		/* deferred adds (bf_add_later) */
} FilterBuf;

/* The filter as a varlena (aligned: not to leave the backend as it is) */
static inline struct varlena *
filterbuf_flat(const FilterBuf *fb)
{
	return (struct varlena *) (fb->b.bytes - VARHDRSZ);
}

/* What was asked of a filter, for the errors of errors.c */
typedef enum FilterOp
{
	FILTER_ADD,
	FILTER_REMOVE,
	FILTER_UNION,
	FILTER_INTERSECT,
	FILTER_COUNT
} FilterOp;

/*
 * The sizing arguments bloomfilter_agg planned a state's filter from, which
 * every later row of its group must repeat (aggregates.c)
 */
typedef struct AggSizing
{
	bool		known;			/* false: a state not made from them */
	int64		items;
	float8		fpr;
	bf_variant	variant;
	text	   *variant_text;	/* the variant as given (or NULL) */
} AggSizing;

/*
 * The aggregates' state: the filter kept inside an expanded object so that
 * nodeAgg adopts it without copying (agg_state.c), and what it was sized by.
 */
typedef struct BloomState
{
	ExpandedObjectHeader hdr;
	FilterBuf	fb;				/* in hdr's context */
	AggSizing	sizing;
} BloomState;

/*
 * How one call site hashes its element argument, worked out once from the
 * argument's type and kept in fn_extra.  STORAGE.md section 6 documents the
 * canonical bytes of each kind.
 */
typedef enum ElementKind
{
	ELEM_INTEGER,				/* int2, int4, int8: 8-byte little-endian */
	ELEM_BYTES,					/* text, varchar, bytea: the raw bytes */
	ELEM_BPCHAR,				/* char(n): the bytes less trailing spaces */
	ELEM_UUID,					/* the 16 bytes */
	ELEM_TEXT_OUT,				/* output text (database encoding): string
								 * types, enums, json, xml, tsvector, ...;
								 * scheme 1: jsonb and user-defined types */
	ELEM_SEND,					/* the binary send form of a built-in type
								 * whose send form holds only the value */
	ELEM_FIXED_BE,				/* the same for a type passed by value whose
								 * send form is its bytes, big-endian (dates,
								 * timestamps, bool, oid, ...), from the datum */
	/* scheme 2 only */
	ELEM_NUMERIC,				/* an integer as ELEM_INTEGER, else the
								 * decimal text without trailing zeros */
	ELEM_FLOAT4,				/* as float8 */
	ELEM_FLOAT8,				/* the double, -0 as 0, one NaN */
	ELEM_INTERVAL,				/* the span in microseconds (30-day months) */
	ELEM_INET,					/* family, bits and address (inet = cidr) */
	ELEM_TYPE_HASH,				/* the type's own extended hash */
	ELEM_TYPE_HASH32,			/* the type's own 32-bit hash */
	/* containers: from the canonical bytes of their parts */
	ELEM_ARRAY,					/* dimensions, bounds, then each element */
	ELEM_RECORD,				/* composite or record: each column */
	ELEM_RANGE,					/* flags, then the bounds */
	ELEM_MULTIRANGE,			/* the count, then each range */
	ELEM_JSONB					/* scheme 2: its tokens, numbers as numeric */
} ElementKind;

struct RowHasher;
struct TypeCacheEntry;

typedef struct ElementHasher
{
	Oid			type;
	Oid			collation;		/* of the comparisons: the call's */
	uint8		scheme;			/* the hash scheme it hashes by */
	ElementKind kind;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	FmgrInfo	io;				/* send, output or hash function, if needed */
	/* the containers' parts, in mcxt */
	struct ElementHasher *sub;	/* array element or range subtype */
	struct TypeCacheEntry *range;	/* range type (of a multirange too) */
	struct RowHasher *rows;		/* row types met so far, per typmod */
	struct ElementHasher *other;	/* the same type by the other scheme,
									 * made when a filter asks for it */
	MemoryContext mcxt;
	MemoryContext scratch;		/* per-value memory of a container, reset
								 * after each value */
	MemoryContext site;			/* of a call site's hasher: what it keeps,
								 * emptied when the site meets another type */
} ElementHasher;

/*
 * A filter argument cached for one call site, so that a constant, a
 * subquery result or a stored (TOASTed) filter is detoasted and validated
 * once per query rather than once per row.
 */
typedef struct FilterCache
{
	int			kind;			/* what identifies the cached value */
	Oid			toastrelid;		/* TOAST pointer identity */
	Oid			valueid;
	void	   *key;			/* inline compressed datum, byte for byte */
	Size		keylen;
	const void *pointer;		/* stable in-memory datum */
	unsigned char header[BF_HEADER_SIZE];	/* of the last plain datum */
	FilterBuf	copy;			/* detoasted copy, in fn_mcxt */
	bf_filter	filter;			/* view over the cached bytes */
} FilterCache;

/* Per-call-site state of the membership functions */
typedef struct CallCache
{
	ElementHasher elem;
	FilterCache filter;
	uint8		inplace;		/* INPLACE_*: does this call site get its
								 * result back to change in place? */
} CallCache;

#define INPLACE_UNKNOWN	0
#define INPLACE_TRIED	1		/* the last result was an expanded object */
#define INPLACE_WORKS	2		/* an expanded result came back read-write */
#define INPLACE_USELESS	3		/* it did not: return plain values here */

/* filter_value.c */
extern void filter_open(struct varlena *bf, bf_filter *view);
extern BloomFilter *filter_getarg(FunctionCallInfo fcinfo, int argno,
								  bf_filter *view);
extern void filter_open_input(const void *data, Size len, bf_filter *view,
							  bool binary);
extern bf_variant variant_from_text(text *name);
extern BloomFilter *filter_new(const bf_params *params);

/* errors.c */
extern int	errhint_split_set(bool or_rate);
pg_noreturn extern void report_corrupted(bf_status st);
pg_noreturn extern void report_invalid_input(bf_status st, bool binary);
pg_noreturn extern void report_plan_failure(bf_status st, bf_variant variant,
											 const char *function);
pg_noreturn extern void report_incompatible(const bf_filter *a,
											const bf_filter *b);
pg_noreturn extern void report_unsupported(const bf_filter *f, FilterOp op);
pg_noreturn extern void report_buf_failure(const bf_filter *f, bf_status st,
										   uint64 wanted, FilterOp op);

/* sizing_fns.c */
extern void plan_sized(bf_variant variant, int64 items, double fpr,
					   int64 seed, bf_params *params);
extern BloomFilter *create_sized(bf_variant variant, int64 items, double fpr,
								 int64 seed);

/* element.c */
extern bool element_plain_kind(Oid type, ElementKind *kind);
extern bool element_direct_kind(Oid type, Oid collation, ElementKind *kind);
extern bool is_implicit_relabel(const struct Node *node);
extern void element_hasher_init(ElementHasher *eh, Oid type, Oid collation,
								MemoryContext mcxt);
extern ElementHasher *element_hasher_of_scheme(ElementHasher *eh,
											   uint8 scheme);
extern bool element_allocates(const ElementHasher *eh);
extern void element_hasher_init_checked(FunctionCallInfo fcinfo,
										ElementHasher *eh, Oid type,
										int filter_argno);
extern bf_hash element_hash_any(ElementHasher *eh, Datum value, uint64 seed);
extern ElementHasher *element_hasher_for_arg(FunctionCallInfo fcinfo,
											 CallCache *cc, int argno);

/* filter_buf.c */
extern void yield_for_interrupts(void *arg);
extern void filterbuf_alloc(FilterBuf *fb, MemoryContext mcxt, Size bytes,
							bool aligned);
extern void filterbuf_create(FilterBuf *fb, MemoryContext mcxt,
							 const bf_params *params);
extern struct varlena *filterbuf_detach(FilterBuf *fb);
extern void filterbuf_copy(FilterBuf *fb, MemoryContext mcxt,
						   struct varlena *bf, bool aligned);
extern void filterbuf_load(FilterBuf *fb, MemoryContext mcxt,
						   struct varlena *raw);
extern void filterbuf_adopt(FilterBuf *fb, MemoryContext mcxt,
							struct varlena *bf);
extern void filterbuf_free(FilterBuf *fb);
extern void filterbuf_add(FilterBuf *fb, bf_hash h);
extern void filterbuf_flush(FilterBuf *fb);
extern void filterbuf_merge(FilterBuf *fb, const bf_filter *src,
							bool intersect);
extern struct varlena *filter_merge_new(const bf_filter *a, const bf_filter *b,
										bool intersect);
extern void filter_check_add(const bf_filter *f, bf_hash h);

/* agg_state.c */
extern BloomState *bloom_state_create(MemoryContext parent,
									  const bf_params *params);
extern BloomState *bloom_state_copy(MemoryContext parent, BloomFilter *bf);
extern BloomState *bloom_state_from_datum(Datum d, bool flush);
extern const ExpandedObjectMethods bloom_state_methods;
extern Datum bloom_state_datum(BloomState *state);


/*
 * SQL functions the planner glue (prefetch_scan.c, agg_scan.c,
 * selectivity.c) recognises by their C address in a plan
 */
extern PGDLLEXPORT Datum bloomfilter_contains(PG_FUNCTION_ARGS);	/* membership.c */
extern PGDLLEXPORT Datum bloomfilter_contained(PG_FUNCTION_ARGS);	/* membership.c */
extern PGDLLEXPORT Datum bloomfilter_in(PG_FUNCTION_ARGS);	/* type_io.c */
extern PGDLLEXPORT Datum bloomfilter_agg_trans(PG_FUNCTION_ARGS);	/* aggregates.c */

/* selectivity.c: is the type (or a domain's base type) this bloomfilter */
extern bool type_is_bloomfilter(Oid type);

/* aggregates.c */
extern void agg_plan_params(const NullableDatum *sizing, int nsizing,
							bf_params *params);

/*
 * prefetch_scan.c, join_scan.c, agg_scan.c: their settings (module.c
 * defines them; bloomfilter.prefetch_scan is the join scan's too) and set-up
 */
extern bool prefetch_scan_enabled;
extern bool agg_scan_enabled;
extern void prefetch_scan_init(void);
extern void join_scan_init(void);
extern void agg_scan_init(void);

/* join_filter/placement.c: bloomfilter.join_filter */
typedef enum JoinFilterMode
{
	JOIN_FILTER_OFF,
	JOIN_FILTER_ON,
	JOIN_FILTER_ALWAYS
} JoinFilterMode;

extern int	join_filter_mode;
extern void join_filter_init(void);

/* filter_cache.c */
extern CallCache *call_cache_of(FunctionCallInfo fcinfo);
extern bf_filter *filter_cache_fetch(FunctionCallInfo fcinfo, FilterCache *fc,
									 int argno);
extern struct Node *call_arg_expr(FmgrInfo *flinfo, int argno);

/* inplace.c */
extern void inplace_init(void);
extern void inplace_count_copy(void);
extern BloomState *inplace_target(FunctionCallInfo fcinfo, CallCache *cc);
extern bool inplace_wanted(FunctionCallInfo fcinfo, CallCache *cc);

/*
 * Hot-path helpers, inlined into the per-row functions
 */

/*
 * The hash of an element for filter f (by f's hash scheme, with its seed):
 * a short inline text or bytea here, the rest in element.c.  A TOAST pointer has a 1-byte header too (VARATT_IS_SHORT is
 * true for it), so it is told apart before its header is read as a length.
 */
static inline bf_hash
element_hash(ElementHasher *eh, Datum value, const bf_filter *f)
{
	uint64		seed = f->seed;

	if (unlikely(f->scheme != eh->scheme))
		eh = element_hasher_of_scheme(eh, f->scheme);
	if (eh->kind == ELEM_BYTES && VARATT_IS_SHORT(DatumGetPointer(value)) &&
		!VARATT_IS_EXTERNAL(DatumGetPointer(value)))
		return bf_hash_bytes(VARDATA_SHORT(DatumGetPointer(value)),
							 VARSIZE_SHORT(DatumGetPointer(value)) - VARHDRSZ_SHORT,
							 seed);
	return element_hash_any(eh, value, seed);
}

/*
 * Adds one hash a little later (bf_add_later): its cache line is fetched
 * while the next elements are hashed.  Readers call filterbuf_flush first.
 */
static inline void
filterbuf_add_deferred(FilterBuf *fb, bf_hash h)
{
	if (!bf_add_later(&fb->b.view, &fb->pending, h))
		filterbuf_add(fb, h);
}

/* The aggregate state a transition function handed back, or NULL */
static inline BloomState *
bloom_state_rw(Datum d)
{
	if (!VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)) ||
		DatumGetEOHP(d)->eoh_methods != &bloom_state_methods)
		return NULL;
	return (BloomState *) DatumGetEOHP(d);
}

/*
 * The aggregates' add (filter_buf.c): a set's insert, bf_add_new.  The
 * variants that defer their adds (blocked) store a repeat as no change
 * anyway, so only the others take the set path.
 */
extern void filterbuf_add_new(FilterBuf *fb, bf_hash h);

static inline void
filterbuf_add_new_deferred(FilterBuf *fb, bf_hash h)
{
	if (!bf_add_later(&fb->b.view, &fb->pending, h))
		filterbuf_add_new(fb, h);
}

#endif							/* BLOOMFILTER_H */
