/*
 * bf.h
 *		Public interface of the bloomfilter core.
 *
 * The core knows Bloom filters and nothing of PostgreSQL: it is pure C99
 * (plus xxHash), never allocates, and reports failures as bf_status codes.
 * A filter lives in one contiguous buffer holding exactly its serialised
 * form (STORAGE.md): a 64-byte little-endian header followed by the payload.
 * The caller owns that buffer; bf_filter is a decoded view of it.
 *
 * Typical use:
 *		bf_params	p;
 *		bf_plan(BF_BLOCKED, n, fpr, seed, &p);		-- size it
 *		buf = my_alloc(p.total_bytes);
 *		bf_init(&p, buf);							-- empty filter
 *		bf_open(buf, len, &f);						-- validate and view
 *		bf_add(&f, bf_hash_bytes(key, keylen, f.seed));
 *		bf_contains(&f, bf_hash_int64(42, f.seed));
 */
#ifndef BF_H
#define BF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BF_FORMAT_VERSION	1
#define BF_HEADER_SIZE		64
#define BF_MAGIC			"BLMF"

/*
 * How a filter's elements were hashed (the header's hash_scheme): XXH3-128,
 * seeded with the filter seed, of the element's canonical bytes, which the
 * scheme defines (STORAGE.md section 6).  Scheme 1 (releases 1.0 and 1.1)
 * took most built-in types' send form; scheme 2 canonical forms of the
 * type's equality (1.0 and 1.00 alike).  New filters get the current
 * scheme; a filter keeps its scheme for life.
 */
#define BF_HASH_XXH3_128	1
#define BF_HASH_EQUALITY	2
#define BF_HASH_SCHEME_CURRENT	BF_HASH_EQUALITY

/* Most hash functions a filter may use */
#define BF_MAX_HASHES		64

/*
 * Largest serialised filter: what a PostgreSQL varlena can hold after its
 * 4-byte header (1 GB - 1 in all).  Other users of the core share the limit
 * so that every filter can be stored.
 */
#define BF_MAX_BYTES		((uint64_t) 0x3FFFFFFF - 4)

/* Most stages of the growing variants (the header's variant word) */
#define BF_SCALABLE_MAX_STAGES	64
#define BF_CUCKOO_MAX_STAGES	256

/* Blocked layout: every operation touches one 512-bit (64-byte) block */
#define BF_BLOCK_BITS		512
#define BF_BLOCK_BYTES		64

typedef enum bf_variant
{
	BF_BLOCKED = 1,
	BF_CLASSIC = 2,
	BF_COUNTING = 3,
	BF_SCALABLE = 4,
	BF_CUCKOO = 5
} bf_variant;

#define BF_VARIANT_MIN		BF_BLOCKED
#define BF_VARIANT_MAX		BF_CUCKOO

typedef enum bf_status
{
	BF_OK = 0,
	BF_E_ARGUMENT,				/* a sizing argument is out of range */
	BF_E_TOO_LARGE,				/* the filter would pass BF_MAX_BYTES */
	BF_E_SHORT,					/* too short for the header */
	BF_E_TRUNCATED,				/* shorter than the header says */
	BF_E_TRAILING,				/* longer than the header says */
	BF_E_MAGIC,					/* not a bloomfilter at all */
	BF_E_VERSION,				/* a format version this core cannot read */
	BF_E_VARIANT,				/* unknown variant code */
	BF_E_HASH_SCHEME,			/* unknown hash scheme */
	BF_E_FLAGS,					/* reserved header bits set */
	BF_E_HASHES,				/* hash count out of range */
	BF_E_BITS,					/* bit count invalid for the variant */
	BF_E_PAYLOAD,				/* payload size disagrees with the bit count */
	BF_E_PADDING,				/* bits past the end of the filter are set */
	BF_E_TARGET,				/* stored target rate is not a rate */
	BF_E_INCOMPATIBLE,			/* two filters of different parameters */
	BF_E_LAYOUT,				/* stages, buckets or counters inconsistent */
	BF_E_FULL,					/* the filter must grow (bf_grow) first */
	BF_E_NOT_FOUND,				/* remove: the element is not in the filter */
	BF_E_UNSUPPORTED,			/* the variant does not offer the operation */
	BF_E_COPIES,				/* cuckoo: the element's buckets hold as
								 * many copies of it as they can */
	BF_E_NO_GROWTH,				/* a growing filter has every stage its
								 * format allows */
	BF_E_NO_MEMORY,				/* a bf_buf's allocator gave no memory */
	/* the sparse form (bf_sparse_decode) */
	BF_E_SPARSE_RICE,			/* the Rice parameter is past its limit */
	BF_E_SPARSE_COUNT,			/* more set bits than there is room for */
	BF_E_SPARSE_GAP,			/* a gap passes the end of the payload */
	BF_E_SPARSE_END,			/* the codes end before the last gap */
	BF_E_SPARSE_TRAILING		/* bytes or bits after the last gap */
} bf_status;

