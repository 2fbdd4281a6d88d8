/*
 * fuzz_plan.c
 *		libFuzzer target: planning and sizing with arbitrary numbers, and
 *		bf_init of every plan small enough to build.
 *
 * Input (little-endian; a short input reads as zeros):
 *
 *		u8   variant	bit 7 clear: 1 + v % 5; set: the low 7 bits as they are
 *		u8   specials	bits 0-3: fpr from special_rate[] (0: the raw double)
 *						bits 4-7: items from special_items() (0: the raw u64)
 *		u64  items, f64 fpr, u64 seed, u64 bits, u32 hashes
 *		u8   shape		bits 0-1: how 'bits' is read, bits 2-3: how 'hashes' is
 *		the rest: a variant name for bf_variant_parse
 *
 * Arguments outside the documented ranges (NaN and infinite rates, zero
 * items, unknown variants) must be refused with the documented status;
 * every plan accepted must be within 1 GB, agree with bf_size_bytes, and
 * (when at most 16 MB) give bytes that bf_open accepts, that take elements,
 * and, for growing variants, grow.
 */
#include <float.h>

#include "fuzz_common.h"

static const double special_rate[16] = {
	0.0,						/* unused: the raw double */
	NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, 0x1.fffffffffffffp-1,
	DBL_MIN, 0x1p-1074, 0.5, 1e-300, 1e-9, 0.01, 0.999, -0.5
};

static uint64_t
special_items(unsigned i, uint64_t raw)
{
	static const uint64_t v[] = {
		0, 0, 1, 2, 3, 1000, UINT64_MAX, INT64_MAX, UINT64_C(1) << 53,
		1000000000, UINT64_C(1000000000000), UINT64_C(1000000000000000),
		UINT64_C(1000000000000000000), 0, 0, 7
	};

	if (i == 0)
		return raw;
	if (i == 13)
		return raw % 1000;
	if (i == 14)
		return raw % 1000000;
	return v[i];
}

static uint64_t
read_bits(unsigned mode, uint64_t raw)
{
	static const uint64_t v[] = {
		0, 1, 63, 64, 65, 511, 512, 513, 1024, 4096,
		FZ_MAX_PAYLOAD_BITS, FZ_MAX_PAYLOAD_BITS + 1, UINT64_MAX, UINT64_MAX >> 1,
		(UINT64_MAX >> 1) + 1, 128 * 1024 * 8
	};

	switch (mode)
	{
		case 0:
			return raw % 4096;
		case 1:
			return raw % (UINT64_C(1) << 24);
		case 2:
			return raw;
		default:
			return v[raw % 16];
	}
}

static uint32_t
read_hashes(unsigned mode, uint32_t raw)
{
	switch (mode)
	{
		case 0:
			return 1 + raw % 64;
		case 1:
			return 4 + raw % 29;	/* cuckoo widths */
		case 2:
			return raw % 70;
		default:
			return raw;
	}
}

static bool
valid_variant(int v)
{
	return v >= BF_VARIANT_MIN && v <= BF_VARIANT_MAX;
}

