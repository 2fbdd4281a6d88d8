/*
 * test_counting.c
 *		Core unit tests of the counting variant: 4-bit saturating counters in
 *		the classic layout.
 *
 * The counters are recomputed here from the layout as documented (classic
 * enhanced double hashing, counter i in the low nibble of byte i / 2 when i
 * is even, the high nibble when odd) by a reference model that also defines
 * add and remove independently: add increments each of the k positions
 * (repetitions too) up to 15; remove counts the repetitions first and
 * refuses, changing nothing, when a non-saturated counter would go below
 * zero.  The core must agree with it byte for byte over random sequences of
 * adds and removes, answer exactly as a classic filter of the same m, k and
 * seed, meet the classic model's rate, keep every element that was not
 * removed, and reject hostile bytes.
 */
#include <math.h>
#include <stdint.h>

#include "bf.h"
#include "check.h"

#define MAX_BITS		((BF_MAX_BYTES - BF_HEADER_SIZE) * 8)

static void
plan_bits(bf_variant v, uint64_t m, uint32_t k, uint64_t seed, bf_params *p)
{
	bf_status	st = bf_plan_bits(v, m, k, seed, p);

	if (st != BF_OK)
	{
		CHECK(0, "bf_plan_bits(%d, %llu, %u): %s", (int) v,
			  (unsigned long long) m, k, bf_status_message(st));
		exit(2);
	}
}

/* ---------------------------------------------------------------------- */
/* The reference model, from the documented layout alone */

/* x = mulhi(lo, m), y = mulhi(hi, m); k times: x, then x += y, y += i */
static void
ref_positions(bf_hash h, uint64_t m, uint32_t k, uint64_t *pos)
{
	uint64_t	x = check_mulhi(h.lo, m),
				y = check_mulhi(h.hi, m);
	uint32_t	i;

	for (i = 0; i < k; i++)
	{
		pos[i] = x;
		x = (x + y) % m;
		y = (y + i + 1) % m;
	}
}

static unsigned
nibble(const unsigned char *payload, uint64_t i)
{
	return i % 2 == 0 ? payload[i / 2] & 0x0F : payload[i / 2] >> 4;
}

static void
put_nibble(unsigned char *payload, uint64_t i, unsigned v)
{
	if (i % 2 == 0)
		payload[i / 2] = (unsigned char) ((payload[i / 2] & 0xF0) | v);
	else
		payload[i / 2] = (unsigned char) ((payload[i / 2] & 0x0F) | (v << 4));
}

typedef struct ref
{
	uint64_t	m;
	uint32_t	k;
	unsigned char *c;			/* one counter per byte */
} ref;

static void
ref_add(ref *r, bf_hash h)
{
	uint64_t	pos[64];
	uint32_t	i;

	ref_positions(h, r->m, r->k, pos);
	for (i = 0; i < r->k; i++)
		if (r->c[pos[i]] < 15)
			r->c[pos[i]]++;
}

static bf_status
ref_remove(ref *r, bf_hash h)
{
	uint64_t	pos[64];
	uint32_t	i,
				j;

	ref_positions(h, r->m, r->k, pos);
	for (i = 0; i < r->k; i++)
	{
		unsigned	times = 0;

		for (j = 0; j < r->k; j++)
			times += pos[j] == pos[i];
		if (r->c[pos[i]] != 15 && r->c[pos[i]] < times)
			return BF_E_NOT_FOUND;
	}
	for (i = 0; i < r->k; i++)
		if (r->c[pos[i]] != 15)
			r->c[pos[i]]--;
	return BF_OK;
}

static int
ref_contains(const ref *r, bf_hash h)
{
	uint64_t	pos[64];
	uint32_t	i;

	ref_positions(h, r->m, r->k, pos);
	for (i = 0; i < r->k; i++)
		if (r->c[pos[i]] == 0)
			return 0;
	return 1;
}

/*
 * The copies of h: per distinct position, its counter over the times the
 * position repeats among the k; the fewest, saturated counters passed over
 * (all saturated: 15)
 */
static uint32_t
ref_count(const ref *r, bf_hash h)
{
	uint64_t	pos[64];
	uint32_t	i,
				j,
				least = 15;

	ref_positions(h, r->m, r->k, pos);
	for (i = 0; i < r->k; i++)
	{
		unsigned	times = 0;

		for (j = 0; j < r->k; j++)
			times += pos[j] == pos[i];
		if (r->c[pos[i]] != 15 && r->c[pos[i]] / times < least)
			least = r->c[pos[i]] / times;
	}
	return least;
}

/* Counters that differ between the reference and a payload, padding too */
static uint64_t
ref_diff(const ref *r, const bf_filter *f)
{
	uint64_t	i,
				diff = 0;

	for (i = 0; i < f->payload_bytes * 2; i++)
		diff += nibble(f->payload, i) != (i < r->m ? r->c[i] : 0);
	return diff;
}

/*
 * The reference validator of a counting header (and of the classic one,
 * which a mutated variant byte can turn it into): STORAGE.md section 3 with
 * the counting rules.
 */
static int
ref_valid(const unsigned char *b, size_t len)
{
	unsigned	variant = check_ref_head(b, len);
	unsigned long long bits,
				payload,
				i;

	if (variant != BF_CLASSIC && variant != BF_COUNTING)
		return 0;
	bits = check_le64(b + OFF_BITS);
	payload = check_le64(b + OFF_PAYLOAD);
	if (payload != (variant == BF_COUNTING ? (bits + 15) / 16 * 8 :
					(bits + 63) / 64 * 8))
		return 0;
	if (!check_ref_tail(b, len, payload))
		return 0;
	if (variant == BF_COUNTING)
	{
		for (i = bits; i < payload * 2; i++)
			if (nibble(b + BF_HEADER_SIZE, i) != 0)
				return 0;
	}
	else
		for (i = bits; i < payload * 8; i++)
			if ((b[BF_HEADER_SIZE + i / 8] >> (i % 8)) & 1)
				return 0;
	return 1;
}

/* ---------------------------------------------------------------------- */

