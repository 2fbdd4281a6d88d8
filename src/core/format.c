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

static bf_status
finish_plan(const bf_variant_ops *ops, bf_params *p)
{
	if (p->bits > (BF_MAX_BYTES - BF_HEADER_SIZE) * 8)
		return BF_E_TOO_LARGE;
	p->payload_bytes = ops->payload_bytes(p->bits);
	p->total_bytes = BF_HEADER_SIZE + p->payload_bytes;
	if (p->total_bytes > BF_MAX_BYTES)
		return BF_E_TOO_LARGE;
	return BF_OK;
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
	st = bf_optimal_bits(variant, (double) items, fpr, &params->bits,
						 &params->hashes);
	if (st != BF_OK)
		return st;
	params->variant = variant;
	params->seed = seed;
	params->expected_items = items;
	params->target_fpr = fpr;
	return finish_plan(ops, params);
}

/* Shape of a filter of a given size; blocked rounds up to whole blocks */
bf_status
bf_plan_bits(bf_variant variant, uint64_t bits, uint32_t hashes,
			 uint64_t seed, bf_params *params)
{
	const bf_variant_ops *ops = bf_ops(variant);

	if (ops == NULL)
		return BF_E_VARIANT;
	if (bits < 1 || hashes < 1 || hashes > BF_MAX_HASHES)
		return BF_E_ARGUMENT;
	if (bits > (BF_MAX_BYTES - BF_HEADER_SIZE) * 8)
		return BF_E_TOO_LARGE;
	params->variant = variant;
	params->hashes = hashes;
	params->seed = seed;
	params->bits = ops->round_bits(bits);
	params->expected_items = 0;
	params->target_fpr = 0.0;
	return finish_plan(ops, params);
}

/*
 * Serialised size of a filter of 'bits' bits, rounded as bf_plan_bits
 * rounds them, even past the 1 GB limit (so that errors can say how far).
 */
uint64_t
bf_size_bytes(bf_variant variant, uint64_t bits)
{
	const bf_variant_ops *ops = bf_ops(variant);

	if (ops == NULL || bits < 1 || bits > (UINT64_MAX >> 1))
		return 0;
	return BF_HEADER_SIZE + ops->payload_bytes(ops->round_bits(bits));
}

/* Writes an empty filter into buf, which holds params->total_bytes */
void
bf_init(const bf_params *params, void *buf)
{
	unsigned char *b = buf;

	memset(b, 0, params->total_bytes);
	memcpy(b + BF_OFF_MAGIC, BF_MAGIC, 4);
	b[BF_OFF_VERSION] = BF_FORMAT_VERSION;
	b[BF_OFF_VARIANT] = (unsigned char) params->variant;
	b[BF_OFF_SCHEME] = BF_HASH_XXH3_128;
	bf_put_le32(b + BF_OFF_HASHES, params->hashes);
	bf_put_le64(b + BF_OFF_SEED, params->seed);
	bf_put_le64(b + BF_OFF_BITS, params->bits);
	bf_put_le64(b + BF_OFF_EXPECTED, params->expected_items);
	bf_put_double(b + BF_OFF_TARGET, params->target_fpr);
	bf_put_le64(b + BF_OFF_PAYLOAD, params->payload_bytes);
}

/*
 * Checks a header on its own (len may be just the header) and returns the
 * total length it declares, so that a reader can refuse an impossible size
 * before it allocates anything.
 */
bf_status
bf_check_header(const void *buf, size_t len, uint64_t *total_bytes)
{
	const unsigned char *b = buf;
	const bf_variant_ops *ops;
	uint32_t	hashes;
	uint64_t	bits,
				payload;
	double		target;

	if (len < BF_HEADER_SIZE)
		return BF_E_SHORT;
	if (memcmp(b + BF_OFF_MAGIC, BF_MAGIC, 4) != 0)
		return BF_E_MAGIC;
	if (b[BF_OFF_VERSION] != BF_FORMAT_VERSION)
		return BF_E_VERSION;
	ops = bf_ops((bf_variant) b[BF_OFF_VARIANT]);
	if (ops == NULL)
		return BF_E_VARIANT;
	if (b[BF_OFF_SCHEME] != BF_HASH_XXH3_128)
		return BF_E_HASH_SCHEME;
	if (b[BF_OFF_FLAGS] != 0 || bf_get_le32(b + BF_OFF_RESERVED) != 0)
		return BF_E_FLAGS;
	hashes = bf_get_le32(b + BF_OFF_HASHES);
	if (hashes < 1 || hashes > BF_MAX_HASHES)
		return BF_E_HASHES;
	bits = bf_get_le64(b + BF_OFF_BITS);
	if (bits < 1 || bits > (BF_MAX_BYTES - BF_HEADER_SIZE) * 8 ||
		ops->round_bits(bits) != bits)
		return BF_E_BITS;
	payload = bf_get_le64(b + BF_OFF_PAYLOAD);
	if (payload != ops->payload_bytes(bits))
		return BF_E_PAYLOAD;
	if (payload > BF_MAX_BYTES - BF_HEADER_SIZE)
		return BF_E_TOO_LARGE;
	/* sized for a rate (both set) or built from a bit count (both zero) */
	target = bf_get_double(b + BF_OFF_TARGET);
	if (bf_get_le64(b + BF_OFF_TARGET) == 0)
	{
		if (bf_get_le64(b + BF_OFF_EXPECTED) != 0)
			return BF_E_TARGET;
	}
	else if (!(target > 0.0 && target < 1.0) ||
			 bf_get_le64(b + BF_OFF_EXPECTED) == 0)
		return BF_E_TARGET;
	*total_bytes = BF_HEADER_SIZE + payload;
	return BF_OK;
}

/* Validates the bytes of a filter and fills the view 'f' over them */
bf_status
bf_open(void *buf, size_t len, bf_filter *f)
{
	unsigned char *b = buf;
	uint64_t	total;
	bf_status	st = bf_check_header(buf, len, &total);

	if (st != BF_OK)
		return st;
	if (len < total)
		return BF_E_TRUNCATED;
	if (len > total)
		return BF_E_TRAILING;
	f->base = b;
	f->payload = b + BF_HEADER_SIZE;
	f->variant = (bf_variant) b[BF_OFF_VARIANT];
	f->hashes = bf_get_le32(b + BF_OFF_HASHES);
	f->seed = bf_get_le64(b + BF_OFF_SEED);
	f->bits = bf_get_le64(b + BF_OFF_BITS);
	f->blocks = f->bits / BF_BLOCK_BITS;
	f->items = bf_get_le64(b + BF_OFF_ITEMS);
	f->expected_items = bf_get_le64(b + BF_OFF_EXPECTED);
	f->target_fpr = bf_get_double(b + BF_OFF_TARGET);
	f->payload_bytes = bf_get_le64(b + BF_OFF_PAYLOAD);
	return bf_ops(f->variant)->validate(f);
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
			return "Reserved header fields are not zero.";
		case BF_E_HASHES:
			return "The number of hash functions is outside 1 to 64.";
		case BF_E_BITS:
			return "The bit count is zero, too large, or not valid for the variant.";
		case BF_E_PAYLOAD:
			return "The payload size disagrees with the bit count.";
		case BF_E_PADDING:
			return "Padding bits past the end of the filter are set.";
		case BF_E_TARGET:
			return "The stored target false-positive rate is not a rate between 0 and 1, or it disagrees with the stored expected item count (both are set, or both are zero).";
		case BF_E_INCOMPATIBLE:
			return "The filters differ in variant, size, hash functions or seed.";
	}
	return "Unknown error.";
}
