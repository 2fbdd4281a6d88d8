/*
 * fuzz_common.h
 *		Helpers shared by the libFuzzer targets of the core (test/fuzz/).
 *
 * A target reads its input through an fz_reader, which never fails: past
 * the end it yields zeros, so every byte string is a valid input and the
 * fuzzer spends no time on inputs a parser would refuse.  Filters live in
 * malloc'd buffers of exactly their size, so that AddressSanitizer reports
 * the first byte read or written past the end.
 *
 * FZ_ASSERT aborts with a message: libFuzzer then keeps the input as a crash,
 * exactly as for a sanitizer report.  Properties asserted are those bf.h and
 * STORAGE.md promise; a failure is a bug in the core (or in this file).
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf.h"
#include "../core/report.h"

/* Largest buffer a target allocates for a grown or united filter */
#define FZ_MAX_ALLOC	((uint64_t) 16 << 20)

/* Most bits a payload within BF_MAX_BYTES holds (the targets use bf.h only) */
#define FZ_MAX_PAYLOAD_BITS	((BF_MAX_BYTES - BF_HEADER_SIZE) * 8)

#if defined(__GNUC__)
static void fz_fail(const char *file, int line, const char *cond,
					const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));
#endif

#include <stdarg.h>

static void
fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	report_failure(stderr, "\n==FUZZ ASSERTION FAILED== ", file, line, cond, fmt, ap);
	va_end(ap);
	abort();
}

#define FZ_ASSERT(cond, ...) \
	do { \
		if (!(cond)) \
			fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

/* ----------------------------------------------------------------------
 * Input reader
 * ---------------------------------------------------------------------- */

typedef struct fz_reader
{
	const uint8_t *p;
	size_t		n;
} fz_reader;

static inline size_t
fz_left(const fz_reader *r)
{
	return r->n;
}

static inline uint8_t
fz_u8(fz_reader *r)
{
	uint8_t		v = 0;

	if (r->n > 0)
	{
		v = r->p[0];
		r->p++;
		r->n--;
	}
	return v;
}

static inline uint64_t
fz_uint(fz_reader *r, int bytes)
{
	uint64_t	v = 0;
	int			i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t) fz_u8(r) << (8 * i);
	return v;
}

static inline uint32_t
fz_u32(fz_reader *r)
{
	return (uint32_t) fz_uint(r, 4);
}

static inline uint64_t
fz_u64(fz_reader *r)
{
	return fz_uint(r, 8);
}

/* Any bit pattern: NaN, infinities, subnormals, negative zero */
static inline double
fz_double(fz_reader *r)
{
	uint64_t	bits = fz_u64(r);
	double		d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* Up to 'want' bytes as they are (fewer at the end of the input) */
static inline const uint8_t *
fz_bytes(fz_reader *r, size_t want, size_t *got)
{
	const uint8_t *p = r->p;

	if (want > r->n)
		want = r->n;
	r->p += want;
	r->n -= want;
	*got = want;
	return p;
}

/* ----------------------------------------------------------------------
 * Filters in exact-size buffers
 * ---------------------------------------------------------------------- */

static inline unsigned char *
fz_dup(const void *bytes, size_t len)
{
	unsigned char *b = malloc(len ? len : 1);

	FZ_ASSERT(b != NULL, "out of memory for %zu bytes", len);
	if (len)
		memcpy(b, bytes, len);
	return b;
}

/* The view after bf_open, with every field of the header */
static inline void
fz_same_view(const bf_filter *a, const bf_filter *b, const char *after)
{
	FZ_ASSERT(a->base == b->base && a->payload == b->payload &&
			  a->variant == b->variant && a->hashes == b->hashes &&
			  a->variant_word == b->variant_word && a->seed == b->seed &&
			  a->bits == b->bits && a->blocks == b->blocks &&
			  a->items == b->items &&
			  a->expected_items == b->expected_items &&
			  memcmp(&a->target_fpr, &b->target_fpr, sizeof(double)) == 0 &&
			  a->payload_bytes == b->payload_bytes,
			  "after %s the view disagrees with the header it describes "
			  "(variant_word %u/%u, bits %llu/%llu, items %llu/%llu, payload %llu/%llu)",
			  after, a->variant_word, b->variant_word,
			  (unsigned long long) a->bits, (unsigned long long) b->bits,
			  (unsigned long long) a->items, (unsigned long long) b->items,
			  (unsigned long long) a->payload_bytes,
			  (unsigned long long) b->payload_bytes);
}

/* Hook for the long loops: counts its calls, never jumps out */
static inline void
fz_yield(void *arg)
{
	(*(uint64_t *) arg)++;
}

/*
 * bf_fill on a valid filter: finite, consistent numbers, and the bytes
 * untouched.
 */
static inline void
fz_check_fill(const bf_filter *f, size_t len)
{
	bf_fill_stats st;
	uint64_t	yields = 0;
	unsigned char *before = fz_dup(f->base, len);

	memset(&st, 0xA5, sizeof(st));
	bf_fill(f, &st, fz_yield, &yields);
	FZ_ASSERT(memcmp(before, f->base, len) == 0, "bf_fill modified the filter");
	free(before);
	FZ_ASSERT(st.bits_set <= f->bits, "bits_set %llu > bits %llu",
			  (unsigned long long) st.bits_set, (unsigned long long) f->bits);
	FZ_ASSERT(st.fill_ratio >= 0.0 && st.fill_ratio <= 1.0,
			  "fill_ratio %g outside [0, 1]", st.fill_ratio);
	FZ_ASSERT(st.fpr >= 0.0 && st.fpr <= 1.0, "fpr %g outside [0, 1]", st.fpr);
	FZ_ASSERT(!isnan(st.estimated_items) && st.estimated_items >= 0.0,
			  "estimated_items %g is not a count", st.estimated_items);
	FZ_ASSERT(st.saturated <= st.bits_set, "saturated %llu > bits_set %llu",
			  (unsigned long long) st.saturated, (unsigned long long) st.bits_set);
	FZ_ASSERT(st.stages ==
			  (f->variant == BF_SCALABLE || f->variant == BF_CUCKOO ? f->variant_word : 1),
			  "stages %u for a filter of %u", st.stages, f->variant_word);
	FZ_ASSERT(st.bits_set != 0 || st.estimated_items == 0.0,
			  "an empty filter estimates %g items", st.estimated_items);
}

#endif							/* FUZZ_COMMON_H */