static void
test_plan(void)
{
	static const uint64_t ms[] = {1, 2, 3, 15, 16, 17, 31, 32, 33, 1000, 100003};
	static const struct
	{
		uint64_t	n;
		double		p;
	}			sized[] = {{1, 0.5}, {1000, 0.01}, {100000, 0.001}, {12345, 1e-6}};
	size_t		i;

	check_group("plan: m counters, classic sizing, ceil(m / 16) x 8 bytes");
	CHECK(bf_can_remove(BF_COUNTING), "counting cannot remove");
	CHECK(!bf_can_remove(BF_CLASSIC) && !bf_can_remove(BF_BLOCKED),
		  "classic or blocked can remove");
	{
		bf_variant	v = (bf_variant) 0;

		CHECK(bf_variant_parse("counting", 8, &v) && v == BF_COUNTING,
			  "\"counting\" does not parse");
		CHECK(strcmp(bf_variant_name(BF_COUNTING), "counting") == 0,
			  "name %s", bf_variant_name(BF_COUNTING));
	}
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
	{
		bf_params	p;
		built		b;
		bf_status	st = bf_plan_bits(BF_COUNTING, ms[i], 5, 77, &p);

		CHECK(st == BF_OK, "m=%llu: %s", (unsigned long long) ms[i],
			  bf_status_message(st));
		CHECK(p.bits == ms[i] && p.hashes == 5 && p.variant_word == 0 &&
			  p.payload_bytes == (ms[i] + 15) / 16 * 8 &&
			  p.total_bytes == 64 + p.payload_bytes &&
			  p.expected_items == 0 && p.target_fpr == 0.0,
			  "m=%llu: bits %llu, variant_word %u, payload %llu",
			  (unsigned long long) ms[i], (unsigned long long) p.bits,
			  p.variant_word, (unsigned long long) p.payload_bytes);
		CHECK(bf_size_bytes(BF_COUNTING, ms[i], p.hashes) == p.total_bytes,
			  "m=%llu: bf_size_bytes %llu", (unsigned long long) ms[i],
			  (unsigned long long) bf_size_bytes(BF_COUNTING, ms[i], p.hashes));
		check_build_empty(&p, &b);
		CHECK(b.buf[OFF_VARIANT] == 3 && check_le64(b.buf + OFF_BITS) == ms[i] &&
			  check_le32(b.buf + OFF_HASHES) == 5 &&
			  check_le32(b.buf + OFF_VARIANT_WORD) == 0 &&
			  check_le64(b.buf + OFF_SEED) == 77 &&
			  check_le64(b.buf + OFF_PAYLOAD) == p.payload_bytes,
			  "m=%llu: header fields", (unsigned long long) ms[i]);
		CHECK(ref_valid(b.buf, b.len), "m=%llu: reference validator rejects",
			  (unsigned long long) ms[i]);
		free(b.buf);
	}
	for (i = 0; i < sizeof(sized) / sizeof(sized[0]); i++)
	{
		bf_params	c,
					k;
		uint64_t	cb,
					kb,
					cap_c,
					cap_k;
		uint32_t	ch,
					kh;
		built		bc,
					bk;

		bf_plan(BF_COUNTING, sized[i].n, sized[i].p, 0, &c);
		bf_plan(BF_CLASSIC, sized[i].n, sized[i].p, 0, &k);
		CHECK(c.bits == k.bits && c.hashes == k.hashes && c.variant_word == 0 &&
			  c.payload_bytes == (c.bits + 15) / 16 * 8 &&
			  c.expected_items == sized[i].n && c.target_fpr == sized[i].p,
			  "n=%llu p=%g: counting m=%llu k=%u, classic m=%llu k=%u",
			  (unsigned long long) sized[i].n, sized[i].p,
			  (unsigned long long) c.bits, c.hashes,
			  (unsigned long long) k.bits, k.hashes);
		CHECK(bf_optimal_bits(BF_COUNTING, (double) sized[i].n, sized[i].p,
							  &cb, &ch) == BF_OK &&
			  bf_optimal_bits(BF_CLASSIC, (double) sized[i].n, sized[i].p,
							  &kb, &kh) == BF_OK &&
			  cb == kb && ch == kh, "n=%llu: optimal bits differ",
			  (unsigned long long) sized[i].n);
		CHECK(bf_capacity(BF_COUNTING, c.bits, sized[i].p, &cap_c) == BF_OK &&
			  bf_capacity(BF_CLASSIC, k.bits, sized[i].p, &cap_k) == BF_OK &&
			  cap_c == cap_k && cap_c >= sized[i].n,
			  "n=%llu: capacity %llu, classic %llu",
			  (unsigned long long) sized[i].n, (unsigned long long) cap_c,
			  (unsigned long long) cap_k);
		check_build_empty(&c, &bc);
		check_build_empty(&k, &bk);
		CHECK(bf_filter_capacity(&bc.f) == bf_filter_capacity(&bk.f),
			  "n=%llu: filter capacity %llu, classic %llu",
			  (unsigned long long) sized[i].n,
			  (unsigned long long) bf_filter_capacity(&bc.f),
			  (unsigned long long) bf_filter_capacity(&bk.f));
		CHECK(bf_filter_model_fpr(&bc.f, (double) sized[i].n) ==
			  bf_filter_model_fpr(&bk.f, (double) sized[i].n),
			  "n=%llu: model differs", (unsigned long long) sized[i].n);
		free(bc.buf);
		free(bk.buf);
	}
	/* sizes: 4 bits a counter, so a quarter of what classic can hold */
	{
		bf_params	p;
		uint64_t	most = (BF_MAX_BYTES - 64) / 8 * 16;

		CHECK(bf_plan_bits(BF_COUNTING, most, 3, 0, &p) == BF_OK &&
			  p.total_bytes <= BF_MAX_BYTES, "largest counting filter refused");
		CHECK(bf_plan_bits(BF_COUNTING, most + 1, 3, 0, &p) == BF_E_TOO_LARGE,
			  "one counter past 1 GB accepted");
		CHECK(bf_plan_bits(BF_COUNTING, MAX_BITS, 3, 0, &p) == BF_E_TOO_LARGE,
			  "MAX_BITS counters accepted");
		CHECK(bf_plan_bits(BF_COUNTING, 0, 3, 0, &p) == BF_E_ARGUMENT &&
			  bf_plan_bits(BF_COUNTING, 10, 0, 0, &p) == BF_E_ARGUMENT &&
			  bf_plan_bits(BF_COUNTING, 10, 65, 0, &p) == BF_E_ARGUMENT,
			  "bad shapes accepted");
		CHECK(bf_plan(BF_COUNTING, 300000000, 0.01, 0, &p) == BF_E_TOO_LARGE,
			  "3e8 items at 1 %% fit in 1 GB of counters");
		CHECK(bf_plan(BF_COUNTING, 100000000, 0.01, 0, &p) == BF_OK &&
			  p.total_bytes == 64 + (p.bits + 15) / 16 * 8,
			  "1e8 items at 1 %% refused");
	}
	check_group_end();
}

/*
 * Random adds and removes on small filters against the reference: every
 * status, answer and counter agrees, including repeated positions (m
 * smaller than k), saturation and refused removes.
 */
static void
test_against_reference(void)
{
	static const uint64_t ms[] = {1, 2, 3, 5, 16, 17, 33, 200};
	static const uint32_t ks[] = {1, 2, 3, 5, 8, 13, 64};
	uint64_t	rng = 12345;
	int			steps = check_quick() ? 400 : 2000;
	unsigned long adds = 0,
				removes = 0,
				refused = 0,
				saturated = 0;
	size_t		a,
				c;

	check_group("adds, removes and counts agree with the reference counters");
	for (a = 0; a < sizeof(ms) / sizeof(ms[0]); a++)
		for (c = 0; c < sizeof(ks) / sizeof(ks[0]); c++)
		{
			bf_params	p;
			built		b;
			ref			r;
			int			s;
			unsigned long bad = 0;
			uint64_t	items = 0;
			uint32_t	copies;

			plan_bits(BF_COUNTING, ms[a], ks[c], ms[a] * 100 + ks[c], &p);
			check_build_empty(&p, &b);
			r.m = ms[a];
			r.k = ks[c];
			r.c = check_malloc((size_t) ms[a]);
			memset(r.c, 0, (size_t) ms[a]);
			for (s = 0; s < steps; s++)
			{
				uint64_t	x;
				bf_hash		h;
				bf_status	st,
							want;
				unsigned char *before = check_dup(b.buf, b.len, b.len);

				rng = rng * UINT64_C(6364136223846793005) + 1;
				/* a small pool of keys: many repeats, some saturation */
				h = check_key((rng >> 33) % 12, (rng >> 40) % 5 == 0, b.f.seed);
				x = rng >> 60;
				if (x < 9)
				{
					st = bf_add(&b.f, h);
					ref_add(&r, h);
					want = BF_OK;
					adds++;
					if (st == BF_OK)
						items++;
				}
				else
				{
					want = ref_remove(&r, h);
					st = bf_remove(&b.f, h);
					removes++;
					if (st == BF_OK && items != 0)
						items--;	/* saturated counters let it go on */
					else if (memcmp(before, b.buf, b.len) != 0)
						bad += 1000;	/* a refused remove changed bytes */
					refused += st == BF_E_NOT_FOUND;
				}
				if (st != want || ref_diff(&r, &b.f) != 0 ||
					bf_contains(&b.f, h) != (bool) ref_contains(&r, h) ||
					bf_count(&b.f, h, &copies) != BF_OK ||
					copies != ref_count(&r, h) ||
					b.f.items != items || check_le64(b.buf + OFF_ITEMS) != items)
					bad++;
				free(before);
			}
			for (s = 0; s < (int) ms[a]; s++)
				saturated += r.c[s] == 15;
			CHECK(bad == 0, "m=%llu k=%u: %lu steps disagree with the reference",
				  (unsigned long long) ms[a], ks[c], bad);
			CHECK(bf_open(b.buf, b.len, &b.f) == BF_OK,
				  "m=%llu k=%u: invalid after the steps",
				  (unsigned long long) ms[a], ks[c]);
			free(r.c);
			free(b.buf);
		}
	printf("     %lu adds, %lu removes (%lu refused), %lu counters saturated at the end\n",
		   adds, removes, refused, saturated);
	CHECK(refused > 0 && saturated > 0, "the steps never refused or saturated");
	check_group_end();
}

