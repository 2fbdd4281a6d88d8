/*
 * commands.c
 *		bloomtool's commands: build, add, check, info and union.
 */
#include "bloomtool.h"

/* Lines hashed and prefetched together before check tests them */
#define BATCH			16

static void
need_operands(const Options *o, int min, int max, const char *what)
{
	if (o->nargs < min)
		usage_error("missing %s", what);
	if (max >= 0 && o->nargs > max)
		usage_error("unexpected argument \"%s\"", o->args[max]);
}

/* build and add: every line of the inputs added, the filter written to t */
static int
add_and_write(Filter *f, char **inputs, int ninputs, Target *t)
{
	Lines		r;

	lines_init(&r, inputs, ninputs, 0);
	add_lines(f, &r);
	target_write(t, f);
	bf_buf_free(&f->b);
	return 0;
}

int
cmd_build(Options *o)
{
	bf_variant	variant = BF_BLOCKED;
	int64_t		items;
	double		fpr = 0.01;
	int64_t		seed = 0;
	bf_params	params;
	bf_status	st;
	Filter		f;
	Target		t;

	if (o->items == NULL)
		usage_error("--items is required (the number of distinct items to plan for)");
	if (o->output == NULL)
		usage_error("-o FILE is required (\"-o -\" writes to standard output)");
	items = parse_int64(o->items, "items");
	if (items <= 0)
		usage_error("--items must be positive, not %s", o->items);
	if (o->fpr)
		fpr = parse_rate(o->fpr);
	if (o->seed)
		seed = parse_int64(o->seed, "seed");
	if (o->variant && !bf_variant_parse(o->variant, strlen(o->variant), &variant))
		usage_error("unknown variant \"%s\" (available: %s)", o->variant,
					bf_variant_list());

	st = bf_plan(variant, (uint64_t) items, fpr, (uint64_t) seed, &params);
	if (st == BF_E_TOO_LARGE)
		usage_error("a %s filter for %lld items at rate %g would exceed the 1 GB limit of one value (split the set, or accept a higher rate)",
					bf_variant_name(variant), (long long) items, fpr);
	if (st != BF_OK)
		usage_error("invalid parameters: %s", bf_status_message(st));

	target_open(o->output, 0, &t);
	f.name = o->output;
	st = bf_buf_create(&f.b, &heap, &params, true);
	if (st != BF_OK)
		die_buf(&f, st, NULL);

	return add_and_write(&f, o->args, o->nargs, &t);
}

int
cmd_add(Options *o)
{
	Filter		f;
	Target		t;

	need_operands(o, 1, -1, "filter FILE");
	if (strcmp(o->args[0], "-") == 0)
		usage_error("the filter FILE cannot be standard input: add rewrites it");
	/* the file is read under the lock, held until the new one is in place */
	target_open(o->args[0], 1, &t);
	if (t.lock_fd >= 0)
		read_filter_fd(t.lock_fd, o->args[0], &f);
	else
		read_filter(o->args[0], &f);
	return add_and_write(&f, o->args + 1, o->nargs - 1, &t);
}

int
cmd_check(Options *o)
{
	Filter		f;
	Lines		r;
	char	   *line[BATCH] = {NULL};
	size_t		cap[BATCH] = {0},
				len[BATCH];
	bf_hash		h[BATCH];
	uint64_t	printed = 0;
	int			n,
				i;

	need_operands(o, 1, -1, "filter FILE");
	if (strcmp(o->args[0], "-") == 0)
		usage_error("the filter FILE cannot be standard input: the lines are read from there");
	read_filter(o->args[0], &f);
	lines_init(&r, o->args + 1, o->nargs - 1, !o->count);

	/* hash a batch and prefetch its cache lines, then test it in order */
	do
	{
		for (n = 0; n < BATCH && lines_next(&r, &line[n], &cap[n], &len[n]); n++)
		{
			h[n] = bf_hash_bytes(line[n], len[n], f.b.view.seed);
			bf_prefetch(&f.b.view, h[n]);
		}
		for (i = 0; i < n; i++)
			if (bf_contains(&f.b.view, h[i]) != o->invert)
			{
				printed++;
				if (!o->count)
				{
					fwrite(line[i], 1, len[i], stdout);
					putchar('\n');
				}
			}
	} while (n == BATCH);
	lines_done(&r);

	if (o->count)
		printf("%llu\n", (unsigned long long) printed);
	if (fflush(stdout) != 0 || ferror(stdout))
		die_io("write", "standard output");
	for (i = 0; i < BATCH; i++)
		free(line[i]);
	bf_buf_free(&f.b);
	return printed > 0 ? 0 : EXIT_NO_MATCH;
}