/* The two 64-bit halves of an element's hash */
typedef struct bf_hash
{
	uint64_t	lo;
	uint64_t	hi;
} bf_hash;

/*
 * Everything that defines a filter's shape; filled by bf_plan or
 * bf_plan_bits and consumed by bf_init.
 */
typedef struct bf_params
{
	bf_variant	variant;
	uint32_t	hashes;			/* k */
	uint32_t	variant_word;	/* the header word at offset 12: stages of
								 * scalable and cuckoo; 0 if unused */
	uint8_t		scheme;			/* hash scheme: BF_HASH_SCHEME_CURRENT
								 * unless the caller sets another */
	uint64_t	seed;
	uint64_t	bits;			/* m */
	uint64_t	expected_items; /* 0 when not sized for a count */
	double		target_fpr;		/* 0 when not sized for a rate */
	uint64_t	payload_bytes;
	uint64_t	total_bytes;	/* header + payload */
} bf_params;

/*
 * A decoded, validated filter.  'base' points at the serialised bytes (the
 * header); 'payload' at the bit array that follows it.  Adding through the
 * view updates both the bits and the header's item count.
 */
typedef struct bf_filter
{
	unsigned char *base;
	unsigned char *payload;
	bf_variant	variant;
	uint32_t	hashes;
	uint32_t	variant_word;	/* the header word at offset 12 */
	uint8_t		scheme;			/* how its elements are hashed */
	uint64_t	seed;
	uint64_t	bits;
	uint64_t	blocks;			/* blocked: bits / 512 */
	uint64_t	items;			/* items added (saturating) */
	uint64_t	expected_items;
	double		target_fpr;
	uint64_t	payload_bytes;
} bf_filter;

/*
 * Hook the core calls every megabyte or so in long loops (union, fill), so
 * that a caller can honour a cancel request; it may longjmp out.
 */
typedef void (*bf_yield_fn) (void *arg);

typedef struct bf_fill_stats
{
	uint64_t	bits_set;		/* set bits, non-zero counters, used slots */
	double		fill_ratio;
	double		fpr;			/* rate the filter answers with now */
	double		estimated_items;	/* distinct items; infinite when full */
	uint64_t	saturated;		/* counting: counters stuck at their maximum */
	uint32_t	stages;			/* 1, or the stages of a growing variant */
} bf_fill_stats;

/* hash.c: element hashing over canonical bytes (STORAGE.md) */
extern bf_hash bf_hash_bytes(const void *data, size_t len, uint64_t seed);
extern bf_hash bf_hash_int64(int64_t value, uint64_t seed);

/* MurmurHash3's 64-bit finaliser: a bijection mixing every bit (STORAGE.md 5) */
static inline uint64_t
bf_fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

/*
 * Hash scheme 2's hash of an integer of any width (and of a numeric that
 * is one): the two halves are the finaliser of the value XOR the seed, and
 * of that XOR the golden ratio's 64 bits.  Two multiplies a half where
 * XXH3 (scheme 1: bf_hash_int64) takes some twenty nanoseconds.
 */
