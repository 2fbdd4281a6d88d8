/*
 * make_corpus.c
 *		Writes the seed corpus of the fuzz targets: valid filters of every
 *		variant, built with the core itself.
 *
 * Usage: make_corpus DIR	(writes DIR/fuzz_open/, DIR/fuzz_ops/,
 * DIR/fuzz_plan/ and DIR/fuzz_sparse/, which must exist; scripts/fuzz.sh
 * empties them first).
 * Run by "make fuzz-corpus"; its output is checked in under
 * test/fuzz/corpus/.  Everything is deterministic (fixed seeds and keys), so
 * a run over an unchanged core writes the same bytes.
 *
 * The filters are small (a few kB at most) and cover each variant with and
 * without items, sized for a rate and built from a bit count, at the edges
 * their layouts have: classic padding bits, counting filters with an odd
 * counter count and with saturated counters, scalable chains grown to
 * several stages and united with appended stages, cuckoo filters of the
 * narrowest, widest and a padded fingerprint width, grown by distinct and by
 * repeated elements, united with chained stages, and with elements removed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf.h"
#include "fuzz_ops.h"

static const char *outdir;
static int	written;

typedef struct flt
{
	unsigned char *b;
	size_t		len;
	bf_filter	f;
} flt;

static void
die(const char *what, bf_status st)
{
	fprintf(stderr, "make_corpus: %s: %s\n", what, bf_status_message(st));
	exit(1);
}

static void
reopen(flt *x, const char *what)
{
	bf_status	st = bf_open(x->b, x->len, &x->f);

	if (st != BF_OK)
		die(what, st);
}

static void
from_params(flt *x, const bf_params *p)
{
	x->len = p->total_bytes;
	x->b = malloc(x->len);
	if (x->b == NULL)
		die("malloc", BF_E_TOO_LARGE);
	bf_init(p, x->b);
	reopen(x, "bf_open of a fresh filter");
}

/* A fresh filter of the parameters 'st' of 'what' gave */
static flt
fresh(bf_status st, const bf_params *params, const char *what)
{
	flt			x;

	if (st != BF_OK)
		die(what, st);
	from_params(&x, params);
	return x;
}

static flt
planned(bf_variant v, uint64_t n, double p, uint64_t seed)
{
	bf_params	params;
	bf_status	st = bf_plan(v, n, p, seed, &params);

	return fresh(st, &params, "bf_plan");
}

static flt
sized(bf_variant v, uint64_t bits, uint32_t k, uint64_t seed)
{
	bf_params	params;
	bf_status	st = bf_plan_bits(v, bits, k, seed, &params);

	return fresh(st, &params, "bf_plan_bits");
}

static flt
copy(const flt *src)
{
	flt			x;

	x.len = src->len;
	x.b = malloc(x.len);
	memcpy(x.b, src->b, x.len);
	reopen(&x, "bf_open of a copy");
	return x;
}

/* x's bytes replaced by the 'len' at b (the old ones freed), opened again */
static void
adopt(flt *x, unsigned char *b, size_t len, const char *what)
{
	free(x->b);
	x->b = b;
	x->len = len;
	reopen(x, what);
}

static void
grow(flt *x)
{
	uint64_t	need = bf_grow_bytes(&x->f);
	unsigned char *b;

	if (need == 0 || need > (1 << 20))
		die("bf_grow_bytes", BF_E_TOO_LARGE);
	b = malloc(need);
	bf_grow(&x->f, b);
	adopt(x, b, need, "bf_open of a grown filter");
}

static void
add_hash(flt *x, bf_hash h)
{
	bf_status	st;

	while ((st = bf_add(&x->f, h)) == BF_E_FULL)
		grow(x);
	if (st != BF_OK)
		die("bf_add", st);
}

static void
add_range(flt *x, int64_t first, int count)
{
	int			i;

	for (i = 0; i < count; i++)
		add_hash(x, bf_hash_int64(first + i, x->f.seed));
}