/*
 * bf_count of elements added 1 to 5 times each (none removed): never fewer
 * than the copies, nearly always exact at the planned load; 0 for nearly
 * every stranger; blocked and classic filters keep no copies
 */
static void
test_count(void)
{
	bf_params	p;
	built		b;
	uint64_t	i;
	unsigned long fewer = 0,
				exact = 0,
				strangers = 0;
	uint32_t	copies = 0;
	int			c;

	check_group("bf_count: the copies of each element");
	if (bf_plan(BF_COUNTING, 6000, 0.01, 7, &p) != BF_OK)
	{
		CHECK(0, "bf_plan(counting, 6000, 0.01) failed");
		return;
	}
	check_build_empty(&p, &b);
	for (i = 0; i < 2000; i++)
		for (c = 0; c <= (int) (i % 5); c++)
			bf_add(&b.f, check_key(i, 0, b.f.seed));
	for (i = 0; i < 2000; i++)
	{
		CHECK(bf_count(&b.f, check_key(i, 0, b.f.seed), &copies) == BF_OK,
			  "bf_count refused a counting filter");
		fewer += copies < i % 5 + 1;
		exact += copies == i % 5 + 1;
		bf_count(&b.f, check_key(i + 100000, 0, b.f.seed), &copies);
		strangers += copies != 0;
	}
	printf("     2,000 elements: %lu counted exactly, %lu too few; %lu of 2,000 strangers counted\n",
		   exact, fewer, strangers);
	CHECK(fewer == 0, "%lu elements counted fewer copies than added", fewer);
	CHECK(exact >= 1990, "only %lu of 2,000 counted exactly", exact);
	CHECK(strangers < 60, "%lu of 2,000 strangers counted", strangers);
	free(b.buf);
	plan_bits(BF_CLASSIC, 1000, 3, 7, &p);
	check_build_empty(&p, &b);
	CHECK(bf_count(&b.f, check_key(1, 0, 7), &copies) == BF_E_UNSUPPORTED,
		  "a classic filter counted copies");
	free(b.buf);
	check_group_end();
}

/* Non-zero counters where a classic filter sets bits: the same answers */
static void
test_same_as_classic(void)
{
	static const struct
	{
		uint64_t	m;
		uint32_t	k;
		uint64_t	seed;
		uint64_t	n;
	}			shapes[] = {{9586, 7, 0, 1000}, {100003, 3, 42, 30000},
	{64, 3, 1234567, 10}, {1, 1, 0, 1}, {7, 64, UINT64_MAX, 5}};
	uint64_t	probes = check_quick() ? 20000 : 200000;
	size_t		s;

	check_group("a counting filter answers like a classic one of the same m, k, seed");
	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
	{
		bf_params	pc,
					pk;
		built		c,
					k;
		uint64_t	i,
					differ = 0,
					bit_differ = 0,
					positives = 0;

		plan_bits(BF_COUNTING, shapes[s].m, shapes[s].k, shapes[s].seed, &pc);
		plan_bits(BF_CLASSIC, shapes[s].m, shapes[s].k, shapes[s].seed, &pk);
		check_build(&pc, 0, shapes[s].n, &c);
		check_build(&pk, 0, shapes[s].n, &k);
		for (i = 0; i < shapes[s].m; i++)
			bit_differ += (nibble(c.f.payload, i) != 0) !=
				((k.f.payload[i / 8] >> (i % 8)) & 1);
		for (i = 0; i < probes; i++)
		{
			bf_hash		h = check_key(i, i % 3 != 0, shapes[s].seed);
			bool		a = bf_contains(&c.f, h);

			differ += a != bf_contains(&k.f, h);
			positives += a;
		}
		CHECK(bit_differ == 0 && differ == 0,
			  "m=%llu k=%u: %llu counters differ from the bits, %llu answers differ",
			  (unsigned long long) shapes[s].m, shapes[s].k,
			  (unsigned long long) bit_differ, (unsigned long long) differ);
		CHECK(positives > 0, "m=%llu: nothing found",
			  (unsigned long long) shapes[s].m);
		free(c.buf);
		free(k.buf);
	}
	check_group_end();
}

/*
 * The measured rate against the classic model, as in test_accuracy: within
 * 4 standard errors both of the model and of the rate the fill predicts,
 * and within the target.
 */
static void
measure(uint64_t n, double p)
{
	bf_params	params;
	built		b;
	uint64_t	i,
				missing = 0,
				positives = 0,
				probes = n;
	bf_fill_stats s;
	double		model,
				se,
				measured,
				fill_se;
	clock_t		t0 = clock();
	double		t_add;

	if (bf_plan(BF_COUNTING, n, p, 0, &params) != BF_OK)
	{
		CHECK(0, "n=%llu p=%g: no plan", (unsigned long long) n, p);
		return;
	}
	check_build(&params, 0, n, &b);
	t_add = (double) (clock() - t0) / CLOCKS_PER_SEC;
	for (i = 0; i < n; i++)
		missing += !bf_contains(&b.f, check_key(i, 0, 0));
	for (i = 0; i < probes; i++)
		positives += bf_contains(&b.f, check_key(i, 1, 0));
	bf_fill(&b.f, &s, NULL, NULL);
	model = bf_filter_model_fpr(&b.f, (double) n);
	se = sqrt(model * (1 - model) / (double) probes);
	fill_se = sqrt(s.fpr * (1 - s.fpr) / (double) probes);
	measured = (double) positives / (double) probes;
	printf("     n=%-8llu p=%-6g m=%llu k=%u (%.2f bits/item in %llu bytes): "
		   "measured %.6f, model %.6f (%+.2f SE), fill %.6f; %llu saturated; add %.2f s\n",
		   (unsigned long long) n, p, (unsigned long long) b.f.bits,
		   b.f.hashes, 8.0 * (double) b.f.payload_bytes / (double) n,
		   (unsigned long long) b.f.payload_bytes, measured, model,
		   (measured - model) / se, s.fpr, (unsigned long long) s.saturated,
		   t_add);
	CHECK(missing == 0, "n=%llu p=%g: %llu false negatives",
		  (unsigned long long) n, p, (unsigned long long) missing);
	CHECK(fabs(measured - model) <= 4 * se,
		  "n=%llu p=%g: measured %.6f, model %.6f (SE %.6f)",
		  (unsigned long long) n, p, measured, model, se);
	CHECK(fabs(measured - s.fpr) <= 4 * fill_se,
		  "n=%llu p=%g: measured %.6f, fill predicts %.6f",
		  (unsigned long long) n, p, measured, s.fpr);
	CHECK(measured <= p + 4 * sqrt(p * (1 - p) / (double) probes),
		  "n=%llu p=%g: measured %.6f above the target",
		  (unsigned long long) n, p, measured);
	CHECK(fabs(s.estimated_items - (double) n) <= 0.02 * (double) n,
		  "n=%llu: estimated %.0f items", (unsigned long long) n,
		  s.estimated_items);
	free(b.buf);
}

static void
test_fpr(void)
{
	uint64_t	n = check_quick() ? 100000 : 1000000;

	check_group("measured false-positive rate against the classic model");
	measure(n, 0.01);
	measure(n, 0.001);
	check_group_end();
}

/*
 * Remove half of 100 000 items: the other half all stays, the removed half
 * answers like strangers (the rate the remaining fill predicts), and the
 * counters are those of a filter that only ever held the kept half.
 */