static inline bf_hash
bf_hash_integer(int64_t value, uint64_t seed)
{
	uint64_t	x = (uint64_t) value ^ seed;
	bf_hash		h;

	h.lo = bf_fmix64(x);
	h.hi = bf_fmix64(x ^ UINT64_C(0x9E3779B97F4A7C15));
	return h;
}

/* variant.c: names and capabilities */
extern const char *bf_variant_name(bf_variant variant);
extern bool bf_variant_parse(const char *name, size_t len, bf_variant *variant);
/* "blocked, classic, counting, scalable, cuckoo": for messages */
extern const char *bf_variant_list(void);

/* sizing.c: the false-positive models and sizing */
extern double bf_classic_fpr(double bits, double items, double hashes);
extern double bf_blocked_fpr(double bits, double items, double hashes);
extern uint32_t bf_classic_hashes(double bits, double items);
extern bf_status bf_optimal_bits(bf_variant variant, double items, double fpr,
								 uint64_t *bits, uint32_t *hashes);
extern bf_status bf_capacity(bf_variant variant, uint64_t bits, double fpr,
							 uint64_t *items);
extern uint64_t bf_filter_capacity(const bf_filter *f);
extern double bf_filter_model_fpr(const bf_filter *f, double items);
extern double bf_plan_fpr(const bf_params *p, double items);

/* format.c: construction, validation and header access */
extern bf_status bf_plan(bf_variant variant, uint64_t items, double fpr,
						 uint64_t seed, bf_params *params);
extern bf_status bf_plan_bits(bf_variant variant, uint64_t bits,
							  uint32_t hashes, uint64_t seed,
							  bf_params *params);
extern uint64_t bf_size_bytes(bf_variant variant, uint64_t bits,
							  uint32_t hashes);
extern void bf_init(const bf_params *params, void *buf);
/* the same, calling 'yield' while it zeroes a large payload */
extern void bf_init_yield(const bf_params *params, void *buf,
						  bf_yield_fn yield, void *arg);
extern bf_status bf_check_header(const void *buf, size_t len,
								 uint64_t *total_bytes);
extern bf_status bf_open(void *buf, size_t len, bf_filter *f);
extern bf_status bf_open_like(const unsigned char *header, const bf_filter *prev,
							  void *buf, size_t len, bf_filter *f);
extern const char *bf_status_message(bf_status status);

/*
 * variant.c: membership.  bf_add returns BF_E_FULL when a growing variant
 * needs another stage first: the caller allocates bf_grow_bytes() bytes,
 * calls bf_grow into them, opens the result and adds again.  bf_remove
 * returns BF_E_UNSUPPORTED for variants that cannot remove, and
 * BF_E_NOT_FOUND (changing nothing) when the element is certainly absent.
 */
extern bf_status bf_add(bf_filter *f, bf_hash h);
extern bool bf_contains(const bf_filter *f, bf_hash h);

/*
 * Multiset and set.  bf_add stores one more copy of the element where the
 * variant keeps copies (counting counts it, cuckoo stores its fingerprint
 * once more, so that bf_remove takes back exactly one addition); a cuckoo
 * filter refuses a copy its element's two buckets cannot hold (8 copies,
 * or 4 when the two buckets are one) with BF_E_COPIES, changing nothing,
 * since only ever larger stages could take more.  bf_add_new is the insert
 * of a set, for aggregates and builds: a cuckoo filter whose element's
 * buckets already hold its fingerprint is left as it is (BF_OK, the items
 * added unchanged), as RedisBloom's CF.ADDNX; the other variants add as
 * bf_add does (blocked, classic and scalable change nothing for an element
 * already present anyway; counting counts every addition).
 */
extern bf_status bf_add_new(bf_filter *f, bf_hash h);