static void
remove_range(flt *x, int64_t first, int count)
{
	int			i;

	for (i = 0; i < count; i++)
	{
		bf_status	st = bf_remove(&x->f, bf_hash_int64(first + i, x->f.seed));

		if (st != BF_OK)
			die("bf_remove", st);
	}
}

/* dst |= src, in new bytes when the union needs more room */
static void
unite(flt *dst, const flt *src)
{
	uint64_t	need = bf_union_bytes(&dst->f, &src->f, NULL, NULL);
	unsigned char *b = NULL;
	bf_status	st;

	if (need == dst->len)
		st = bf_union(&dst->f, &src->f, NULL, NULL);
	else
	{
		b = malloc(need);
		st = bf_union_into(&dst->f, &src->f, b, NULL, NULL);
	}
	if (st != BF_OK)
		die("union", st);
	if (b != NULL)
		adopt(dst, b, need, "bf_open of a union");
	else
		reopen(dst, "bf_open of a union");
}

static void
write_file(const char *target, const char *name, const void *bytes, size_t len)
{
	char		path[1024];
	FILE	   *fp;

	snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
	fp = fopen(path, "wb");
	if (fp == NULL || fwrite(bytes, 1, len, fp) != len || fclose(fp) != 0)
	{
		perror(path);
		exit(1);
	}
	written++;
}

/* ----------------------------------------------------------------------
 * fuzz_sparse: each filter as the text output sees it (a first byte 1),
 * and its sparse form as the text input decodes it (a first byte 0)
 * ---------------------------------------------------------------------- */

static void
emit_sparse(const char *name, const flt *x)
{
	char		file[256];
	unsigned char *b = malloc(x->len + 1);
	bf_sparse	plan;

	if (b == NULL)
		die("malloc", BF_E_NO_MEMORY);
	b[0] = 1;
	memcpy(b + 1, x->b, x->len);
	snprintf(file, sizeof(file), "%s-filter", name);
	write_file("fuzz_sparse", file, b, x->len + 1);
	free(b);
	if (!bf_sparse_plan(x->b, x->len, UINT64_MAX, &plan, NULL, NULL))
		die("bf_sparse_plan", BF_E_ARGUMENT);
	b = malloc(plan.room + 1);
	if (b == NULL)
		die("malloc", BF_E_NO_MEMORY);
	b[0] = 0;
	snprintf(file, sizeof(file), "%s-sparse", name);
	write_file("fuzz_sparse", file, b,
			   1 + bf_sparse_encode(x->b, x->len, &plan, b + 1, NULL, NULL));
	free(b);
}

/* ----------------------------------------------------------------------
 * fuzz_open: the filters themselves
 * ---------------------------------------------------------------------- */

static void
emit(const char *name, flt *x)
{
	if (x->len > 8192)
	{
		fprintf(stderr, "make_corpus: %s is %zu bytes, more than a seed should be\n",
				name, x->len);
		exit(1);
	}
	write_file("fuzz_open", name, x->b, x->len);
	emit_sparse(name, x);
}

/* Emits and frees */
static void
emit_free(const char *name, flt x)
{
	emit(name, &x);
	free(x.b);
}

/*
 * The filters that are made in three steps: planned for n items at rate p
 * (n > 0) or sized from bits and k; keys [first, first + count) added; keys
 * [rm_first, rm_first + rm_count) removed
 */
typedef struct recipe
{
	const char *name;
	bf_variant	v;
	uint64_t	n;
	double		p;
	uint64_t	bits;
	uint32_t	k;
	uint64_t	seed;
	int64_t		first;
	int			count;
	int64_t		rm_first;
	int			rm_count;
} recipe;