static void
test_remove_half(void)
{
	uint64_t	n = 100000,
				i,
				kept_missing = 0,
				removed_found = 0,
				refused = 0,
				stranger_found = 0;
	bf_params	p;
	built		b,
				half;
	bf_fill_stats s;
	double		se;

	check_group("removing half keeps the other half and forgets the removed one");
	bf_plan(BF_COUNTING, n, 0.01, 9, &p);
	check_build(&p, 0, n, &b);
	for (i = 0; i < n; i += 2)
		refused += bf_remove(&b.f, check_key(i, 0, 9)) != BF_OK;
	for (i = 0; i < n; i++)
	{
		if (i % 2)
			kept_missing += !bf_contains(&b.f, check_key(i, 0, 9));
		else
			removed_found += bf_contains(&b.f, check_key(i, 0, 9));
		stranger_found += bf_contains(&b.f, check_key(i, 1, 9));
	}
	bf_fill(&b.f, &s, NULL, NULL);
	se = sqrt(s.fpr * (1 - s.fpr) / (double) (n / 2));
	printf("     after removing %llu of %llu: removed ones found %.5f, "
		   "strangers %.5f, the fill predicts %.5f; estimated %.0f items\n",
		   (unsigned long long) (n / 2), (unsigned long long) n,
		   (double) removed_found / (double) (n / 2),
		   (double) stranger_found / (double) n, s.fpr, s.estimated_items);
	CHECK(refused == 0, "%llu removes refused", (unsigned long long) refused);
	CHECK(kept_missing == 0, "%llu kept items lost",
		  (unsigned long long) kept_missing);
	CHECK(fabs((double) removed_found / (double) (n / 2) - s.fpr) <= 4 * se,
		  "removed items found at %.5f, fill predicts %.5f",
		  (double) removed_found / (double) (n / 2), s.fpr);
	CHECK(s.fpr < 0.002, "rate after removing half: %g", s.fpr);
	CHECK(b.f.items == n / 2, "items %llu", (unsigned long long) b.f.items);
	CHECK(fabs(s.estimated_items - (double) (n / 2)) <= 0.03 * (double) (n / 2),
		  "estimated %.0f items after removing half", s.estimated_items);
	check_build_empty(&p, &half);
	for (i = 1; i < n; i += 2)
		bf_add(&half.f, check_key(i, 0, 9));
	CHECK(s.saturated == 0 && memcmp(b.f.payload, half.f.payload,
									 (size_t) p.payload_bytes) == 0,
		  "the counters differ from those of the kept half alone "
		  "(%llu saturated)", (unsigned long long) s.saturated);
	/* and removing the rest leaves the empty filter */
	for (i = 1; i < n; i += 2)
		refused += bf_remove(&b.f, check_key(i, 0, 9)) != BF_OK;
	bf_fill(&b.f, &s, NULL, NULL);
	CHECK(refused == 0 && s.bits_set == 0 && b.f.items == 0,
		  "after removing everything: %llu refused, %llu counters set",
		  (unsigned long long) refused, (unsigned long long) s.bits_set);
	free(b.buf);
	free(half.buf);
	check_group_end();
}

/* Removing what is certainly absent is refused and changes no byte */
static void
test_remove_absent(void)
{
	bf_params	p;
	built		b;
	unsigned char *before;
	uint64_t	i,
				refused = 0,
				accepted = 0,
				bad = 0;

	check_group("removing an absent element changes nothing");
	bf_plan(BF_COUNTING, 2000, 0.05, 0, &p);
	check_build(&p, 0, 2000, &b);
	before = check_dup(b.buf, b.len, b.len);
	for (i = 0; i < 20000; i++)
	{
		bf_hash		h = check_key(i, 1, 0);
		bool		present = bf_contains(&b.f, h);
		bf_status	st = bf_remove(&b.f, h);

		if (present)
		{
			/*
			 * A false positive: remove cannot tell (unless a repeated
			 * position needs more than its counter holds); put it back.
			 */
			if (st == BF_OK)
			{
				accepted++;
				bf_add(&b.f, h);
			}
			else
				bad += st != BF_E_NOT_FOUND;
		}
		else
		{
			bad += st != BF_E_NOT_FOUND;
			refused++;
		}
		bad += memcmp(before, b.buf, b.len) != 0;
	}
	printf("     %llu strangers refused, %llu false positives removed and re-added\n",
		   (unsigned long long) refused, (unsigned long long) accepted);
	CHECK(bad == 0, "%llu removes of strangers went wrong",
		  (unsigned long long) bad);
	CHECK(refused > 10000 && accepted > 0, "%llu refused, %llu accepted",
		  (unsigned long long) refused, (unsigned long long) accepted);
	free(before);
	free(b.buf);

	/* the empty filter refuses everything */
	plan_bits(BF_COUNTING, 33, 4, 0, &p);
	check_build_empty(&p, &b);
	CHECK(bf_remove(&b.f, check_key(1, 0, 0)) == BF_E_NOT_FOUND &&
		  b.f.items == 0, "remove from the empty filter");
	free(b.buf);

	/* other variants cannot remove at all */
	plan_bits(BF_CLASSIC, 64, 3, 0, &p);
	check_build(&p, 0, 3, &b);
	before = check_dup(b.buf, b.len, b.len);
	CHECK(bf_remove(&b.f, check_key(1, 0, 0)) == BF_E_UNSUPPORTED &&
		  memcmp(before, b.buf, b.len) == 0, "classic removed");
	free(before);
	free(b.buf);
	check_group_end();
}

/*
 * Saturated counters are never decremented: an element added 20 times and
 * removed 20 times is still present; one added 3 times and removed 3 times
 * is gone, unless others hold its counters.
 */