/* Builds the plan twice, over different fillings; both must be equal and valid */
static void
build(const bf_params *p, const char *how)
{
	unsigned char *a,
			   *b;
	bf_filter	f,
				again;
	uint64_t	total = 0;
	bf_status	st;
	int			i;

	if (p->total_bytes > FZ_MAX_ALLOC)
		return;
	a = malloc(p->total_bytes);
	b = malloc(p->total_bytes);
	FZ_ASSERT(a && b, "out of memory");
	memset(a, 0x00, p->total_bytes);
	memset(b, 0xFF, p->total_bytes);
	bf_init(p, a);
	bf_init(p, b);
	FZ_ASSERT(memcmp(a, b, p->total_bytes) == 0, "bf_init (%s) left bytes unwritten", how);
	free(b);

	st = bf_check_header(a, BF_HEADER_SIZE, &total);
	FZ_ASSERT(st == BF_OK && total == p->total_bytes,
			  "bf_check_header of a fresh %s filter: %s, %llu of %llu bytes", how,
			  bf_status_message(st), (unsigned long long) total,
			  (unsigned long long) p->total_bytes);
	st = bf_open(a, p->total_bytes, &f);
	FZ_ASSERT(st == BF_OK, "bf_open of a fresh filter (%s, variant %d, %llu bits, k %u): %s",
			  how, p->variant, (unsigned long long) p->bits, p->hashes,
			  bf_status_message(st));
	FZ_ASSERT(f.variant == p->variant && f.hashes == p->hashes && f.variant_word == p->variant_word &&
			  f.seed == p->seed && f.bits == p->bits && f.items == 0 &&
			  f.expected_items == p->expected_items &&
			  f.payload_bytes == p->payload_bytes &&
			  memcmp(&f.target_fpr, &p->target_fpr, sizeof(double)) == 0,
			  "the fresh filter's header differs from its plan (%s)", how);
	fz_check_fill(&f, p->total_bytes);
	(void) bf_filter_capacity(&f);

	/* a few elements must go in (growing once if need be) and stay */
	for (i = 0; i < 8; i++)
	{
		bf_hash		h = bf_hash_int64(i, f.seed);

		st = bf_add(&f, h);
		if (st == BF_E_FULL)
			break;
		FZ_ASSERT(st == BF_OK, "bf_add to a fresh filter: %s", bf_status_message(st));
		FZ_ASSERT(bf_contains(&f, h), "false negative in a fresh filter (%s)", how);
	}
	st = bf_open(a, p->total_bytes, &again);
	FZ_ASSERT(st == BF_OK, "bf_add made a fresh filter invalid: %s", bf_status_message(st));
	fz_same_view(&f, &again, "bf_add");

	if (bf_grow_bytes(&f) != 0 && bf_grow_bytes(&f) <= FZ_MAX_ALLOC)
	{
		uint64_t	need = bf_grow_bytes(&f);
		unsigned char *g = malloc(need);
		bf_filter	gf;

		FZ_ASSERT(g != NULL, "out of memory");
		bf_grow(&f, g);
		st = bf_open(g, need, &gf);
		FZ_ASSERT(st == BF_OK, "a grown fresh filter is refused: %s", bf_status_message(st));
		/* the new stage is empty: the first add must go in */
		for (i = 0; i < 8; i++)
		{
			bf_hash		h = bf_hash_int64(100 + i, gf.seed);

			st = bf_add(&gf, h);
			if (st == BF_E_FULL && i > 0)
				break;
			FZ_ASSERT(st == BF_OK, "bf_add after growing: %s", bf_status_message(st));
			FZ_ASSERT(bf_contains(&gf, h), "false negative after growing");
		}
		FZ_ASSERT(bf_open(g, need, &gf) == BF_OK, "bf_add made a grown filter invalid");
		free(g);
	}
	free(a);
}