static const recipe recipes[] = {
	/* name, variant, n, p, bits, k, seed, first, count, rm_first, rm_count */
	{"blocked-empty", BF_BLOCKED, 20, 0.01, 0, 0, 0, 0, 0, 0, 0},
	{"blocked-items", BF_BLOCKED, 20, 0.01, 0, 0, 0, 0, 15, 0, 0},
	{"blocked-3blocks-k1", BF_BLOCKED, 0, 0, 1536, 1, 42, 100, 40, 0, 0},
	{"blocked-1block-k64-full", BF_BLOCKED, 0, 0, 512, 64, UINT64_MAX, 0, 300, 0, 0},
	{"classic-empty", BF_CLASSIC, 20, 0.01, 0, 0, 0, 0, 0, 0, 0},
	{"classic-items", BF_CLASSIC, 20, 0.01, 0, 0, 0, 0, 15, 0, 0},
	{"classic-100bits-empty", BF_CLASSIC, 0, 0, 100, 3, 7, 0, 0, 0, 0},
	/* 28 padding bits in the last word */
	{"classic-100bits-padding", BF_CLASSIC, 0, 0, 100, 3, 7, 0, 12, 0, 0},
	{"classic-1bit", BF_CLASSIC, 0, 0, 1, 1, 0, 0, 1, 0, 0},
	{"classic-65bits-k64", BF_CLASSIC, 0, 0, 65, 64, 3, 0, 3, 0, 0},
	{"counting-empty", BF_COUNTING, 20, 0.01, 0, 0, 0, 0, 0, 0, 0},
	{"counting-items", BF_COUNTING, 20, 0.01, 0, 0, 0, 0, 15, 0, 0},
	/* odd: the last byte has a padding nibble */
	{"counting-37counters", BF_COUNTING, 0, 0, 37, 2, 5, 0, 6, 0, 0},
	{"counting-removed", BF_COUNTING, 30, 0.05, 0, 0, 11, 0, 25, 5, 10},
	{"scalable-empty", BF_SCALABLE, 4, 0.01, 0, 0, 0, 0, 0, 0, 0},
	{"scalable-items", BF_SCALABLE, 4, 0.01, 0, 0, 0, 0, 3, 0, 0},
	{"scalable-2stages", BF_SCALABLE, 4, 0.01, 0, 0, 0, 0, 10, 0, 0},
	{"scalable-grown", BF_SCALABLE, 2, 0.1, 0, 0, 1, 0, 40, 0, 0},
	{"scalable-n1-rate0.5", BF_SCALABLE, 1, 0.5, 0, 0, UINT64_MAX, 0, 20, 0, 0},
	{"cuckoo-empty", BF_CUCKOO, 20, 0.01, 0, 0, 0, 0, 0, 0, 0},
	{"cuckoo-items", BF_CUCKOO, 20, 0.01, 0, 0, 0, 0, 15, 0, 0},
	/* one bucket of 5-bit slots: padded */
	{"cuckoo-f5-padding", BF_CUCKOO, 0, 0, 20, 5, 3, 0, 2, 0, 0},
	{"cuckoo-f4", BF_CUCKOO, 0, 0, 64, 4, 0, 0, 10, 0, 0},
	{"cuckoo-f32", BF_CUCKOO, 0, 0, 256, 32, 8, 0, 5, 0, 0},
	/* distinct elements: grows */
	{"cuckoo-grown", BF_CUCKOO, 0, 0, 64, 8, 0, 0, 30, 0, 0},
	{"cuckoo-removed", BF_CUCKOO, 30, 0.05, 0, 0, 11, 0, 25, 5, 10},
};

static flt
made(const recipe *c)
{
	flt			x = c->n > 0 ? planned(c->v, c->n, c->p, c->seed) :
		sized(c->v, c->bits, c->k, c->seed);

	add_range(&x, c->first, c->count);
	remove_range(&x, c->rm_first, c->rm_count);
	return x;
}

/*
 * Empty filters with payload bytes set by hand: from byte 'at', 'ones' bytes
 * of 0xFF then the tail; a cuckoo filter's count of stored fingerprints
 * (payload byte 8) set to 'stored' when it is not zero
 */
typedef struct patch
{
	recipe		r;
	size_t		at;
	size_t		ones;
	const char *tail;
	size_t		tail_len;
	unsigned	stored;
} patch;

