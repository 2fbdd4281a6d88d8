/*
 * format.c
 *		The serialised form: planning, initialising and validating filters.
 *
 * A filter is a 64-byte little-endian header followed by its payload; the
 * byte layout is documented field by field in STORAGE.md.  bf_open is the
 * one gate every untrusted byte string passes before any other function
 * looks at it: it rejects every header that disagrees with itself or with
 * the length of the bytes.
 */
#include <math.h>

#include "bf_internal.h"

/* Completes a plan: the total size, within what one value can hold */
static bf_status
finish_plan(bf_params *p)
{
	if (p->payload_bytes > BF_MAX_BYTES - BF_HEADER_SIZE)
		return BF_E_TOO_LARGE;
	p->total_bytes = BF_HEADER_SIZE + p->payload_bytes;
	return BF_OK;
}

/* Payload bytes of a flat layout: cells padded to whole 64-bit words */
static uint64_t
flat_payload_bytes(const bf_variant_ops *ops, uint64_t cells)
{
	uint64_t	per_word = 64 / ops->cell_bits;

	return (cells / per_word + (cells % per_word != 0)) * 8;	/* no overflow */
}

/* ops->plan_bits, or the rule of a flat layout */
static bf_status
plan_bits(const bf_variant_ops *ops, bf_params *p)
{
	if (ops->cell_bits == 0)
		return ops->plan_bits(p);
	if (ops->round_bits)
		p->bits = ops->round_bits(p->bits);
	p->variant_word = 0;
	p->payload_bytes = flat_payload_bytes(ops, p->bits);
	return BF_OK;
}

/*
 * ops->check_header, or the rules of a flat layout: no variant word, 1 to
 * 64 hashes, a bit count the layout can hold, and the payload it implies
 */
static bf_status
check_header(const bf_variant_ops *ops, const bf_params *h)
{
	if (ops->cell_bits == 0)
		return ops->check_header(h);
	if (h->variant_word != 0)
		return BF_E_FLAGS;
	if (h->hashes < 1 || h->hashes > BF_MAX_HASHES)
		return BF_E_HASHES;
	if (h->bits < 1 || h->bits > BF_MAX_PAYLOAD_BITS ||
		(ops->round_bits && ops->round_bits(h->bits) != h->bits))
		return BF_E_BITS;
	if (h->payload_bytes != flat_payload_bytes(ops, h->bits))
		return BF_E_PAYLOAD;
	return BF_OK;
}

/*
 * ops->validate; for a flat layout, that the padding past the last cell is
 * zero, so that equal contents give equal bytes
 */
static bf_status
check_payload(const bf_filter *f)
{
	const bf_variant_ops *ops = bf_ops(f->variant);
	uint64_t	byte,
				used;

	if (ops->cell_bits == 0)
		return ops->validate ? ops->validate(f) : BF_OK;
	byte = f->bits * ops->cell_bits / 8;
	used = f->bits * ops->cell_bits % 8;
	if (used && (f->payload[byte++] >> used) != 0)
		return BF_E_PADDING;
	for (; byte < f->payload_bytes; byte++)
		if (f->payload[byte] != 0)
			return BF_E_PADDING;
	return BF_OK;
}

/* What every plan sets first; payload_bytes stays 0 if it fails early */
static void
start_plan(bf_params *p, bf_variant variant, uint64_t seed, uint64_t items,
		   double fpr)
{
	p->variant = variant;
	p->scheme = BF_HASH_SCHEME_CURRENT;
	p->seed = seed;
	p->expected_items = items;
	p->target_fpr = fpr;
	p->variant_word = 0;
	p->payload_bytes = 0;
}