/*
 * A float8 as PostgreSQL prints it (extra_float_digits 1, the default):
 * the fewest digits that read back as the same value, fixed-point for
 * decimal exponents -4 to 14, exponential otherwise.
 */
static void
print_float8(double v)
{
	char		buf[64];
	int			digits,
				exp10;

	if (isnan(v))
	{
		puts("NaN");
		return;
	}
	if (isinf(v))
	{
		puts(v > 0 ? "Infinity" : "-Infinity");
		return;
	}
	if (v == 0.0)
	{
		puts(signbit(v) ? "-0" : "0");
		return;
	}
	for (digits = 1; digits < 17; digits++)
	{
		snprintf(buf, sizeof(buf), "%.*e", digits - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*e", digits - 1, v);
	exp10 = atoi(strchr(buf, 'e') + 1);
	if (exp10 >= -4 && exp10 < 15)
		printf("%.*f\n", digits - 1 - exp10 > 0 ? digits - 1 - exp10 : 0, v);
	else
		puts(buf);
}

int
cmd_info(Options *o)
{
	Filter		f;
	bf_fill_stats fill;
	uint64_t	capacity;

	need_operands(o, 1, 1, "filter FILE");
	read_filter(o->args[0], &f);
	bf_fill(&f.b.view, &fill, NULL, NULL);
	capacity = bf_filter_capacity(&f.b.view);

	/* the columns of bloomfilter_info(f), in order; null as SQL's NULL */
	printf("%-19s %s\n", "variant", bf_variant_name(f.b.view.variant));
	printf("%-19s %llu\n", "bits", (unsigned long long) f.b.view.bits);
	printf("%-19s %llu\n", "bytes", (unsigned long long) f.b.len);
	printf("%-19s %u\n", "hashes", f.b.view.hashes);
	printf("%-19s %lld\n", "seed", (long long) (int64_t) f.b.view.seed);
	printf("%-19s %llu\n", "items_added", (unsigned long long) f.b.view.items);
	printf("%-19s %llu\n", "bits_set", (unsigned long long) fill.bits_set);
	printf("%-19s ", "fill_ratio");
	print_float8(fill.fill_ratio);
	printf("%-19s ", "estimated_items");
	print_float8(fill.estimated_items);
	printf("%-19s ", "estimated_fpr");
	print_float8(fill.fpr);
	if (capacity == 0)
		printf("%-19s null\n", "capacity");
	else
		printf("%-19s %llu\n", "capacity", (unsigned long long) capacity);
	printf("%-19s ", "target_fpr");
	if (f.b.view.target_fpr == 0.0)
		puts("null");
	else
		print_float8(f.b.view.target_fpr);
	printf("%-19s %u\n", "stages", fill.stages);
	printf("%-19s %llu\n", "saturated_counters",
		   (unsigned long long) fill.saturated);

	if (fflush(stdout) != 0 || ferror(stdout))
		die_io("write", "standard output");
	bf_buf_free(&f.b);
	return 0;
}

int
cmd_union(Options *o)
{
	Filter		dst;
	Target		t;
	int			i;

	need_operands(o, 2, -1, "filters: union needs at least two");
	if (o->output == NULL)
		usage_error("-o FILE is required (\"-o -\" writes to standard output)");
	/* locked before the inputs are read: the output may be one of them */
	target_open(o->output, 0, &t);
	read_filter(o->args[0], &dst);
	for (i = 1; i < o->nargs; i++)
	{
		Filter		src;

		bf_status	st;

		read_filter(o->args[i], &src);
		if (!bf_compatible(&dst.b.view, &src.b.view))
		{
			char		a[192],
						b[192];

			bf_describe(&dst.b.view, a, sizeof(a));
			bf_describe(&src.b.view, b, sizeof(b));
			die(EXIT_BAD_FILTER, "cannot combine bloomfilters of different parameters: \"%s\" is %s; \"%s\" is %s",
				dst.name, a, src.name, b);
		}
		if ((st = bf_buf_merge(&dst.b, &src.b.view, false)) != BF_OK)
			die_buf(&dst, st, src.name);
		bf_buf_free(&src.b);
	}
	target_write(&t, &dst);
	bf_buf_free(&dst.b);
	return 0;
}