static const patch patches[] = {
	/* every bit set (2 blocks of 64 bytes) */
	{{"blocked-all-ones", BF_BLOCKED, 0, 0, 1024, 3, 0, 0, 0, 0, 0}, 0, 128, "", 0, 0},
	/* bits 0..99 set, the padding clear */
	{{"classic-all-ones", BF_CLASSIC, 0, 0, 100, 3, 7, 0, 0, 0, 0}, 0, 12, "\x0f", 1, 0},
	/* 37 counters at 15, the padding nibble clear */
	{{"counting-all-15", BF_COUNTING, 0, 0, 37, 2, 5, 0, 0, 0, 0}, 0, 18, "\x0f", 1, 0},
	/* every bit of the stage set */
	{{"scalable-saturated-stage", BF_SCALABLE, 4, 0.01, 0, 0, 0, 0, 0, 0, 0}, 64, 64, "", 0, 0},
	/* every slot taken */
	{{"cuckoo-all-slots", BF_CUCKOO, 0, 0, 64, 8, 0, 0, 0, 0, 0}, 16, 0,
	"\x01\x02\x03\x04\xfd\xfe\xff\x80", 8, 8},
	/* four 5-bit slots of 31, then padding */
	{{"cuckoo-f5-all-slots", BF_CUCKOO, 0, 0, 20, 5, 3, 0, 0, 0, 0}, 16, 0, "\xff\xff\x0f", 3, 4},
};

static void
open_corpus(void)
{
	flt			x,
				y;
	size_t		r;
	int			i;
	bf_status	st;

	for (r = 0; r < sizeof(recipes) / sizeof(recipes[0]); r++)
		emit_free(recipes[r].name, made(&recipes[r]));

	for (r = 0; r < sizeof(patches) / sizeof(patches[0]); r++)
	{
		const patch *c = &patches[r];
		unsigned char *payload;

		x = made(&c->r);
		payload = x.b + BF_HEADER_SIZE;
		memset(payload + c->at, 0xFF, c->ones);
		memcpy(payload + c->at + c->ones, c->tail, c->tail_len);
		if (c->stored > 0)
			payload[8] = (unsigned char) c->stored;
		reopen(&x, c->r.name);
		emit_free(c->r.name, x);
	}

	/* repeated elements */
	x = sized(BF_COUNTING, 64, 3, 9);
	add_range(&x, 0, 5);
	add_range(&x, 1000, 1);
	add_range(&x, 1000, 1);
	for (i = 0; i < 20; i++)
		add_hash(&x, bf_hash_int64(77, x.f.seed));	/* saturates its counters */
	emit_free("counting-saturated", x);
	x = sized(BF_CUCKOO, 64, 8, 0);
	/* copies of one element until its buckets hold no more */
	while ((st = bf_add(&x.f, bf_hash_int64(7, 0))) == BF_OK)
		;
	if (st != BF_E_COPIES)
		die("bf_add", st);
	emit_free("cuckoo-duplicates", x);
	x = sized(BF_CUCKOO, 64, 8, 0);	/* STORAGE.md's worked example */
	add_hash(&x, bf_hash_bytes("hello", 5, 0));
	add_hash(&x, bf_hash_int64(42, 0));
	emit_free("cuckoo-storage-example", x);

	/* unions */
	x = planned(BF_SCALABLE, 4, 0.01, 0);
	add_range(&x, 0, 3);
	y = planned(BF_SCALABLE, 4, 0.01, 0);
	add_range(&y, 500, 4);
	unite(&x, &y);				/* no room in stage 0: appended */
	free(y.b);
	emit_free("scalable-union-appended", x);
	x = sized(BF_CUCKOO, 64, 8, 0);
	add_range(&x, 0, 6);
	y = sized(BF_CUCKOO, 64, 8, 0);
	add_range(&y, 100, 6);
	unite(&x, &y);				/* buckets overflow: chained */
	free(y.b);
	emit_free("cuckoo-union-chained", x);
}

/* ----------------------------------------------------------------------
 * fuzz_ops: two filters and a script (see fuzz_ops.c for the format)
 * ---------------------------------------------------------------------- */

#define ON_B		0x10		/* target B instead of A */
#define SELF		0x20		/* union/intersect with itself */
#define KEY16		0x20		/* element: a 16-bit key */
#define RAW			0x40		/* element: a raw 16-byte hash */
#define KNOWN		0x60		/* element: one remembered */