/* Shape of the smallest filter holding 'items' at rate 'fpr' */
bf_status
bf_plan(bf_variant variant, uint64_t items, double fpr, uint64_t seed,
		bf_params *params)
{
	const bf_variant_ops *ops = bf_ops(variant);
	bf_status	st;

	if (ops == NULL)
		return BF_E_VARIANT;
	if (!(items >= 1) || !(fpr > 0.0 && fpr < 1.0))
		return BF_E_ARGUMENT;
	start_plan(params, variant, seed, items, fpr);
	if (ops->plan)
		st = ops->plan((double) items, fpr, params);
	else if ((st = ops->size((double) items, fpr, &params->bits,
							 &params->hashes)) == BF_OK)
		st = plan_bits(ops, params);
	if (st != BF_OK)
		return st;
	return finish_plan(params);
}

/* Shape of a filter of a given size; blocked rounds up to whole blocks */
bf_status
bf_plan_bits(bf_variant variant, uint64_t bits, uint32_t hashes,
			 uint64_t seed, bf_params *params)
{
	const bf_variant_ops *ops = bf_ops(variant);
	bf_status	st;

	if (ops == NULL)
		return BF_E_VARIANT;
	if (bits < 1 || hashes < 1 || hashes > BF_MAX_HASHES)
		return BF_E_ARGUMENT;
	if (bits > (UINT64_MAX >> 1))
		return BF_E_TOO_LARGE;
	start_plan(params, variant, seed, 0, 0.0);
	params->hashes = hashes;
	params->bits = bits;
	/*
	 * The layout first, at any size (a variant that cannot be built from a
	 * bit count says so, however large the request), then the limit
	 */
	st = plan_bits(ops, params);
	if (st == BF_OK && bits > BF_MAX_PAYLOAD_BITS)
		return BF_E_TOO_LARGE;
	if (st != BF_OK)
		return st;
	return finish_plan(params);
}

/*
 * Serialised size of a filter of 'bits' bits, rounded as bf_plan_bits
 * rounds them, even past the 1 GB limit (so that errors can say how far);
 * 0 when the variant is not built from a bit count (scalable) or the
 * arguments are invalid.
 */
uint64_t
bf_size_bytes(bf_variant variant, uint64_t bits, uint32_t hashes)
{
	const bf_variant_ops *ops = bf_ops(variant);
	bf_params	p;

	if (ops == NULL || bits < 1 || bits > (UINT64_MAX >> 1))
		return 0;
	p.variant = variant;
	p.hashes = hashes;
	p.bits = bits;
	if (plan_bits(ops, &p) != BF_OK)
		return 0;
	return BF_HEADER_SIZE + p.payload_bytes;
}

/* Writes an empty filter into buf, which holds params->total_bytes */
void
bf_init(const bf_params *params, void *buf)
{
	bf_init_yield(params, buf, NULL, NULL);
}

/*
 * bf_init, zeroing the payload in pieces with a call of 'yield' after each
 * BF_YIELD_BYTES (zeroing fresh memory of 1 GB takes about a second)
 */
void
bf_init_yield(const bf_params *params, void *buf, bf_yield_fn yield,
			  void *arg)
{
	unsigned char *b = buf;
	const bf_variant_ops *ops = bf_ops(params->variant);
	uint64_t	done = 0;

	while (done < params->total_bytes)
	{
		uint64_t	len = params->total_bytes - done;

		if (len > BF_YIELD_BYTES)
			len = BF_YIELD_BYTES;
		memset(b + done, 0, len);
		done += len;
		if (yield && done < params->total_bytes)
			yield(arg);
	}
	memcpy(b + BF_OFF_MAGIC, BF_MAGIC, 4);
	b[BF_OFF_VERSION] = BF_FORMAT_VERSION;
	b[BF_OFF_VARIANT] = (unsigned char) params->variant;
	b[BF_OFF_SCHEME] = params->scheme;
	bf_put_le32(b + BF_OFF_HASHES, params->hashes);
	bf_put_le32(b + BF_OFF_VARIANT_WORD, params->variant_word);
	bf_put_le64(b + BF_OFF_SEED, params->seed);
	bf_put_le64(b + BF_OFF_BITS, params->bits);
	bf_put_le64(b + BF_OFF_EXPECTED, params->expected_items);
	bf_put_double(b + BF_OFF_TARGET, params->target_fpr);
	bf_put_le64(b + BF_OFF_PAYLOAD, params->payload_bytes);
	if (ops->init)
		ops->init(params, b + BF_HEADER_SIZE);
}