static void
check_plan(const bf_params *p, int v, const char *how)
{
	FZ_ASSERT((int) p->variant == v, "planned variant %d for %d", p->variant, v);
	FZ_ASSERT(p->total_bytes == BF_HEADER_SIZE + p->payload_bytes &&
			  p->total_bytes <= BF_MAX_BYTES,
			  "%s: total %llu, payload %llu", how,
			  (unsigned long long) p->total_bytes, (unsigned long long) p->payload_bytes);
	if (v == BF_CUCKOO)
		FZ_ASSERT(p->hashes >= 4 && p->hashes <= 32, "%s: fingerprint of %u bits", how, p->hashes);
	else
		FZ_ASSERT(p->hashes >= 1 && p->hashes <= BF_MAX_HASHES, "%s: k = %u", how, p->hashes);
	FZ_ASSERT(p->bits >= 1, "%s: no bits", how);
	if (v != BF_SCALABLE)
	{
		uint64_t	sz = bf_size_bytes((bf_variant) v, p->bits, p->hashes);

		FZ_ASSERT(sz == p->total_bytes, "%s: bf_size_bytes %llu, plan %llu bytes", how,
				  (unsigned long long) sz, (unsigned long long) p->total_bytes);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_reader	r = {data, size};
	uint8_t		vsel = fz_u8(&r),
				specials = fz_u8(&r);
	int			v = (vsel & 0x80) ? (vsel & 0x7F) : BF_VARIANT_MIN + vsel % 5;
	uint64_t	items = special_items(specials >> 4, fz_u64(&r));
	double		fpr = fz_double(&r);
	uint64_t	seed = fz_u64(&r),
				bits_raw = fz_u64(&r);
	uint32_t	hashes_raw = fz_u32(&r);
	uint8_t		shape = fz_u8(&r);
	uint64_t	bits = read_bits(shape & 3, bits_raw);
	uint32_t	hashes = read_hashes((shape >> 2) & 3, hashes_raw);
	bool		rate_ok;
	bf_params	p;
	bf_status	st;
	size_t		name_len;
	const uint8_t *name = fz_bytes(&r, 32, &name_len);
	bf_variant	parsed;

	if (specials & 15)
		fpr = special_rate[specials & 15];
	rate_ok = fpr > 0.0 && fpr < 1.0;

	/* bf_plan(variant, n, p) */
	memset(&p, 0xA5, sizeof(p));
	st = bf_plan((bf_variant) v, items, fpr, seed, &p);
	if (!valid_variant(v))
		FZ_ASSERT(st == BF_E_VARIANT, "bf_plan with variant %d: %s", v, bf_status_message(st));
	else if (items == 0 || !rate_ok)
		FZ_ASSERT(st == BF_E_ARGUMENT, "bf_plan(%llu items, rate %g): %s",
				  (unsigned long long) items, fpr, bf_status_message(st));
	else
	{
		FZ_ASSERT(st == BF_OK || st == BF_E_TOO_LARGE, "bf_plan(%d, %llu, %g): %s", v,
				  (unsigned long long) items, fpr, bf_status_message(st));
		if (st == BF_OK)
		{
			FZ_ASSERT(p.expected_items == items && p.seed == seed &&
					  memcmp(&p.target_fpr, &fpr, sizeof(double)) == 0,
					  "bf_plan did not record its arguments");
			check_plan(&p, v, "bf_plan");
			if (items <= 100000)
			{
				double		model = bf_plan_fpr(&p, (double) items);

				FZ_ASSERT(model >= 0.0 && model <= 1.0, "bf_plan_fpr %g", model);
			}
			build(&p, "bf_plan");
		}
	}

	/* bf_plan_bits(variant, m, k) and bf_size_bytes */
	memset(&p, 0xA5, sizeof(p));
	st = bf_plan_bits((bf_variant) v, bits, hashes, seed, &p);
	if (!valid_variant(v))
		FZ_ASSERT(st == BF_E_VARIANT, "bf_plan_bits with variant %d: %s", v,
				  bf_status_message(st));
	else if (bits < 1 || hashes < 1 || hashes > BF_MAX_HASHES)
		FZ_ASSERT(st == BF_E_ARGUMENT, "bf_plan_bits(%llu bits, %u hashes): %s",
				  (unsigned long long) bits, hashes, bf_status_message(st));
	else if (v == BF_SCALABLE && bits <= (UINT64_MAX >> 1))
		FZ_ASSERT(st == BF_E_UNSUPPORTED, "bf_plan_bits for scalable: %s",
				  bf_status_message(st));
	else if (v == BF_CUCKOO && (hashes < 4 || hashes > 32) && bits <= (UINT64_MAX >> 1))
		FZ_ASSERT(st == BF_E_HASHES, "bf_plan_bits for cuckoo, f = %u: %s", hashes,
				  bf_status_message(st));
	else if (bits > FZ_MAX_PAYLOAD_BITS)
	{
		FZ_ASSERT(st == BF_E_TOO_LARGE, "bf_plan_bits(%llu bits): %s",
				  (unsigned long long) bits, bf_status_message(st));
		/* the size past the limit, for the error message */
		FZ_ASSERT(bits > (UINT64_MAX >> 1) ||
				  bf_size_bytes((bf_variant) v, bits, hashes) > BF_MAX_BYTES,
				  "bf_size_bytes(%d, %llu bits) past 1 GB: %llu", v,
				  (unsigned long long) bits,
				  (unsigned long long) bf_size_bytes((bf_variant) v, bits, hashes));
	}
	else
		FZ_ASSERT(st == BF_OK || st == BF_E_TOO_LARGE, "bf_plan_bits(%d, %llu, %u): %s", v,
				  (unsigned long long) bits, hashes, bf_status_message(st));
	if (st == BF_OK)
	{
		FZ_ASSERT(p.bits >= bits && p.hashes == hashes && p.expected_items == 0 &&
				  p.target_fpr == 0.0, "bf_plan_bits: %llu bits for %llu asked",
				  (unsigned long long) p.bits, (unsigned long long) bits);
		check_plan(&p, v, "bf_plan_bits");
		FZ_ASSERT(bf_size_bytes((bf_variant) v, bits, hashes) == p.total_bytes,
				  "bf_size_bytes of the bits asked for differs from the plan");
		build(&p, "bf_plan_bits");
	}
	else
		(void) bf_size_bytes((bf_variant) v, bits, hashes);

	/* the sizing models, with the arguments as the SQL functions pass them */
	if (valid_variant(v))
	{
		uint64_t	obits = 0,
					cap = 0;
		uint32_t	ok = 0;
		double		ditems = (specials >> 4) == 0 ? fz_double(&r) : (double) items;

		st = bf_optimal_bits((bf_variant) v, ditems, fpr, &obits, &ok);
		if (!(ditems >= 1) || !rate_ok)
			FZ_ASSERT(st == BF_E_ARGUMENT, "bf_optimal_bits(%g, %g): %s", ditems, fpr,
					  bf_status_message(st));
		else
			FZ_ASSERT(st == BF_E_TOO_LARGE || (st == BF_OK && obits >= 1 && ok >= 1 &&
											   ok <= BF_MAX_HASHES),
					  "bf_optimal_bits(%g, %g): %s, %llu bits, k %u", ditems, fpr,
					  bf_status_message(st), (unsigned long long) obits, ok);
		st = bf_capacity((bf_variant) v, bits, fpr, &cap);
		if (bits < 1 || !rate_ok)
			FZ_ASSERT(st == BF_E_ARGUMENT, "bf_capacity(%llu, %g): %s",
					  (unsigned long long) bits, fpr, bf_status_message(st));
		else
			FZ_ASSERT(st == BF_OK || st == BF_E_TOO_LARGE, "bf_capacity: %s",
					  bf_status_message(st));
	}
	if (bits >= 1 && bits <= (UINT64_C(1) << 62) && items <= (UINT64_C(1) << 62) &&
		hashes >= 1 && hashes <= BF_MAX_HASHES)
	{
		double		c = bf_classic_fpr((double) bits, (double) items, hashes);
		uint32_t	k = bf_classic_hashes((double) bits, (double) items);

		FZ_ASSERT(c >= 0.0 && c <= 1.0, "bf_classic_fpr %g", c);
		FZ_ASSERT(k >= 1 && k <= BF_MAX_HASHES, "bf_classic_hashes %u", k);
		if (items <= 100000)
		{
			double		b = bf_blocked_fpr((double) bits, (double) items, hashes);

			FZ_ASSERT(b >= 0.0 && b <= 1.0, "bf_blocked_fpr %g", b);
		}
	}

	/* names and messages */
	if (bf_variant_parse((const char *) name, name_len, &parsed))
		FZ_ASSERT(strlen(bf_variant_name(parsed)) == name_len &&
				  memcmp(bf_variant_name(parsed), name, name_len) == 0,
				  "bf_variant_parse accepted another name");
	FZ_ASSERT(bf_variant_name((bf_variant) v) != NULL, "no variant name");
	FZ_ASSERT(bf_status_message((bf_status) vsel) != NULL, "no status message");
	return 0;
}