typedef struct script
{
	unsigned char b[65536];
	size_t		len;
} script;

static void
put(script *s, const void *bytes, size_t len)
{
	memcpy(s->b + s->len, bytes, len);
	s->len += len;
}

static void
put_u8(script *s, unsigned v)
{
	unsigned char c = (unsigned char) v;

	put(s, &c, 1);
}

static void
put_u32(script *s, uint32_t v)
{
	unsigned char le[4] = {v & 255, (v >> 8) & 255, (v >> 16) & 255, v >> 24};

	put(s, le, 4);
}

static void
start(script *s, unsigned flags, unsigned n0, const flt *a, const flt *b)
{
	s->len = 0;
	put_u8(s, flags);
	put_u8(s, n0);
	put_u32(s, a ? (uint32_t) a->len : 0);
	if (a)
		put(s, a->b, a->len);
	put_u32(s, b ? (uint32_t) b->len : 0);
	if (b)
		put(s, b->b, b->len);
}

/* The operations every variant gets, then a variant's own */
static void
common_ops(script *s)
{
	put_u8(s, OP_ADD);
	put_u8(s, 1);
	put_u8(s, OP_ADD | KEY16);
	put_u8(s, 0x34);
	put_u8(s, 0x12);
	put_u8(s, OP_ADD | RAW);
	put(s, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 16);
	put_u8(s, OP_ADD_MANY);
	put_u8(s, 2);
	put_u8(s, 0);
	put_u8(s, 20);
	put_u8(s, OP_CONTAINS);
	put_u8(s, 1);
	put_u8(s, OP_CONTAINS | KNOWN);
	put_u8(s, 3);
	put_u8(s, OP_ADD_MANY | ON_B);
	put_u8(s, 9);
	put_u8(s, 0);
	put_u8(s, 10);
	put_u8(s, OP_UNION);
	put_u8(s, OP_FILL);
	put_u8(s, OP_INTERSECT | ON_B);
	put_u8(s, OP_UNION | SELF);
	put_u8(s, OP_INTERSECT | SELF);
	put_u8(s, OP_REMOVE_KNOWN);
	put_u8(s, 5);
	put_u8(s, OP_REMOVE);
	put_u8(s, 200);
	put_u8(s, OP_ADD_DUP);
	put_u8(s, 9);
	put_u8(s, 20);
	put_u8(s, OP_GROW);
	put_u8(s, OP_CHECK);
	put_u8(s, OP_COPY | ON_B);
	put_u8(s, OP_INTERSECT);
	put_u8(s, OP_CHECK | ON_B);
}

static void
emit_ops(const char *name, const script *s)
{
	write_file("fuzz_ops", name, s->b, s->len);
}

