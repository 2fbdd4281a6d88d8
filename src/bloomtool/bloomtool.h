/*
 * bloomtool.h
 *		What the files of bloomtool share: exit statuses, errors, filter files
 *		(filter_file.c), input lines (lines.c) and the commands (commands.c).
 */
#ifndef BLOOMTOOL_H
#define BLOOMTOOL_H

#define _GNU_SOURCE				/* flock, renameat2 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "bf.h"

#ifndef BLOOMTOOL_VERSION
#define BLOOMTOOL_VERSION "1.0"
#endif

#define EXIT_USAGE		1
#define EXIT_NO_MATCH	1
#define EXIT_BAD_FILTER 2
#define EXIT_IO			3

typedef struct Options
{
	const char *items;
	const char *fpr;
	const char *variant;
	const char *seed;
	const char *output;
	int			invert;
	int			count;
	int			nargs;
	char	  **args;			/* the operands, in order */
} Options;

/* A filter in memory (the core's bf_buf over the heap) */
typedef struct Filter
{
	bf_buf		b;				/* bytes, len, view */
	const char *name;			/* for messages */
} Filter;

/* An output file being written (filter_file.c) */
typedef struct Target
{
	const char *name;			/* as given, for messages */
	char	   *path;			/* the file itself: no symlink at its end */
	int			in_place;		/* "-", a pipe or a device */
	int			lock_fd;		/* the existing file, locked; -1 if none */
	struct stat old;			/* of the locked file */
	int			temp_fd;
} Target;

/*
 * The input lines: the operand files in turn ("-" or none: standard
 * input), with a progress line on a terminal for long inputs.
 */
typedef struct Lines
{
	char	  **paths;
	int			npaths;
	int			next_path;
	FILE	   *in;
	const char *in_name;
	uint64_t	count;
	uint64_t	bytes;
	int			progress;		/* standard error is a terminal */
	int			shown;
	double		start;
	double		next_report;
} Lines;

/* bloomtool.c: the command being run, for messages ("bloomtool build: ") */
extern const char *command;
extern void die(int status, const char *fmt,...)
			__attribute__((format(printf, 2, 3), noreturn));
extern void usage_error(const char *fmt,...)
			__attribute__((format(printf, 1, 2), noreturn));
extern void die_io(const char *what, const char *path)
			__attribute__((noreturn));
extern void die_invalid(const char *path, bf_status st)
			__attribute__((noreturn));
extern int64_t parse_int64(const char *s, const char *name);
extern double parse_rate(const char *s);

/* filter_file.c */
extern const bf_mem heap;		/* filters on the C heap, placed by the core */
extern void die_buf(const Filter *f, bf_status st, const char *src)
			__attribute__((noreturn));
extern void read_filter_fd(int fd, const char *name, Filter *f);
extern void read_filter(const char *path, Filter *f);
extern void install_cleanup(void);
extern void target_open(const char *name, int must_exist, Target *t);
extern void target_write(Target *t, const Filter *f);

/* lines.c */
extern void lines_init(Lines *r, char **paths, int npaths, int prints_lines);
extern int	lines_next(Lines *r, char **line, size_t *cap, size_t *len);
extern void lines_done(Lines *r);
extern void add_lines(Filter *f, Lines *r);

/* commands.c */
extern int	cmd_build(Options *o);
extern int	cmd_add(Options *o);
extern int	cmd_check(Options *o);
extern int	cmd_info(Options *o);
extern int	cmd_union(Options *o);

#endif							/* BLOOMTOOL_H */
