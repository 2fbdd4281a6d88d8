/*
 * sparse.c
 *		The sparse form of a filter's bytes: the header as it is, then the
 *		payload's set bits as Rice-coded gaps (STORAGE.md section 15).
 *
 * A filter sized for a whole set and holding a small part of it, as each
 * shard's partial state of a distributed aggregate does, is mostly zero
 * bits, and its set bits fall nearly uniformly, so the gaps between them
 * are nearly geometric: a Rice code (Golomb's code with a power of two) of
 * the gaps comes within a few percent of the entropy of such a bit set.
 * The form knows nothing of variants: stage records, counters and
 * fingerprints are payload bits like any other, so every variant decodes
 * to exactly the bytes encoded.  What decoding must not trust (the header,
 * the count, every gap, the end) is checked before it is used.
 */
#include "bf_internal.h"

/* Payload bytes counted between two looks at the running count */
#define COUNT_CHUNK		4096

/* One 8-byte word in this many is counted first, to spot dense filters */
#define SAMPLE_STRIDE	32

/*
 * Most bits the codes of n set bits among m payload bits take with the
 * parameter r: each code is gap >> r zero bits, a one bit and r bits, and
 * the gaps sum to at most m - n (the last set bit is bit m - 1 at most), so
 * their quotients to at most (m - n) >> r.
 */
static uint64_t
code_bits(uint64_t n, uint64_t m, unsigned r)
{
	return n * (1 + r) + ((m - n) >> r);
}

/* Most bytes of the sparse form of n set bits among m, with the best r */
static uint64_t
sparse_bytes(uint64_t n, uint64_t m, unsigned *rice)
{
	uint64_t	best = code_bits(n, m, 0);
	unsigned	r;

	*rice = 0;
	for (r = 1; r <= BF_SPARSE_MAX_RICE; r++)
	{
		uint64_t	bits = code_bits(n, m, r);

		if (bits < best)
		{
			best = bits;
			*rice = r;
		}
	}
	return BF_SPARSE_HEAD + (best + 7) / 8;
}

/*
 * Most set bits among m whose sparse form takes at most 'limit' bytes;
 * UINT64_MAX when not even an empty payload's does.  sparse_bytes does
 * not decrease as n grows (one more set bit adds r + 1 bits of codes and
 * takes at most one from the quotients), so a bisection finds it.
 */
static uint64_t
most_set_bits(uint64_t m, uint64_t limit)
{
	uint64_t	lo = 0,
				hi = m;
	unsigned	rice;

	if (sparse_bytes(0, m, &rice) > limit)
		return UINT64_MAX;
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo + 1) / 2;

		if (sparse_bytes(mid, m, &rice) <= limit)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Set bits of one word, inline (bf_popcount64 may be a call) */