static void
ops_corpus(void)
{
	static script s;
	flt			a,
				b;
	int			v;

	/* fallback filters only: the flags choose the variant */
	for (v = 0; v < 5; v++)
	{
		static const char *names[] = {
			"fallback-blocked", "fallback-classic", "fallback-counting",
			"fallback-scalable", "fallback-cuckoo"
		};

		start(&s, v | (2 << 3), 7, NULL, NULL);
		common_ops(&s);
		emit_ops(names[v], &s);
	}

	a = planned(BF_BLOCKED, 20, 0.01, 0);
	add_range(&a, 0, 5);
	b = copy(&a);
	add_range(&b, 50, 5);
	start(&s, 0, 0, &a, &b);
	common_ops(&s);
	emit_ops("blocked-pair", &s);
	free(a.b);
	free(b.b);

	a = sized(BF_CLASSIC, 100, 3, 7);
	add_range(&a, 0, 5);
	b = sized(BF_CLASSIC, 100, 3, 7);
	add_range(&b, 3, 5);
	start(&s, 0, 0, &a, &b);
	common_ops(&s);
	emit_ops("classic-pair", &s);
	free(a.b);
	free(b.b);

	a = sized(BF_COUNTING, 37, 2, 5);
	add_range(&a, 0, 4);
	b = copy(&a);
	add_range(&b, 2, 4);
	start(&s, 0, 0, &a, &b);
	common_ops(&s);
	put_u8(&s, OP_ADD_DUP);		/* saturate, then remove what was added */
	put_u8(&s, 3);
	put_u8(&s, 31);
	put_u8(&s, OP_REMOVE | KNOWN);
	put_u8(&s, 0);
	put_u8(&s, OP_REMOVE | KNOWN);
	put_u8(&s, 1);
	put_u8(&s, OP_UNION | ON_B);
	put_u8(&s, OP_REMOVE_KNOWN | ON_B);
	put_u8(&s, 2);
	emit_ops("counting-pair", &s);
	free(a.b);
	free(b.b);

	a = planned(BF_SCALABLE, 4, 0.01, 0);
	b = planned(BF_SCALABLE, 4, 0.01, 0);
	add_range(&b, 100, 12);
	start(&s, 0, 0, &a, &b);
	common_ops(&s);
	put_u8(&s, OP_ADD_MANY);
	put_u8(&s, 0);
	put_u8(&s, 1);
	put_u8(&s, 60);
	put_u8(&s, OP_UNION | ON_B);
	put_u8(&s, OP_GROW | ON_B);
	put_u8(&s, OP_UNION);
	emit_ops("scalable-pair", &s);
	free(a.b);
	free(b.b);

	a = sized(BF_CUCKOO, 64, 8, 0);
	add_range(&a, 0, 4);
	b = sized(BF_CUCKOO, 64, 8, 0);
	add_range(&b, 100, 20);
	start(&s, 0, 0, &a, &b);
	common_ops(&s);
	put_u8(&s, OP_ADD_DUP | RAW);
	put(&s, "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80", 16);
	put_u8(&s, 17);
	put_u8(&s, OP_REMOVE_KNOWN);
	put_u8(&s, 0);
	put_u8(&s, OP_UNION | ON_B);
	put_u8(&s, OP_REMOVE_KNOWN | ON_B);
	put_u8(&s, 1);
	emit_ops("cuckoo-pair", &s);
	free(a.b);
	free(b.b);

	/* unions that append a stage each time, up to the 64 a chain may have */
	a = planned(BF_SCALABLE, 4, 0.01, 0);
	b = planned(BF_SCALABLE, 4, 0.01, 0);
	start(&s, 0, 0, &a, &b);
	for (v = 0; v < 70; v++)
	{
		put_u8(&s, OP_RESET | ON_B);	/* B empty, then 8 new elements: 2 stages */
		put_u8(&s, OP_ADD_MANY | ON_B);
		put_u8(&s, v);
		put_u8(&s, 1);
		put_u8(&s, 7);
		put_u8(&s, OP_UNION);	/* A |= B: no room in A, so B's stages are appended */
	}
	put_u8(&s, OP_GROW);
	put_u8(&s, OP_FILL);
	emit_ops("scalable-64-stages", &s);
	free(a.b);
	free(b.b);

	/* large fallback filters: megabytes, so the yield hook is called */
	for (v = 0; v < 5; v++)
	{
		static const char *names[] = {
			"large-blocked", "large-classic", "large-counting", "large-scalable",
			"large-cuckoo"
		};

		start(&s, 0x80 | 0x40 | v | (v == 3 ? 2 << 3 : 0), 31, NULL, NULL);
		put_u8(&s, OP_ADD_MANY);
		put_u8(&s, 0);
		put_u8(&s, 0);
		put_u8(&s, 30);
		put_u8(&s, OP_ADD_MANY | ON_B);
		put_u8(&s, 0);
		put_u8(&s, 1);
		put_u8(&s, 30);
		put_u8(&s, OP_UNION);
		put_u8(&s, OP_FILL);
		put_u8(&s, OP_INTERSECT | ON_B);
		put_u8(&s, OP_UNION | ON_B | SELF);
		put_u8(&s, OP_FILL | ON_B);
		put_u8(&s, OP_ADD_DUP | ON_B);	/* 3 copies: f | f chains a cuckoo stage */
		put_u8(&s, 5);
		put_u8(&s, 2);
		put_u8(&s, OP_UNION | ON_B | SELF);
		put_u8(&s, OP_UNION);	/* a stage of B beyond A's */
		emit_ops(names[v], &s);
	}

	a = sized(BF_CUCKOO, 20, 5, 3);
	start(&s, 0, 0, &a, NULL);
	put_u8(&s, OP_ADD_MANY);
	put_u8(&s, 0);
	put_u8(&s, 0);
	put_u8(&s, 40);
	put_u8(&s, OP_REMOVE_KNOWN);
	put_u8(&s, 7);
	put_u8(&s, OP_FILL);
	emit_ops("cuckoo-f5-grow", &s);
	free(a.b);
}