static void
test_saturation(void)
{
	bf_params	p;
	built		b;
	bf_hash		x,
				y;
	bf_fill_stats s;
	int			i;
	bf_status	st;
	unsigned	distinct;
	uint64_t	pos[64];

	check_group("saturation: 15 stays 15, and no false negative");
	plan_bits(BF_COUNTING, 1000, 5, 0, &p);
	check_build_empty(&p, &b);
	x = check_key(1, 0, 0);
	y = check_key(2, 0, 0);
	ref_positions(x, 1000, 5, pos);
	for (distinct = 0, i = 0; i < 5; i++)
	{
		int			j,
					seen = 0;

		for (j = 0; j < i; j++)
			seen |= pos[j] == pos[i];
		distinct += !seen;
	}
	for (i = 0; i < 20; i++)
		bf_add(&b.f, x);
	bf_fill(&b.f, &s, NULL, NULL);
	CHECK(s.saturated == distinct && s.bits_set == distinct,
		  "after 20 adds: %llu saturated, %llu non-zero, want %u",
		  (unsigned long long) s.saturated, (unsigned long long) s.bits_set,
		  distinct);
	for (i = 0; i < 20; i++)
	{
		st = bf_remove(&b.f, x);
		CHECK(st == BF_OK, "remove %d: %s", i + 1, bf_status_message(st));
	}
	CHECK(bf_contains(&b.f, x), "x lost after 20 adds and 20 removes");
	bf_fill(&b.f, &s, NULL, NULL);
	CHECK(s.saturated == distinct && b.f.items == 0,
		  "after 20 removes: %llu saturated, items %llu",
		  (unsigned long long) s.saturated, (unsigned long long) b.f.items);
	for (i = 0; i < 5; i++)
		CHECK(nibble(b.f.payload, pos[i]) == 15, "counter %llu is %u",
			  (unsigned long long) pos[i], nibble(b.f.payload, pos[i]));
	/* more removes still succeed: the saturated counters always could */
	CHECK(bf_remove(&b.f, x) == BF_OK && bf_contains(&b.f, x),
		  "a 21st remove");

	/* 3 and 3, alone: every counter back to zero, then refused */
	for (i = 0; i < 3; i++)
		bf_add(&b.f, y);
	for (i = 0; i < 3; i++)
		CHECK(bf_remove(&b.f, y) == BF_OK, "remove y %d", i + 1);
	{
		uint64_t	ypos[64];
		int			shared = 0,
					j,
					l;

		ref_positions(y, 1000, 5, ypos);
		for (j = 0; j < 5; j++)
			for (l = 0; l < 5; l++)
				shared |= ypos[j] == pos[l];
		for (j = 0; j < 5; j++)
		{
			int			of_x = 0;

			for (l = 0; l < 5; l++)
				of_x |= ypos[j] == pos[l];
			CHECK(nibble(b.f.payload, ypos[j]) == (of_x ? 15u : 0u),
				  "y's counter %llu is %u", (unsigned long long) ypos[j],
				  nibble(b.f.payload, ypos[j]));
		}
		CHECK(bf_contains(&b.f, y) == false || shared,
			  "y present after 3 adds and 3 removes");
	}
	free(b.buf);

	/* the same on a loaded filter: gone unless others hold its counters */
	{
		built		l;
		ref			r;
		uint64_t	k,
					gone = 0,
					kept = 0,
					bad = 0;

		plan_bits(BF_COUNTING, 20000, 4, 5, &p);
		check_build(&p, 0, 3000, &l);
		r.m = 20000;
		r.k = 4;
		r.c = check_malloc(20000);
		memset(r.c, 0, 20000);
		for (k = 0; k < 3000; k++)
			ref_add(&r, check_key(k, 0, 5));
		for (k = 0; k < 500; k++)
		{
			bf_hash		z = check_key(k, 1, 5);

			for (i = 0; i < 3; i++)
				bf_add(&l.f, z);
			for (i = 0; i < 3; i++)
				bad += bf_remove(&l.f, z) != BF_OK;
			bad += ref_diff(&r, &l.f) != 0;
			if (bf_contains(&l.f, z))
				kept += ref_contains(&r, z);	/* only through others */
			else
				gone++;
		}
		CHECK(bad == 0 && gone + kept == 500,
			  "3 adds and 3 removes: %llu wrong, %llu gone, %llu kept by others",
			  (unsigned long long) bad, (unsigned long long) gone,
			  (unsigned long long) kept);
		free(r.c);
		free(l.buf);
	}

	/* one element added 15 times over in a 1-counter filter */
	plan_bits(BF_COUNTING, 1, 3, 0, &p);
	check_build_empty(&p, &b);
	for (i = 0; i < 4; i++)
		bf_add(&b.f, x);		/* 12 increments */
	CHECK(b.f.payload[0] == 12, "one counter: %u", b.f.payload[0]);
	CHECK(bf_remove(&b.f, x) == BF_OK && b.f.payload[0] == 9,
		  "one counter after a remove: %u", b.f.payload[0]);
	for (i = 0; i < 3; i++)
		bf_remove(&b.f, x);
	CHECK(b.f.payload[0] == 0 && bf_remove(&b.f, x) == BF_E_NOT_FOUND,
		  "one counter drained: %u", b.f.payload[0]);
	b.f.payload[0] = 2;			/* two left, three needed */
	CHECK(bf_remove(&b.f, x) == BF_E_NOT_FOUND && b.f.payload[0] == 2,
		  "partial remove: %u", b.f.payload[0]);
	for (i = 0; i < 6; i++)
		bf_add(&b.f, x);
	CHECK(b.f.payload[0] == 15, "one counter saturated: %u", b.f.payload[0]);
	free(b.buf);
	check_group_end();
}

/* ---------------------------------------------------------------------- */

/*
 * The word-at-a-time union and intersection against one counter at a time,
 * over random payloads (every pair of counter values occurs).
 */
static void
test_merge_words(void)
{
	bf_params	p;
	built		a,
				b;
	uint64_t	rng = 7,
				i,
				bad_add = 0,
				bad_min = 0;
	unsigned char *orig;
	int			round;

	check_group("counter-wise saturating sum and minimum");
	plan_bits(BF_COUNTING, 4096, 3, 0, &p);
	check_build_empty(&p, &a);
	check_build_empty(&p, &b);
	orig = check_malloc(a.len);
	for (round = 0; round < 20; round++)
	{
		for (i = 0; i < 2048; i++)
		{
			uint64_t	r = check_random(&rng);

			a.f.payload[i] = (unsigned char) r;
			b.f.payload[i] = (unsigned char) (r >> 8);
		}
		if (round == 0)
		{
			/* every pair of values, in every place of a word */
			unsigned	j,
						t;

			for (t = 0; t < 16; t++)
				for (j = 0; j < 256; j++)
				{
					uint64_t	c = t * 256 + ((j + t) & 255);

					put_nibble(a.f.payload, c, j & 15);
					put_nibble(b.f.payload, c, j >> 4);
				}
		}
		memcpy(orig, a.buf, a.len);
		bf_union(&a.f, &b.f, NULL, NULL);
		for (i = 0; i < 4096; i++)
		{
			unsigned	s = nibble(orig + 64, i) + nibble(b.f.payload, i);

			bad_add += nibble(a.f.payload, i) != (s > 15 ? 15 : s);
		}
		memcpy(a.buf, orig, a.len);
		bf_intersect(&a.f, &b.f, NULL, NULL);
		for (i = 0; i < 4096; i++)
		{
			unsigned	x = nibble(orig + 64, i),
						y = nibble(b.f.payload, i);

			bad_min += nibble(a.f.payload, i) != (x < y ? x : y);
		}
	}
	CHECK(bad_add == 0, "%llu counters summed wrongly",
		  (unsigned long long) bad_add);
	CHECK(bad_min == 0, "%llu counters minimised wrongly",
		  (unsigned long long) bad_min);
	free(orig);
	free(a.buf);
	free(b.buf);
	check_group_end();
}

/*
 * Union is adding both sets (byte for byte, saturation included: the
 * saturating sum of saturated counts is the saturated sum); intersection
 * keeps every common element and bounds the multiset intersection.
 */