static inline unsigned
word_bits(uint64_t v)
{
	v -= (v >> 1) & UINT64_C(0x5555555555555555);
	v = (v & UINT64_C(0x3333333333333333)) + ((v >> 2) & UINT64_C(0x3333333333333333));
	v = (v + (v >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
	return (unsigned) ((v * UINT64_C(0x0101010101010101)) >> 56);
}

/*
 * Set bits of 'words' 8-byte words: the bit counts of each byte, summed a
 * few words at a time before they are added up (without a popcount
 * instruction, __builtin_popcountll is a call per word)
 */
static uint64_t
count_bits(const unsigned char *p, uint64_t words)
{
	const uint64_t m1 = UINT64_C(0x5555555555555555),
				m2 = UINT64_C(0x3333333333333333),
				m4 = UINT64_C(0x0F0F0F0F0F0F0F0F),
				m8 = UINT64_C(0x00FF00FF00FF00FF);
	uint64_t	total = 0;

	while (words > 0)
	{
		/* at most 8 a byte from each of 31 words: no byte overflows */
		uint64_t	batch = words < 31 ? words : 31,
					bytes = 0,
					i;

		for (i = 0; i < batch; i++)
		{
			uint64_t	v = bf_load64(p + i * 8);

			v -= (v >> 1) & m1;
			v = (v & m2) + ((v >> 2) & m2);
			bytes += (v + (v >> 4)) & m4;
		}
		bytes = (bytes & m8) + ((bytes >> 8) & m8);
		total += (bytes * UINT64_C(0x0001000100010001)) >> 48;
		p += batch * 8;
		words -= batch;
	}
	return total;
}

/*
 * Whether a sample of the payload (every SAMPLE_STRIDE-th word) has more
 * set bits, in proportion, than the sparse form may hold: such a filter is
 * written as it is without counting all its bits, which would cost a tenth
 * of its base64.  The sample misjudges filters near the limit, where the
 * sparse form saves little, or whose bits cluster on the sampled words;
 * the cost is a longer text, never a wrong one.
 */
static bool
looks_dense(const unsigned char *payload, uint64_t bytes, uint64_t most)
{
	uint64_t	words = bytes / 8,
				seen = 0,
				n = 0,
				i;

	for (i = 0; i < words; i += SAMPLE_STRIDE)
	{
		n += word_bits(bf_load64(payload + i * 8));
		seen++;
	}
	/* n / seen > most / words; both sides fit 64 bits */
	return seen > 0 && n * words > most * seen;
}

bool
bf_sparse_plan(const void *buf, size_t len, uint64_t limit, bf_sparse *plan,
			   bf_yield_fn yield, void *arg)
{
	const unsigned char *payload = (const unsigned char *) buf + BF_HEADER_SIZE;
	uint64_t	total,
				bytes,
				most,
				n = 0,
				done = 0;

	if (bf_check_header(buf, len, &total) != BF_OK || total != len)
		return false;
	bytes = len - BF_HEADER_SIZE;
	most = most_set_bits(bytes * 8, limit);
	if (most == UINT64_MAX || looks_dense(payload, bytes, most))
		return false;
	while (done < bytes)
	{
		uint64_t	end = bytes - done > COUNT_CHUNK ? done + COUNT_CHUNK : bytes;

		n += count_bits(payload + done, (end - done) / 8);
		done += (end - done) / 8 * 8;
		for (; done < end; done++)
			n += bf_popcount64(payload[done]);
		if (n > most)
			return false;
		if (yield && done % BF_YIELD_BYTES == 0 && done < bytes)
			yield(arg);
	}
	plan->set_bits = n;
	plan->max_bytes = sparse_bytes(n, bytes * 8, &plan->rice);
	plan->room = plan->max_bytes + BF_SPARSE_SLACK;
	return true;
}

/*
 * Bits written from the lowest bit of each byte up.  Each call stores all
 * eight bytes of the accumulator and moves on by the whole bytes in it, so
 * that no branch depends on the bits: the out buffer has
 * BF_SPARSE_SLACK bytes of room past the end of the form.
 */
typedef struct bit_writer
{
	unsigned char *out;
	size_t		pos;			/* whole bytes written */
	uint64_t	acc;			/* the bits after them, from bit 0 */
	unsigned	nacc;			/* how many: fewer than 8 between calls */
} bit_writer;

/* The low n bits of v (n at most 56, no bit of v above them) */
static inline void
put_bits(bit_writer *w, uint64_t v, unsigned n)
{
	w->acc |= v << w->nacc;
	w->nacc += n;
	bf_put_le64(w->out + w->pos, w->acc);
	w->pos += w->nacc >> 3;
	w->acc >>= w->nacc & ~7u;
	w->nacc &= 7;
}

/* The Rice code of 'gap' with parameter r: gap >> r zeros, a one, r bits */
static inline void
put_gap(bit_writer *w, uint64_t gap, unsigned r)
{
	uint64_t	q = gap >> r;

	/* (at most 15 + 1 + 32 bits in one call) */
	for (; q >= 16; q -= 16)
		put_bits(w, 0, 16);
	put_bits(w, (1 | ((gap & ((UINT64_C(1) << r) - 1)) << 1)) << q,
			 (unsigned) q + 1 + r);
}

/* Words whose set bits are listed before they are coded */
#define LIST_WORDS		16

/*
 * The positions of the set bits of 'words' words at p into 'at' (room for
 * 64 a word and 4 more), numbered from 'first'; returns how many.  Four
 * are written for every word whatever it holds, so that a word of few bits
 * costs no mispredicted branch; the ones past its count are overwritten.
 */
static unsigned
list_bits(const unsigned char *p, unsigned words, uint64_t first, uint64_t *at)
{
	unsigned	n = 0,
				j;

	for (j = 0; j < words; j++)
	{
		uint64_t	word = bf_get_le64(p + j * 8),
					base = first + j * 64;
		unsigned	count = word_bits(word),
					k;

		/* (bit 63 stands in for a word emptied, whose ctz is undefined) */
		k = 0;
		do
		{
			at[n + k] = base + bf_ctz64(word | UINT64_C(1) << 63);
			word &= word - 1;
			at[n + k + 1] = base + bf_ctz64(word | UINT64_C(1) << 63);
			word &= word - 1;
			at[n + k + 2] = base + bf_ctz64(word | UINT64_C(1) << 63);
			word &= word - 1;
			at[n + k + 3] = base + bf_ctz64(word | UINT64_C(1) << 63);
			word &= word - 1;
		} while ((k += 4) < count);
		n += count;
	}
	return n;
}

size_t
bf_sparse_encode(const void *buf, size_t len, const bf_sparse *plan,
				 void *out, bf_yield_fn yield, void *arg)
{
	const unsigned char *payload = (const unsigned char *) buf + BF_HEADER_SIZE;
	unsigned char *o = out;
	uint64_t	bytes = len - BF_HEADER_SIZE,
				words = bytes / 8,
				next = 0,
				left = plan->set_bits,
				at[LIST_WORDS * 64 + 4],
				i;
	unsigned	r = plan->rice;
	bit_writer	w = {o + BF_SPARSE_HEAD, 0, 0, 0};

	memcpy(o, buf, BF_HEADER_SIZE);
	o[BF_HEADER_SIZE] = (unsigned char) r;
	bf_put_le64(o + BF_HEADER_SIZE + 1, plan->set_bits);
	for (i = 0; i < words;)
	{
		unsigned	batch = words - i < LIST_WORDS ? (unsigned) (words - i) : LIST_WORDS,
					n = list_bits(payload + i * 8, batch, i * 64, at),
					k;

		/* more set bits than planned: the bytes changed since */
		if (n > left)
			return 0;
		left -= n;
		for (k = 0; k < n; k++)
		{
			put_gap(&w, at[k] - next, r);
			next = at[k] + 1;
		}
		i += batch;
		if (yield && i % (BF_YIELD_BYTES / 8) == 0 && i < words)
			yield(arg);
	}
	/* a payload is whole words; any bytes past them, one by one */
	for (i = words * 8; i < bytes; i++)
	{
		unsigned	byte;

		for (byte = payload[i]; byte != 0; byte &= byte - 1)
		{
			if (left-- == 0)
				return 0;
			put_gap(&w, i * 8 + bf_ctz64(byte) - next, r);
			next = i * 8 + bf_ctz64(byte) + 1;
		}
	}
	/* the last bits are in place already, their padding zero */
	return BF_SPARSE_HEAD + w.pos + (w.nacc > 0);
}

/* The header's checks, then r and n against what the bytes can hold */
static bf_status
read_head(const unsigned char *in, size_t len, uint64_t *total,
		  unsigned *rice, uint64_t *set_bits)
{
	bf_status	st = bf_check_header(in, len, total);
	uint64_t	payload_bits,
				code_room;

	if (st != BF_OK)
		return st;
	if (len < BF_SPARSE_HEAD)
		return BF_E_SPARSE_END;
	*rice = in[BF_HEADER_SIZE];
	if (*rice > BF_SPARSE_MAX_RICE)
		return BF_E_SPARSE_RICE;
	*set_bits = bf_get_le64(in + BF_HEADER_SIZE + 1);
	payload_bits = (*total - BF_HEADER_SIZE) * 8;
	/* every code takes at least r + 1 bits */
	code_room = ((uint64_t) len - BF_SPARSE_HEAD) * 8 / (*rice + 1);
	if (*set_bits > payload_bits || *set_bits > code_room)
		return BF_E_SPARSE_COUNT;
	return BF_OK;
}

bf_status
bf_sparse_size(const void *in, size_t len, uint64_t *total_bytes)
{
	unsigned	rice;
	uint64_t	set_bits;

	return read_head(in, len, total_bytes, &rice, &set_bits);
}

/*
 * The bits of s (stream_bits long) from bit 'pos' on, the first the lowest:
 * 57 or more of them, zeros past the end
 */
static inline uint64_t
peek_bits(const unsigned char *s, uint64_t stream_bits, uint64_t pos)
{
	uint64_t	byte = pos >> 3,
				bytes = stream_bits / 8,
				v = 0;
	unsigned	i;

	if (byte + 8 <= bytes)
		v = bf_get_le64(s + byte);
	else
		for (i = 0; byte + i < bytes; i++)
			v |= (uint64_t) s[byte + i] << (8 * i);
	return v >> (pos & 7);
}

bf_status
bf_sparse_decode(const void *in, size_t len, void *out, uint64_t total_bytes,
				 bf_yield_fn yield, void *arg)
{
	const unsigned char *s = (const unsigned char *) in + BF_SPARSE_HEAD;
	unsigned char *payload = (unsigned char *) out + BF_HEADER_SIZE;
	uint64_t	total,
				set_bits,
				payload_bits,
				stream_bits,
				pos = 0,
				next = 0,
				i;
	unsigned	r;
	bf_ticker	t = {yield, arg, 0};
	bf_status	st = read_head(in, len, &total, &r, &set_bits);

	if (st != BF_OK)
		return st;
	if (total != total_bytes)
		return BF_E_ARGUMENT;
	memcpy(out, in, BF_HEADER_SIZE);
	for (i = 0; i < total - BF_HEADER_SIZE;)
	{
		uint64_t	piece = total - BF_HEADER_SIZE - i;

		if (piece > BF_YIELD_BYTES)
			piece = BF_YIELD_BYTES;
		memset(payload + i, 0, piece);
		i += piece;
		bf_tick(&t, piece * 8);
	}
	payload_bits = (total - BF_HEADER_SIZE) * 8;
	stream_bits = ((uint64_t) len - BF_SPARSE_HEAD) * 8;
	for (i = 0; i < set_bits; i++)
	{
		/* the largest quotient that keeps the gap inside the payload */
		uint64_t	room = (payload_bits - next) >> r,
					start = pos,
					q = 0,
					gap;

		for (;;)
		{
			uint64_t	bits,
						seen;

			if (pos >= stream_bits)
				return BF_E_SPARSE_END;
			bits = peek_bits(s, stream_bits, pos);
			if (bits != 0)
			{
				q += bf_ctz64(bits);
				pos += bf_ctz64(bits) + 1;
				break;
			}
			/* the bits peeked were all zero, up to the end at most */
			seen = 64 - (pos & 7);
			if (seen > stream_bits - pos)
				seen = stream_bits - pos;
			q += seen;
			pos += seen;
			if (q > room)
				return BF_E_SPARSE_GAP;
		}
		if (q > room)
			return BF_E_SPARSE_GAP;
		if (stream_bits - pos < r)
			return BF_E_SPARSE_END;
		gap = (q << r) | (peek_bits(s, stream_bits, pos) & ((UINT64_C(1) << r) - 1));
		pos += r;
		if (gap >= payload_bits - next)
			return BF_E_SPARSE_GAP;
		bf_bit_set(payload, next + gap);
		next += gap + 1;
		bf_tick(&t, pos - start);
	}
	/* nothing after the last code but the zero bits that end its byte */
	if (stream_bits - pos >= 8 ||
		(pos < stream_bits && s[pos >> 3] >> (pos & 7) != 0))
		return BF_E_SPARSE_TRAILING;
	return BF_OK;
}