/* ----------------------------------------------------------------------
 * fuzz_plan: parameter records (see fuzz_plan.c for the format)
 * ---------------------------------------------------------------------- */

static void
plan_record(const char *name, unsigned vsel, unsigned specials, uint64_t items,
			double fpr, uint64_t seed, uint64_t bits, uint32_t hashes,
			unsigned shape, const char *vname)
{
	static script s;
	uint64_t	fbits;
	int			i;

	memcpy(&fbits, &fpr, 8);
	s.len = 0;
	put_u8(&s, vsel);
	put_u8(&s, specials);
	for (i = 0; i < 8; i++)
		put_u8(&s, (unsigned) (items >> (8 * i)) & 255);
	for (i = 0; i < 8; i++)
		put_u8(&s, (unsigned) (fbits >> (8 * i)) & 255);
	for (i = 0; i < 8; i++)
		put_u8(&s, (unsigned) (seed >> (8 * i)) & 255);
	for (i = 0; i < 8; i++)
		put_u8(&s, (unsigned) (bits >> (8 * i)) & 255);
	put_u32(&s, hashes);
	put_u8(&s, shape);
	put(&s, vname, strlen(vname));
	write_file("fuzz_plan", name, s.b, s.len);
}

static void
plan_corpus(void)
{
	/* vsel: 0..4 are the variants 1..5; shape 2 = raw bits, (3 << 2) = raw hashes */
	plan_record("blocked-1000-1pct", 0, 0, 1000, 0.01, 0, 1024, 7, 2 | (3 << 2), "blocked");
	plan_record("classic-1000-1pct", 1, 0, 1000, 0.01, 1, 100, 3, 2 | (3 << 2), "classic");
	plan_record("counting-100-0.1pct", 2, 0, 100, 0.001, 2, 37, 2, 2 | (3 << 2), "counting");
	plan_record("scalable-50-1pct", 3, 0, 50, 0.01, 3, 512, 4, 2 | (3 << 2), "scalable");
	plan_record("cuckoo-1000-1pct", 4, 0, 1000, 0.01, 4, 64, 8, 2 | (3 << 2), "cuckoo");
	plan_record("cuckoo-f32", 4, 0, 10, 1e-12, 4, 256, 32, 2 | (3 << 2), "cuckoo");
	plan_record("blocked-rate-half", 0, 0, 1, 0.5, 0, 1, 1, 2 | (3 << 2), "Blocked");
	plan_record("scalable-n1", 3, 0, 1, 0.3, 0, 0, 0, 0, "");
	plan_record("nan-rate", 0, 1, 1000, 0.01, 0, 1, 1, 0, "x");
	plan_record("too-large", 1, 0, UINT64_MAX, 1e-300, 0, UINT64_MAX, 64, 2 | (3 << 2),
				"classic");
	plan_record("unknown-variant", 0x80 | 9, 0, 10, 0.01, 0, 64, 3, 2 | (3 << 2), "bloom");
}

int
main(int argc, char **argv)
{
	if (argc != 2)
	{
		fprintf(stderr, "usage: make_corpus DIR\n");
		return 2;
	}
	outdir = argv[1];
	open_corpus();
	ops_corpus();
	plan_corpus();
	printf("make_corpus: %d files written under %s\n", written, outdir);
	return 0;
}