/*
 * Checks the header at b (len may be just the header) and reads it into h;
 * h->total_bytes is the total length it declares.
 */
static bf_status
read_header(const unsigned char *b, size_t len, bf_params *h)
{
	const bf_variant_ops *ops;
	bf_status	st;

	if (len < BF_HEADER_SIZE)
		return BF_E_SHORT;
	if (memcmp(b + BF_OFF_MAGIC, BF_MAGIC, 4) != 0)
		return BF_E_MAGIC;
	if (b[BF_OFF_VERSION] != BF_FORMAT_VERSION)
		return BF_E_VERSION;
	ops = bf_ops((bf_variant) b[BF_OFF_VARIANT]);
	if (ops == NULL)
		return BF_E_VARIANT;
	if (b[BF_OFF_SCHEME] != BF_HASH_XXH3_128 &&
		b[BF_OFF_SCHEME] != BF_HASH_EQUALITY)
		return BF_E_HASH_SCHEME;
	if (b[BF_OFF_FLAGS] != 0)
		return BF_E_FLAGS;
	h->variant = (bf_variant) b[BF_OFF_VARIANT];
	h->scheme = b[BF_OFF_SCHEME];
	h->hashes = bf_get_le32(b + BF_OFF_HASHES);
	h->variant_word = bf_get_le32(b + BF_OFF_VARIANT_WORD);
	h->seed = bf_get_le64(b + BF_OFF_SEED);
	h->bits = bf_get_le64(b + BF_OFF_BITS);
	h->expected_items = bf_get_le64(b + BF_OFF_EXPECTED);
	h->target_fpr = bf_get_double(b + BF_OFF_TARGET);
	h->payload_bytes = bf_get_le64(b + BF_OFF_PAYLOAD);
	st = check_header(ops, h);
	if (st != BF_OK)
		return st;
	if (h->payload_bytes > BF_MAX_BYTES - BF_HEADER_SIZE)
		return BF_E_TOO_LARGE;
	/* sized for a rate (both set) or built from a bit count (both zero) */
	if (bf_get_le64(b + BF_OFF_TARGET) == 0)
	{
		if (h->expected_items != 0)
			return BF_E_TARGET;
	}
	else if (!(h->target_fpr > 0.0 && h->target_fpr < 1.0) ||
			 h->expected_items == 0)
		return BF_E_TARGET;
	h->total_bytes = BF_HEADER_SIZE + h->payload_bytes;
	return BF_OK;
}

/*
 * Checks a header on its own (len may be just the header) and returns the
 * total length it declares, so that a reader can refuse an impossible size
 * before it allocates anything.
 */
bf_status
bf_check_header(const void *buf, size_t len, uint64_t *total_bytes)
{
	bf_params	h;
	bf_status	st = read_header(buf, len, &h);

	if (st == BF_OK)
		*total_bytes = h.total_bytes;
	return st;
}

/* Validates the bytes of a filter and fills the view 'f' over them */
bf_status
bf_open(void *buf, size_t len, bf_filter *f)
{
	unsigned char *b = buf;
	bf_params	h;
	bf_status	st = read_header(b, len, &h);

	if (st != BF_OK)
		return st;
	if (len < h.total_bytes)
		return BF_E_TRUNCATED;
	if (len > h.total_bytes)
		return BF_E_TRAILING;
	f->base = b;
	f->payload = b + BF_HEADER_SIZE;
	f->variant = h.variant;
	f->hashes = h.hashes;
	f->variant_word = h.variant_word;
	f->scheme = h.scheme;
	f->seed = h.seed;
	f->bits = h.bits;
	f->blocks = h.bits / BF_BLOCK_BITS;
	f->items = bf_get_le64(b + BF_OFF_ITEMS);
	f->expected_items = h.expected_items;
	f->target_fpr = h.target_fpr;
	f->payload_bytes = h.payload_bytes;
	return check_payload(f);
}

