/*
 * hash.c
 *		Element hashing: XXH3-128 over each element's canonical bytes.
 *
 * Every variant draws its positions from the two 64-bit halves of one
 * 128-bit hash, so no index is ever limited to 32 bits.  The canonical
 * byte encodings (integers as 8-byte little-endian, strings as their bytes)
 * are documented in STORAGE.md; this file only hashes bytes.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bf.h"

bf_hash
bf_hash_bytes(const void *data, size_t len, uint64_t seed)
{
	XXH128_hash_t x = XXH3_128bits_withSeed(data, len, seed);
	bf_hash		h;

	h.lo = x.low64;
	h.hi = x.high64;
	return h;
}

/* Integers of every width hash as the same 8-byte little-endian value */
bf_hash
bf_hash_int64(int64_t value, uint64_t seed)
{
	uint64_t	v = (uint64_t) value;
	unsigned char le[8];
	int			i;

	for (i = 0; i < 8; i++)
		le[i] = (unsigned char) (v >> (8 * i));
	return bf_hash_bytes(le, sizeof(le), seed);
}