static void
test_union_intersect(void)
{
	bf_params	p;
	built		a,
				b,
				all,
				inter,
				e;
	uint64_t	i,
				missing = 0;
	bf_hash		d = check_key(3, 1, 3);
	bf_fill_stats s;
	unsigned char *before;
	bf_status	st;

	check_group("union adds counters; intersection keeps the common part");
	bf_plan(BF_COUNTING, 10000, 0.01, 3, &p);
	check_build(&p, 0, 6000, &a);
	check_build(&p, 4000, 10000, &b);
	check_build(&p, 0, 6000, &all);
	for (i = 4000; i < 10000; i++)
		bf_add(&all.f, check_key(i, 0, 3));
	check_build(&p, 0, 6000, &inter);

	/* a duplicated element on both sides: 10 + 10 adds saturate */
	for (i = 0; i < 10; i++)
	{
		bf_add(&a.f, d);
		bf_add(&b.f, d);
		bf_add(&all.f, d);
		bf_add(&all.f, d);
	}
	st = bf_union(&a.f, &b.f, NULL, NULL);
	CHECK(st == BF_OK, "union: %s", bf_status_message(st));
	CHECK(memcmp(a.buf, all.buf, a.len) == 0,
		  "A | B differs from the filter that took both sets");
	CHECK(bf_equal(&a.f, &all.f) && a.f.items == 12020,
		  "union equal / items %llu", (unsigned long long) a.f.items);
	bf_fill(&a.f, &s, NULL, NULL);
	CHECK(s.saturated > 0, "the duplicated element did not saturate");
	st = bf_open(a.buf, a.len, &a.f);
	CHECK(st == BF_OK, "the union does not reopen: %s", bf_status_message(st));

	/* A & B: every common element stays; the rest mostly goes */
	st = bf_intersect(&inter.f, &b.f, NULL, NULL);
	CHECK(st == BF_OK, "intersect: %s", bf_status_message(st));
	for (i = 4000; i < 6000; i++)
		missing += !bf_contains(&inter.f, check_key(i, 0, 3));
	CHECK(missing == 0, "intersection lost %llu common elements",
		  (unsigned long long) missing);
	missing = 0;
	for (i = 0; i < 4000; i++)
		missing += !bf_contains(&inter.f, check_key(i, 0, 3));
	CHECK(missing > 3500, "the intersection keeps %llu of 4000 elements of A alone",
		  (unsigned long long) 4000 - missing);
	/* and it bounds the counters of the common part from above */
	{
		built		common;
		uint64_t	below = 0;

		check_build(&p, 4000, 6000, &common);
		for (i = 0; i < common.f.bits; i++)
			below += nibble(inter.f.payload, i) < nibble(common.f.payload, i);
		CHECK(below == 0, "%llu counters below those of the common part",
			  (unsigned long long) below);
		/* so every common element can be removed from it */
		missing = 0;
		for (i = 4000; i < 6000; i++)
			missing += bf_remove(&inter.f, check_key(i, 0, 3)) != BF_OK;
		CHECK(missing == 0, "%llu common elements not removable",
			  (unsigned long long) missing);
		free(common.buf);
	}
	st = bf_open(inter.buf, inter.len, &inter.f);
	CHECK(st == BF_OK, "the intersection does not reopen: %s",
		  bf_status_message(st));

	/* multiset: 3 copies & 2 copies = 2 copies */
	{
		built		x3,
					x2;
		bf_params	q;
		bf_hash		x = check_key(5, 0, 0);

		plan_bits(BF_COUNTING, 500, 4, 0, &q);
		check_build_empty(&q, &x3);
		check_build_empty(&q, &x2);
		for (i = 0; i < 3; i++)
			bf_add(&x3.f, x);
		for (i = 0; i < 2; i++)
			bf_add(&x2.f, x);
		bf_intersect(&x3.f, &x2.f, NULL, NULL);
		CHECK(memcmp(x3.f.payload, x2.f.payload, (size_t) q.payload_bytes) == 0,
			  "3 x & 2 x is not 2 x");
		CHECK(bf_remove(&x3.f, x) == BF_OK && bf_remove(&x3.f, x) == BF_OK &&
			  bf_remove(&x3.f, x) == BF_E_NOT_FOUND, "2 x removes");
		free(x3.buf);
		free(x2.buf);
	}

	/* identities */
	before = check_dup(all.buf, all.len, all.len);
	bf_intersect(&all.f, &all.f, NULL, NULL);
	CHECK(memcmp(before + 64, all.f.payload, all.len - 64) == 0,
		  "A & A changed the counters");
	check_build_empty(&p, &e);
	bf_union(&all.f, &e.f, NULL, NULL);
	CHECK(memcmp(before + 64, all.f.payload, all.len - 64) == 0,
		  "A | empty changed the counters");
	bf_intersect(&e.f, &all.f, NULL, NULL);
	bf_fill(&e.f, &s, NULL, NULL);
	CHECK(s.bits_set == 0, "empty & A has %llu counters set",
		  (unsigned long long) s.bits_set);
	free(e.buf);

	/* incompatible: refused and untouched */
	{
		bf_params	q;
		built		o;

		bf_plan(BF_CLASSIC, 10000, 0.01, 3, &q);
		check_build(&q, 0, 10, &o);
		memcpy(before, all.buf, all.len);
		CHECK(bf_union(&all.f, &o.f, NULL, NULL) == BF_E_INCOMPATIBLE &&
			  bf_intersect(&all.f, &o.f, NULL, NULL) == BF_E_INCOMPATIBLE &&
			  !bf_compatible(&all.f, &o.f) && !bf_equal(&all.f, &o.f) &&
			  memcmp(before, all.buf, all.len) == 0,
			  "a classic filter of the same shape combined");
		free(o.buf);
		plan_bits(BF_COUNTING, all.f.bits + 1, all.f.hashes, 3, &q);
		check_build(&q, 0, 10, &o);
		CHECK(bf_union(&all.f, &o.f, NULL, NULL) == BF_E_INCOMPATIBLE &&
			  memcmp(before, all.buf, all.len) == 0,
			  "another size combined");
		free(o.buf);
	}
	free(before);
	free(a.buf);
	free(b.buf);
	free(all.buf);
	free(inter.buf);
	check_group_end();
}

static void
test_fill(void)
{
	static const uint64_t ns[] = {0, 1, 100, 10000, 200000};
	size_t		i;

	check_group("fill: non-zero and saturated counters, rate now, estimate");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
	{
		bf_params	p;
		built		b;
		bf_fill_stats s;
		uint64_t	j,
					nonzero = 0,
					sat = 0;
		double		rate;

		bf_plan(BF_COUNTING, 200000, 0.01, 0, &p);
		check_build(&p, 0, ns[i], &b);
		/* every key twice, and key 0 forty times: distinct items count */
		for (j = 0; j < ns[i]; j++)
			bf_add(&b.f, check_key(j, 0, 0));
		for (j = 0; ns[i] && j < 38; j++)
			bf_add(&b.f, check_key(0, 0, 0));
		for (j = 0; j < b.f.bits; j++)
		{
			nonzero += nibble(b.f.payload, j) != 0;
			sat += nibble(b.f.payload, j) == 15;
		}
		rate = pow((double) nonzero / (double) b.f.bits, b.f.hashes);
		bf_fill(&b.f, &s, NULL, NULL);
		CHECK(s.bits_set == nonzero && s.saturated == sat && s.stages == 1,
			  "n=%llu: non-zero %llu (want %llu), saturated %llu (want %llu)",
			  (unsigned long long) ns[i], (unsigned long long) s.bits_set,
			  (unsigned long long) nonzero, (unsigned long long) s.saturated,
			  (unsigned long long) sat);
		CHECK(fabs(s.fill_ratio - (double) nonzero / (double) b.f.bits) < 1e-15 &&
			  fabs(s.fpr - rate) <= 1e-12 * rate,
			  "n=%llu: fill %g, rate %g (want %g)", (unsigned long long) ns[i],
			  s.fill_ratio, s.fpr, rate);
		if (ns[i] == 0)
			CHECK(s.estimated_items == 0.0 && !signbit(s.estimated_items) &&
				  s.fpr == 0.0, "empty: estimate %g, rate %g",
				  s.estimated_items, s.fpr);
		else
		{
			double		tol = ns[i] >= 10000 ? 0.03 : 0.3;

			CHECK(sat >= 1, "n=%llu: key 0 did not saturate",
				  (unsigned long long) ns[i]);
			CHECK(fabs(s.estimated_items - (double) ns[i]) <= tol * (double) ns[i] + 1,
				  "n=%llu: estimated %.1f", (unsigned long long) ns[i],
				  s.estimated_items);
		}
		free(b.buf);
	}
	/* every counter saturated: infinitely many items */
	{
		bf_params	p;
		built		b;
		bf_fill_stats s;

		plan_bits(BF_COUNTING, 1000, 2, 0, &p);
		check_build_empty(&p, &b);
		memset(b.f.payload, 0xFF, 500);
		CHECK(bf_open(b.buf, b.len, &b.f) == BF_OK, "full filter invalid");
		bf_fill(&b.f, &s, NULL, NULL);
		CHECK(s.bits_set == 1000 && s.saturated == 1000 && s.fill_ratio == 1.0 &&
			  s.fpr == 1.0 && isinf(s.estimated_items) && s.estimated_items > 0,
			  "full: %llu set, %llu saturated, rate %g, estimate %g",
			  (unsigned long long) s.bits_set, (unsigned long long) s.saturated,
			  s.fpr, s.estimated_items);
		free(b.buf);
	}
	check_group_end();
}