/* Most copies of one element a cuckoo filter holds (two buckets of 4) */
#define BF_CUCKOO_MAX_COPIES	8
extern bool bf_can_prefetch(const bf_filter *f);
extern bool bf_prefetch(const bf_filter *f, bf_hash h);

/*
 * Deferred adds, for batch paths: bf_add_later prefetches the cache line h
 * will touch and queues h; once BF_PENDING are waiting it applies all but
 * the newest BF_PENDING_KEEP in one loop (their lines have arrived by then:
 * every add waits for at least BF_PENDING_KEEP later ones to be queued).
 * bf_add_pending applies the rest.  The result is that of adding each at
 * once, in order.  It returns false, queueing nothing, for variants without
 * a single line to prefetch: add those at once with bf_add.  Variants that
 * prefetch never grow, so a deferred add never returns BF_E_FULL.  Read the
 * filter only after bf_add_pending.  Start with count = 0.
 */
#define BF_PENDING		64
#define BF_PENDING_KEEP	16

typedef struct bf_pending
{
	/* the halves apart: no 16-byte load of two 8-byte stores just made */
	uint64_t	lo[BF_PENDING];
	uint64_t	hi[BF_PENDING];
	unsigned	count;
} bf_pending;

extern bool bf_add_later(bf_filter *f, bf_pending *q, bf_hash h);
extern void bf_add_pending(bf_filter *f, bf_pending *q);
extern bf_status bf_remove(bf_filter *f, bf_hash h);
extern bool bf_can_remove(bf_variant variant);

/*
 * Copies of an element a counting or cuckoo filter may hold (RedisBloom's
 * CF.COUNT): at least the additions of it not yet removed (when only added
 * elements were removed), more when other elements share its counters or
 * fingerprint, 0 when it is certainly absent.  A counting filter's 4-bit counters saturate, so it counts up to
 * BF_COUNTING_MAX_COPIES; a cuckoo filter holds up to BF_CUCKOO_MAX_COPIES
 * per stage.  BF_E_UNSUPPORTED for the variants that keep no copies.
 */
#define BF_COUNTING_MAX_COPIES	15
extern bf_status bf_count(const bf_filter *f, bf_hash h, uint32_t *copies);
extern uint64_t bf_grow_bytes(const bf_filter *f);
/* true when bf_add(f, h) would certainly ask for growth (scalable) */
extern bool bf_add_grows(const bf_filter *f, bf_hash h);
extern void bf_grow(const bf_filter *f, void *buf);

/* setops.c: combining, comparing and inspecting */
extern bool bf_compatible(const bf_filter *a, const bf_filter *b);
/*
 * bf_union and bf_intersect return BF_E_FULL when dst must grow first (as
 * bf_add), and BF_E_UNSUPPORTED where the operation has no meaning.
 */
extern bf_status bf_union(bf_filter *dst, const bf_filter *src,
						  bf_yield_fn yield, void *arg);
extern bf_status bf_intersect(bf_filter *dst, const bf_filter *src,
							  bf_yield_fn yield, void *arg);

/*
 * A union that needs more room than dst has (growing variants): when
 * bf_union_bytes exceeds dst's size, the caller allocates that many bytes
 * and bf_union_into writes the union there, leaving dst and src unchanged.
 * 0 means the union needs more stages than the format allows (refuse it as
 * BF_E_TOO_LARGE).  It reads every byte of src (and of dst, for cuckoo
 * filters), calling 'yield' about every BF_YIELD_BYTES.
 */
extern uint64_t bf_union_bytes(const bf_filter *dst, const bf_filter *src,
							   bf_yield_fn yield, void *arg);
extern bf_status bf_union_into(const bf_filter *dst, const bf_filter *src,
							   void *out, bf_yield_fn yield, void *arg);
extern bool bf_equal(const bf_filter *a, const bf_filter *b);
extern void bf_fill(const bf_filter *f, bf_fill_stats *stats,
					bf_yield_fn yield, void *arg);
/* "blocked, 1024 bits, 7 hashes, seed 0, planned for 100 items at 0.01" */
extern void bf_describe(const bf_filter *f, char *out, size_t size);