/*
 * bf_open for a caller that sees many values with the same header, such as
 * a probe handed a small filter anew on every row: 'prev' was opened by
 * bf_open from bytes whose first BF_HEADER_SIZE bytes the caller kept in
 * 'header'.  When buf starts with that header and has prev's length, the
 * header checks (a function of the header and length alone) are skipped and
 * only the variant's payload checks run; otherwise this is bf_open.
 */
bf_status
bf_open_like(const unsigned char *header, const bf_filter *prev, void *buf,
			 size_t len, bf_filter *f)
{
	unsigned char *b = buf;

	if (len != BF_HEADER_SIZE + prev->payload_bytes ||
		memcmp(b, header, BF_HEADER_SIZE) != 0)
		return bf_open(buf, len, f);
	*f = *prev;
	f->base = b;
	f->payload = b + BF_HEADER_SIZE;
	return check_payload(f);
}

const char *
bf_status_message(bf_status status)
{
	switch (status)
	{
		case BF_OK:
			return "The filter is valid.";
		case BF_E_ARGUMENT:
			return "The number of items must be at least 1 and the false-positive rate must lie strictly between 0 and 1.";
		case BF_E_TOO_LARGE:
			return "The filter would be larger than the 1 GB limit of a PostgreSQL value.";
		case BF_E_SHORT:
			return "The value is shorter than the 64-byte header.";
		case BF_E_TRUNCATED:
			return "The value is shorter than its header says.";
		case BF_E_TRAILING:
			return "The value is longer than its header says.";
		case BF_E_MAGIC:
			return "The value does not start with the bloomfilter magic bytes \"BLMF\".";
		case BF_E_VERSION:
			return "The format version is not one this build can read (it reads version 1).";
		case BF_E_VARIANT:
			return "The variant code is unknown.";
		case BF_E_HASH_SCHEME:
			return "The hash scheme is unknown.";
		case BF_E_FLAGS:
			return "Reserved header fields are not zero, or the variant's own header word is invalid.";
		case BF_E_HASHES:
			return "The number of hash functions (for cuckoo filters, fingerprint bits) is outside what the variant allows (1 to 64; cuckoo 4 to 32).";
		case BF_E_BITS:
			return "The bit count is zero, too large, or not valid for the variant.";
		case BF_E_PAYLOAD:
			return "The payload size disagrees with the bit count.";
		case BF_E_PADDING:
			return "Padding bits past the end of the filter are set.";
		case BF_E_TARGET:
			return "The stored target false-positive rate is not a rate between 0 and 1, or it disagrees with the stored expected item count (both are set, or both are zero).";
		case BF_E_INCOMPATIBLE:
			return "The filters differ in variant, size, hash functions, seed or hash scheme.";
		case BF_E_LAYOUT:
			return "The variant's own layout (stages, buckets or counters) is inconsistent.";
		case BF_E_FULL:
			return "The filter is full and must grow before it takes more items.";
		case BF_E_NOT_FOUND:
			return "The element is not in the filter.";
		case BF_E_UNSUPPORTED:
			return "The variant does not offer this operation.";
		case BF_E_COPIES:
			return "The element is already stored as many times as its buckets hold (8 copies in a cuckoo filter).";
		case BF_E_NO_GROWTH:
			return "The filter has as many stages as its format allows.";
		case BF_E_NO_MEMORY:
			return "There was not enough memory for the filter.";
		case BF_E_SPARSE_RICE:
			return "The Rice parameter of the sparse form is larger than 32.";
		case BF_E_SPARSE_COUNT:
			return "The sparse form counts more set bits than its payload or its codes can hold.";
		case BF_E_SPARSE_GAP:
			return "A gap of the sparse form passes the end of the payload.";
		case BF_E_SPARSE_END:
			return "The sparse form ends too soon: before its Rice parameter and count, or before its last gap.";
		case BF_E_SPARSE_TRAILING:
			return "The sparse form goes on after its last gap.";
	}
	return "Unknown error.";
}