/* Serialised bytes, copied and reopened, answer alike */
static void
test_round_trip(void)
{
	bf_params	p;
	built		a;
	unsigned char *copy;
	bf_filter	g;
	uint64_t	i,
				differ = 0;
	bf_status	st;

	check_group("serialise, copy, reopen: same answers");
	bf_plan(BF_COUNTING, 5000, 0.01, UINT64_MAX, &p);
	check_build(&p, 0, 5000, &a);
	for (i = 0; i < 1000; i += 3)
		bf_remove(&a.f, check_key(i, 0, UINT64_MAX));
	copy = check_dup(a.buf, a.len, a.len);
	st = bf_open(copy, a.len, &g);
	CHECK(st == BF_OK, "reopen: %s", bf_status_message(st));
	CHECK(g.variant == BF_COUNTING && g.bits == a.f.bits &&
		  g.hashes == a.f.hashes && g.seed == UINT64_MAX &&
		  g.items == a.f.items && g.expected_items == 5000 &&
		  g.target_fpr == 0.01 && bf_equal(&a.f, &g),
		  "reopened fields differ");
	for (i = 0; i < 20000; i++)
	{
		bf_hash		h = check_key(i, i % 2, UINT64_MAX);

		differ += bf_contains(&a.f, h) != bf_contains(&g, h);
	}
	CHECK(differ == 0, "%llu answers differ", (unsigned long long) differ);
	/* the same operations give the same bytes */
	{
		built		b;

		check_build(&p, 0, 5000, &b);
		for (i = 0; i < 1000; i += 3)
			bf_remove(&b.f, check_key(i, 0, UINT64_MAX));
		CHECK(memcmp(a.buf, b.buf, a.len) == 0, "not deterministic");
		free(b.buf);
	}
	free(copy);
	free(a.buf);
	check_group_end();
}

/* m = 1, 2, 3 with k = 1, 3, 64: everything works and stays valid */
static void
test_edge_sizes(void)
{
	static const uint64_t ms[] = {1, 2, 3, 15, 16, 17};
	static const uint32_t ks[] = {1, 3, 64};
	size_t		i,
				j;

	check_group("edge sizes: 1 to 17 counters, 1 to 64 hashes");
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
		for (j = 0; j < sizeof(ks) / sizeof(ks[0]); j++)
		{
			bf_params	p;
			built		b;
			uint64_t	x,
						missing = 0,
						refused = 0;
			bf_fill_stats s;

			plan_bits(BF_COUNTING, ms[i], ks[j], 0, &p);
			check_build(&p, 0, 3, &b);
			for (x = 0; x < 3; x++)
				missing += !bf_contains(&b.f, check_key(x, 0, 0));
			CHECK(bf_open(b.buf, b.len, &b.f) == BF_OK && missing == 0,
				  "m=%llu k=%u: %llu missing", (unsigned long long) ms[i],
				  ks[j], (unsigned long long) missing);
			for (x = 0; x < 3; x++)
				refused += bf_remove(&b.f, check_key(x, 0, 0)) != BF_OK;
			bf_fill(&b.f, &s, NULL, NULL);
			/* with k = 64 the three share saturated counters */
			CHECK(refused == 0 && (s.bits_set == s.saturated) &&
				  bf_open(b.buf, b.len, &b.f) == BF_OK,
				  "m=%llu k=%u: %llu refused, %llu counters left, %llu saturated",
				  (unsigned long long) ms[i], ks[j],
				  (unsigned long long) refused,
				  (unsigned long long) s.bits_set,
				  (unsigned long long) s.saturated);
			free(b.buf);
		}
	check_group_end();
}

/* ---------------------------------------------------------------------- */

/* Attack victims: sized, odd, and payload-of-one-word counting filters */
typedef struct victim
{
	const char *name;
	unsigned char *buf;
	size_t		len;
} victim;

static int
make_victims(victim *out)
{
	static const char *names[] = {"n=500 p=1%", "17 counters k=3",
	"10 counters k=2"};
	bf_params	p[3];
	int			j;

	bf_plan(BF_COUNTING, 500, 0.01, 12345, &p[0]);
	plan_bits(BF_COUNTING, 17, 3, 0, &p[1]);
	plan_bits(BF_COUNTING, 10, 2, 0, &p[2]);
	for (j = 0; j < 3; j++)
	{
		built		b;
		uint64_t	i;

		check_build(&p[j], 0, 20, &b);
		for (i = 0; i < 5; i++)
			bf_add(&b.f, check_key(0, 0, b.f.seed));
		out[j].name = names[j];
		out[j].buf = b.buf;
		out[j].len = b.len;
	}
	return 3;
}

/* Uses a filter that bf_open accepted: ASan and UBSan watch */
static uint64_t
exercise(bf_filter *f)
{
	uint64_t	k,
				missing = 0;
	bf_fill_stats s;

	for (k = 0; k < 32; k++)
		(void) bf_contains(f, check_key(k, 1, f->seed));
	for (k = 100; k < 132; k++)
		bf_add(f, check_key(k, 0, f->seed));
	for (k = 100; k < 132; k++)
		missing += !bf_contains(f, check_key(k, 0, f->seed));
	for (k = 100; k < 116; k++)
		missing += bf_remove(f, check_key(k, 0, f->seed)) != BF_OK;
	for (k = 116; k < 132; k++)
		missing += !bf_contains(f, check_key(k, 0, f->seed));
	/* strangers last: removing a false positive may take others with it */
	for (k = 0; k < 16; k++)
		(void) bf_remove(f, check_key(k, 1, f->seed));
	bf_fill(f, &s, NULL, NULL);
	(void) bf_filter_capacity(f);
	(void) bf_filter_model_fpr(f, (double) f->items);
	return missing;
}

