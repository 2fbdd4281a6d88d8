/*
 * lines.c
 *		bloomtool's input: lines from the operand files or standard input,
 *		with a progress line for long inputs, and adding them to a filter.
 */
#include "bloomtool.h"


static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * 'prints_lines': the command prints lines to standard output, so that a
 * progress line would get in their way when both go to the terminal.
 */
void
lines_init(Lines *r, char **paths, int npaths, int prints_lines)
{
	static char *stdin_only[] = {"-"};

	memset(r, 0, sizeof(*r));
	r->paths = npaths > 0 ? paths : stdin_only;
	r->npaths = npaths > 0 ? npaths : 1;
	r->progress = isatty(STDERR_FILENO) &&
		!(prints_lines && isatty(STDOUT_FILENO));
	r->start = now();
	/* inputs read within a second need no progress line */
	r->next_report = r->start + 1.0;
}

static void
report_progress(Lines *r, int done)
{
	double		t = now();

	fprintf(stderr, "\rbloomtool %s: %llu lines, %.1f MB, %.0f s%s", command,
			(unsigned long long) r->count, r->bytes / 1e6, t - r->start,
			done ? "\n" : "");
	r->shown = 1;
	r->next_report = t + 0.25;
}

/*
 * The next line without its newline, in *line (a buffer getline manages)
 * with its length in *len; false at the end of the last input.  getline
 * also fails when a line does not fit in memory: only end of file ends an
 * input, anything else is an error.
 */
int
lines_next(Lines *r, char **line, size_t *cap, size_t *len)
{
	for (;;)
	{
		ssize_t		n;

		if (r->in == NULL)
		{
			const char *path;

			if (r->next_path >= r->npaths)
				return 0;
			path = r->paths[r->next_path++];
			r->in_name = strcmp(path, "-") == 0 ? "standard input" : path;
			r->in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
			if (r->in == NULL)
				die_io("open", path);
		}
		errno = 0;
		n = getline(line, cap, r->in);
		if (n < 0)
		{
			if (ferror(r->in) || !feof(r->in))
				die(EXIT_IO, "could not read line %llu of \"%s\": %s",
					(unsigned long long) r->count + 1, r->in_name,
					strerror(errno ? errno : EIO));
			if (r->in != stdin && fclose(r->in) != 0)
				die_io("read", r->in_name);
			r->in = NULL;
			continue;
		}
		r->bytes += (uint64_t) n;
		if (n > 0 && (*line)[n - 1] == '\n')
			n--;
		*len = (size_t) n;
		if ((++r->count & 0xFFFF) == 0 && r->progress && now() >= r->next_report)
			report_progress(r, 0);
		return 1;
	}
}

void
lines_done(Lines *r)
{
	if (r->shown)
		report_progress(r, 1);
}

/*
 * Adds every line.  Each hash's cache line is prefetched and the add done
 * BF_PENDING lines later, when it has arrived (bf_add_later); the adds
 * happen in input order, so the result is the one adding at once gives.
 */
void
add_lines(Filter *f, Lines *r)
{
	bf_pending	pending;
	char	   *line = NULL;
	size_t		cap = 0,
				len;

	memset(&pending, 0, sizeof(pending));
	while (lines_next(r, &line, &cap, &len))
	{
		bf_hash		h = bf_hash_bytes(line, len, f->b.view.seed);
		bf_status	st;

		/* as bloomfilter_agg: lines are a set (bf_add_new) */
		if (!bf_add_later(&f->b.view, &pending, h) &&
			(st = bf_buf_add(&f->b, h, true)) != BF_OK)
			die_buf(f, st, NULL);
	}
	bf_add_pending(&f->b.view, &pending);
	free(line);
	lines_done(r);
}