/*
 * sparse.c: the sparse form of a filter's bytes (STORAGE.md section 15),
 * which the text form uses for filters that hold few set bits: the 64-byte
 * header as it is, the Rice parameter r (one byte, 0 to
 * BF_SPARSE_MAX_RICE), the number n of set bits in the payload (u64,
 * little-endian), then for each set bit in order the gap since the one
 * before it as a Rice code (gap >> r zero bits, a one bit, the low r bits
 * of the gap), packed from the lowest bit of each byte, padded with zero
 * bits to a whole byte.  It decodes to exactly the bytes encoded, in every
 * variant: stage records are payload bytes like any other.
 */
#define BF_SPARSE_HEAD		(BF_HEADER_SIZE + 9)
#define BF_SPARSE_MAX_RICE	32
/* bytes bf_sparse_encode may write past the end of the form */
#define BF_SPARSE_SLACK		8

typedef struct bf_sparse
{
	uint64_t	set_bits;		/* n */
	unsigned	rice;			/* r */
	uint64_t	max_bytes;		/* the sparse form is at most this long */
	uint64_t	room;			/* what bf_sparse_encode writes into: max_bytes
								 * and BF_SPARSE_SLACK */
} bf_sparse;

/*
 * Whether the sparse form of the filter in buf (len bytes, with a header
 * that checks and declares len) takes at most 'limit' bytes.  It counts
 * one 8-byte word in 32 first and gives up when those say no, then counts
 * every set bit, stopping as soon as the count rules the form out: a dense
 * filter costs a thirty-second of a pass.  'yield' is called about every
 * BF_YIELD_BYTES.  When true, *plan says how to encode: the form takes at
 * most plan->max_bytes (at most 'limit'), and bf_sparse_encode needs
 * plan->room.  False for bytes whose header does not check: give those as
 * they are.
 */
extern bool bf_sparse_plan(const void *buf, size_t len, uint64_t limit,
						   bf_sparse *plan, bf_yield_fn yield, void *arg);

/*
 * Writes the sparse form of buf (len bytes, planned by bf_sparse_plan and
 * unchanged since) into out, which holds plan->room bytes; returns its
 * length, or 0 if buf holds more set bits than planned.
 */
extern size_t bf_sparse_encode(const void *buf, size_t len,
							   const bf_sparse *plan, void *out,
							   bf_yield_fn yield, void *arg);

/*
 * Checks what can be checked of sparse bytes before decoding them: the
 * header by the rules of bf_check_header, the Rice parameter, and the count
 * of set bits against the payload and against the codes' bytes.  Sets
 * *total_bytes to the length of the filter they decode to, so that the
 * caller can refuse or allocate it; reads only the first BF_SPARSE_HEAD
 * bytes.
 */
extern bf_status bf_sparse_size(const void *in, size_t len,
								uint64_t *total_bytes);

/*
 * Decodes sparse bytes into out, which holds the *total_bytes of
 * bf_sparse_size: the header, and a payload with exactly the bits the gaps
 * name.  Fails (out undefined) with bf_sparse_size's statuses, or when a gap
 * passes the end of the payload (BF_E_SPARSE_GAP), the bytes end before
 * the last code (BF_E_SPARSE_END) or anything but zero padding bits follows
 * it (BF_E_SPARSE_TRAILING).  Zeroing and decoding call 'yield' about every
 * BF_YIELD_BYTES.  The payload is not validated: bf_open the result.
 */
extern bf_status bf_sparse_decode(const void *in, size_t len, void *out,
								  uint64_t total_bytes, bf_yield_fn yield,
								  void *arg);