static void
test_hostile(void)
{
	static const unsigned char values[] = {0, 1, 2, 3, 127, 128, 255};
	victim		vs[3];
	int			nv = make_victims(vs),
				i;
	unsigned long tried = 0,
				accepted = 0,
				disagree = 0,
				wrong_trunc = 0;
	long		iters = check_quick() ? 5000 : 50000,
				it;
	uint64_t	rng = 99;

	check_group("hostile bytes: truncation, every header byte, fields, padding, random damage");
	for (i = 0; i < nv; i++)
	{
		size_t		len;
		int			off;
		size_t		j;
		bf_filter	f;
		bf_status	st;
		unsigned char *b;
		unsigned long long bits = check_le64(vs[i].buf + OFF_BITS),
					payload = check_le64(vs[i].buf + OFF_PAYLOAD);
		static const struct
		{
			int			off;
			int			size;
			unsigned long long val;
			bf_status	want;
		}			fields[] = {
			{OFF_VARIANT_WORD, 4, 1, BF_E_FLAGS},
			{OFF_VARIANT_WORD, 4, 0x80000000u, BF_E_FLAGS},
			{OFF_HASHES, 4, 0, BF_E_HASHES},
			{OFF_HASHES, 4, 65, BF_E_HASHES},
			{OFF_BITS, 8, 0, BF_E_BITS},
			{OFF_BITS, 8, MAX_BITS + 1, BF_E_BITS},
			{OFF_BITS, 8, UINT64_MAX, BF_E_BITS},
		};

		/* every truncation, and trailing bytes */
		for (len = 0; len < vs[i].len; len++)
		{
			b = check_dup(vs[i].buf, len, len);
			st = bf_open(b, len, &f);
			wrong_trunc += st != (len < BF_HEADER_SIZE ? BF_E_SHORT : BF_E_TRUNCATED);
			free(b);
		}
		b = check_dup(vs[i].buf, vs[i].len, vs[i].len + 8);
		CHECK(bf_open(b, vs[i].len + 8, &f) == BF_E_TRAILING,
			  "%s: trailing bytes", vs[i].name);
		free(b);

		/* every header byte set to a few values */
		for (off = 0; off < BF_HEADER_SIZE; off++)
			for (j = 0; j < sizeof(values); j++)
			{
				int			ref;

				b = check_dup(vs[i].buf, vs[i].len, vs[i].len);
				b[off] = values[j];
				ref = ref_valid(b, vs[i].len);
				st = bf_open(b, vs[i].len, &f);
				tried++;
				if ((b[OFF_VARIANT] == BF_CLASSIC || b[OFF_VARIANT] == BF_COUNTING ||
					 st != BF_OK) && (st == BF_OK) != ref)
				{
					if (disagree++ < 5)
						CHECK(0, "%s: byte %d = %u: bf_open says \"%s\", reference %s",
							  vs[i].name, off, values[j], bf_status_message(st),
							  ref ? "accepts" : "rejects");
				}
				if (st == BF_OK)
				{
					uint64_t	missing;

					accepted++;
					missing = exercise(&f);
					CHECK(missing == 0, "%s: byte %d = %u: %llu false negatives",
						  vs[i].name, off, values[j],
						  (unsigned long long) missing);
					CHECK(bf_open(b, vs[i].len, &f) == BF_OK,
						  "%s: byte %d = %u: invalid after use", vs[i].name,
						  off, values[j]);
				}
				free(b);
			}

		/* each field's own status */
		for (j = 0; j < sizeof(fields) / sizeof(fields[0]); j++)
		{
			b = check_dup(vs[i].buf, vs[i].len, vs[i].len);
			if (fields[j].size == 4)
				check_put_le32(b + fields[j].off, (unsigned long) fields[j].val);
			else
				check_put_le64(b + fields[j].off, fields[j].val);
			st = bf_open(b, vs[i].len, &f);
			CHECK(st == fields[j].want, "%s: field at %d = %llu: \"%s\"",
				  vs[i].name, fields[j].off, fields[j].val,
				  bf_status_message(st));
			free(b);
		}
		b = check_dup(vs[i].buf, vs[i].len, vs[i].len);
		check_put_le64(b + OFF_PAYLOAD, payload + 8);
		st = bf_open(b, vs[i].len, &f);
		CHECK(st == BF_E_PAYLOAD, "%s: payload + 8: %s", vs[i].name,
			  bf_status_message(st));
		check_put_le64(b + OFF_PAYLOAD, payload * 4);	/* the classic size of 4m */
		st = bf_open(b, vs[i].len, &f);
		CHECK(st == BF_E_PAYLOAD, "%s: payload x 4: %s", vs[i].name,
			  bf_status_message(st));
		check_put_le64(b + OFF_PAYLOAD, payload);
		check_put_le64(b + OFF_BITS, bits + 16);
		st = bf_open(b, vs[i].len, &f);
		CHECK(st == BF_E_PAYLOAD, "%s: 16 more counters: %s", vs[i].name,
			  bf_status_message(st));
		/* a header declaring more than 1 GB */
		check_put_le64(b + OFF_BITS, UINT64_C(4000000000));
		check_put_le64(b + OFF_PAYLOAD, UINT64_C(2000000000));
		st = bf_open(b, vs[i].len, &f);
		CHECK(st == BF_E_TOO_LARGE, "%s: 2 GB payload: %s", vs[i].name,
			  bf_status_message(st));
		free(b);

		/* padding counters: each one set is refused; counters below m not */
		for (j = 0; j < payload * 2; j++)
		{
			unsigned	shift = (unsigned) (j % 2) * 4;

			b = check_dup(vs[i].buf, vs[i].len, vs[i].len);
			b[64 + j / 2] = (unsigned char) ((b[64 + j / 2] & ~(0x0Fu << shift)) |
											 (0x0Au << shift));
			st = bf_open(b, vs[i].len, &f);
			CHECK(st == (j < bits ? BF_OK : BF_E_PADDING),
				  "%s: counter %lu set to 10: %s", vs[i].name,
				  (unsigned long) j, bf_status_message(st));
			free(b);
		}
	}
	CHECK(wrong_trunc == 0, "%lu truncations not SHORT or TRUNCATED",
		  wrong_trunc);

	/* random damage anywhere, and lengths off by a little */
	for (it = 0; it < iters; it++)
	{
		const victim *v = &vs[it % nv];
		size_t		len;
		unsigned char *b = check_damage(v->buf, v->len, &rng, &len);
		bf_filter	f;
		bf_status	st;
		int			ref;

		ref = ref_valid(b, len);
		st = bf_open(b, len, &f);
		if ((b[OFF_VARIANT] == BF_CLASSIC || b[OFF_VARIANT] == BF_COUNTING ||
			 st != BF_OK) && (st == BF_OK) != ref)
		{
			if (disagree++ < 5)
				CHECK(0, "%s mutation %ld: bf_open says \"%s\", reference %s",
					  v->name, it, bf_status_message(st),
					  ref ? "accepts" : "rejects");
		}
		if (st == BF_OK)
		{
			accepted++;
			(void) exercise(&f);
		}
		free(b);
	}
	CHECK(disagree == 0, "%lu disagreements with the reference validator",
		  disagree);
	printf("     %lu mutated headers and %ld random mutations tried, %lu accepted\n",
		   tried, iters, accepted);
	for (i = 0; i < nv; i++)
		free(vs[i].buf);
	check_group_end();
}

static void
test_yield(void)
{
	bf_params	p;
	built		a,
				b;

	check_group("long loops call the yield hook");
	/* 8 M counters: 4 MB of payload, about one call per megabyte */
	plan_bits(BF_COUNTING, UINT64_C(8) << 20, 3, 0, &p);
	check_build(&p, 0, 1000, &a);
	check_build(&p, 1000, 2000, &b);
	check_yields("counting", &a, &b);
	free(a.buf);
	free(b.buf);
	check_group_end();
}

/*
 * The worked example of the documentation (STORAGE.md section 11): 20
 * counters, 3 hashes, seed 0, 'hello' twice and the integer 42, then one
 * 'hello' removed, byte for byte: as a filter of hash scheme 2 (42 hashed by
 * bf_hash_integer), the one documented, and as the filter of scheme 1 that
 * releases 1.0 and 1.1 built (42 by XXH3 of its 8 bytes: bf_hash_int64)
 */
static void
storage_example(unsigned scheme, bf_hash h42, const char *const *want)
{
	bf_params	p;
	built		b;
	char		hex[2 * 80 + 1];
	int			step;
	size_t		i;

	plan_bits(BF_COUNTING, 20, 3, 0, &p);
	p.scheme = (uint8_t) scheme;
	check_build_empty(&p, &b);
	bf_add(&b.f, bf_hash_bytes("hello", 5, 0));
	bf_add(&b.f, bf_hash_bytes("hello", 5, 0));
	bf_add(&b.f, h42);
	for (step = 0; step < 2; step++)
	{
		CHECK(b.len == 80, "length %lu", (unsigned long) b.len);
		for (i = 0; i < b.len && i < 80; i++)
			snprintf(hex + 2 * i, 3, "%02x", b.buf[i]);
		CHECK(strcmp(hex, want[step]) == 0,
			  "scheme %u, step %d:\n       got %s\n      want %s",
			  scheme, step, hex, want[step]);
		bf_remove(&b.f, bf_hash_bytes("hello", 5, 0));
	}
	free(b.buf);
}

static void
test_storage_example(void)
{
	static const char *const want[] = {
		"424c4d4601030200030000000000000000000000000000001400000000000000"
		"0300000000000000000000000000000000000000000000001000000000000000"
		"00000200200110201000000000000000",
		"424c4d4601030200030000000000000000000000000000001400000000000000"
		"0200000000000000000000000000000000000000000000001000000000000000"
		"00000100100110101000000000000000"
	};
	static const char *const want_scheme1[] = {
		"424c4d4601030100030000000000000000000000000000001400000000000000"
		"0300000000000000000000000000000000000000000000001000000000000000"
		"00000210200001200010000000000000",
		"424c4d4601030100030000000000000000000000000000001400000000000000"
		"0200000000000000000000000000000000000000000000001000000000000000"
		"00000110100001100010000000000000"
	};

	check_group("the documented example, byte for byte");
	storage_example(2, bf_hash_integer(42, 0), want);
	storage_example(1, bf_hash_int64(42, 0), want_scheme1);
	check_group_end();
}

int
main(void)
{
	test_plan();
	test_storage_example();
	test_against_reference();
	test_same_as_classic();
	test_fpr();
	test_remove_half();
	test_remove_absent();
	test_count();
	test_saturation();
	test_merge_words();
	test_union_intersect();
	test_fill();
	test_round_trip();
	test_edge_sizes();
	test_hostile();
	test_yield();
	return check_summary("test_counting");
}