/*
 * buf.c: a filter in memory that grows.  The core never allocates by
 * itself: a bf_buf asks its owner's allocator for room, so that a program
 * and the PostgreSQL extension share one implementation of adding with
 * growth, of sizing and merging unions and of placing filters in memory.
 *
 * Placement: a payload on a 64-byte boundary makes every block of a
 * blocked filter one cache line (an add or a probe costs one cache miss,
 * not two); from BF_HUGE_PAGE bytes on, the payload lies on 2 MB
 * boundaries, is given whole huge pages and is offered to the kernel as
 * transparent huge pages, so that a probe rarely costs a TLB miss too.
 * A buffer that is not aligned (a filter handed on as it is) asks for no
 * boundary.
 */
#define BF_HUGE_PAGE		((size_t) 2 * 1024 * 1024)

typedef struct bf_place
{
	size_t		len;			/* serialised bytes */
	size_t		room;			/* bytes from the header on: len, or up to
								 * the end of the last huge page */
	size_t		align;			/* the payload (header + 64) on a multiple
								 * of this: 1, 64 or BF_HUGE_PAGE */
} bf_place;

extern void bf_placement(size_t len, bool aligned, bf_place *place);
/* madvise(MADV_HUGEPAGE) of a placed payload, where the system has it */
extern void bf_advise_huge(unsigned char *header, const bf_place *place);

typedef struct bf_mem
{
	/*
	 * Room for place->room bytes whose byte BF_HEADER_SIZE lies on a
	 * multiple of place->align; *block gets what 'free' takes.  NULL when
	 * out of memory (or the allocator may report and not return).
	 */
	unsigned char *(*alloc) (void *arg, const bf_place *place, void **block);
	void		(*free) (void *arg, void *block);
	void	   *arg;
	bf_yield_fn yield;			/* called in long copies and merges */
	void	   *yield_arg;
} bf_mem;

typedef struct bf_buf
{
	bf_filter	view;			/* over bytes, once opened */
	unsigned char *bytes;		/* the serialised filter */
	size_t		len;
	void	   *block;			/* what to free; NULL: not the buffer's */
	bool		aligned;		/* grown and merged bytes are placed too */
	bf_mem		mem;			/* a copy: a bf_buf may be moved */
	uint64_t	wanted;			/* after BF_E_TOO_LARGE: the bytes needed */
} bf_buf;

/* room for len bytes, contents undefined, not opened */
extern bf_status bf_buf_alloc(bf_buf *b, const bf_mem *mem, size_t len,
							  bool aligned);
/* a new, empty filter of the planned shape, opened */
extern bf_status bf_buf_create(bf_buf *b, const bf_mem *mem,
							   const bf_params *params, bool aligned);
/* a copy of an opened filter, opened */
extern bf_status bf_buf_copy(bf_buf *b, const bf_mem *mem,
							 const bf_filter *f, bool aligned);
extern void bf_buf_free(bf_buf *b);

/*
 * Adds one hash (bf_add, or bf_add_new when as_new), growing a full
 * growing filter first; BF_E_NO_GROWTH when it has every stage, and
 * BF_E_TOO_LARGE (b->wanted set) when the next stage would pass
 * BF_MAX_BYTES.
 */
extern bf_status bf_buf_add(bf_buf *b, bf_hash h, bool as_new);

/*
 * Whether adding h to f would be refused for want of a stage (the checks
 * of bf_buf_add, made before anything is copied or changed): BF_OK, or
 * BF_E_NO_GROWTH, or BF_E_TOO_LARGE with *wanted set.
 */
extern bf_status bf_add_check(const bf_filter *f, bf_hash h, uint64_t *wanted);

/*
 * b = b | src, or b & src: in place where the variant can, else into new
 * bytes of the size the union needs (b's old bytes freed).  Refuses
 * filters that are not compatible with BF_E_INCOMPATIBLE, a union past the
 * format's stages with BF_E_NO_GROWTH.
 */
extern bf_status bf_buf_merge(bf_buf *b, const bf_filter *src, bool intersect);

/* out = a | b or a & b in new bytes; a and b unchanged */
extern bf_status bf_merge_new(const bf_filter *a, const bf_filter *b,
							  bool intersect, const bf_mem *mem,
							  bool aligned, bf_buf *out);

#endif							/* BF_H */
